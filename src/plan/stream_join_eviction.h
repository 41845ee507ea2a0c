// When a stream-stream join may forget a buffered row (Spark's StreamingSymmetricHashJoinHelper
// and StreamingJoinHelper.getStateValueWatermark), decided from the plan alone so that the
// start-up check (output_mode.cc) and the operator (exec/stream_join_exec.cc) agree.
//
// Two rules, per side:
//   key    a join key pair has a watermarked column on either side (a window or event-time
//          equality): a row of either side goes once its value of that key is at or before the
//          watermark; no later row of the other side can carry that key.
//   range  the condition bounds this side's watermarked event-time column from below by the
//          other side's, e.g. `r.ts BETWEEN l.ts AND l.ts + INTERVAL 1 HOUR` gives the left side
//          `l.ts >= r.ts - 1 hour`: a left row goes once l.ts <= watermark + offset (offset =
//          -1 hour, minus 1 ms for a non-strict bound, as Spark's inclusive clean-up rule).
// Several range conjuncts bounding one side: the smallest offset wins (the safest).
#pragma once

#include <cstdint>
#include <string>

#include "plan/logical_plan.h"

namespace sluice::plan {

struct JoinSideEviction {
  enum class Rule { kNone, kKey, kRange };
  Rule rule = Rule::kNone;
  /// kKey: the index of the join key pair (JoinSpec::left_keys/right_keys) holding event time.
  int key_index = -1;
  /// kRange: this side's event-time column and the offset (micros) added to the watermark.
  std::string column;
  int64_t offset_us = 0;

  bool evicts() const { return rule != Rule::kNone; }
  /// "key window_end <= watermark", "l_ts <= watermark - 3600000 ms", "never".
  std::string ToString(const JoinSpec& spec, bool left) const;
};

struct StreamJoinEviction {
  JoinSideEviction left;
  JoinSideEviction right;
};

/// The conjuncts of `condition` (a AND b AND c -> a, b, c), in order.
void SplitConjuncts(const ExprPtr& condition, std::vector<ExprPtr>* out);
/// The conjunction of `conjuncts` (not empty): a AND b AND c.
ExprPtr AllOf(const std::vector<ExprPtr>& conjuncts);

/// A kJoin node whose two inputs are streams: a stateful node (LogicalPlan::StatefulNodes()
/// lists it), both sides buffered in the state store.
bool IsStreamStreamJoin(const LogicalPlan& node);

/// The eviction rules of a join node whose two inputs are streams.
StreamJoinEviction AnalyzeStreamJoinEviction(const LogicalPlan& join);

/// Spark's start-up rules for a join of two streams (UnsupportedOperationChecker): append or
/// update output mode (the same rows: a joined row is final once written; Spark 4 runs both),
/// not complete; outer and semi joins need a rule that lets the state of the side whose
/// unmatched rows are emitted (left for left outer/semi, right for right outer, both for full
/// outer) be evicted. The error names what is missing.
Status CheckStreamStreamJoin(const LogicalPlan& join, bool complete_mode);

}  // namespace sluice::plan
