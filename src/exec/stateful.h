// What stateful operators need from whoever runs the plan, and what they report back.
//
// A streaming query runs its plan once per micro-batch with the runtime's state stores (loaded
// at the batch's version) and the batch's two watermarks; a batch query runs it once over
// everything, with in-memory state and complete-mode semantics, so the two give the same
// answer ("the same query also runs as a plain batch job").
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan/output_mode.h"
#include "state/state_store.h"

namespace sluice::exec {

class PhysicalOperator;

/// One entry of a progress report's stateOperators (Spark's StateOperatorProgress).
struct OperatorProgress {
  std::string operator_name;  // stateStoreSave (aggregations), dedupe, dedupeWithinWatermark
  int64_t num_rows_total = 0;
  int64_t num_rows_updated = 0;
  int64_t num_rows_removed = 0;
  int64_t memory_used_bytes = 0;
  int64_t num_rows_dropped_by_watermark = 0;
  int64_t all_updates_time_ms = 0;
  int64_t all_removals_time_ms = 0;
  int num_shuffle_partitions = 0;
  int num_state_store_instances = 0;
  /// Operator-specific numbers (Spark's customMetrics), e.g. a stream-stream join's rows per side.
  std::map<std::string, int64_t> custom_metrics{};
};

/// Event times a withWatermark node saw in one batch, in ms since the epoch.
struct EventTimeStats {
  int64_t max_ms = std::numeric_limits<int64_t>::min();
  int64_t min_ms = std::numeric_limits<int64_t>::max();
  double sum_ms = 0;
  int64_t count = 0;
};

/// The state of each (operator, partition) for the batch being run.
class StateStores {
 public:
  virtual ~StateStores() = default;
  virtual int num_partitions() const = 0;
  /// The store of operator `operator_id` (StatefulOperator::operator_id()) and
  /// `partition`, loaded at the batch's version. Safe to call from several threads for
  /// different partitions.
  virtual Result<state::StateStore*> Get(int operator_id, int partition) = 0;
};

/// In-memory stores (nothing durable): batch queries and tests.
std::unique_ptr<StateStores> MakeMemoryStateStores(int num_partitions);

struct ExecContext {
  /// False for a batch query: aggregations return every group (complete), nothing is late.
  bool streaming = false;
  /// What a streaming aggregation emits (a batch query always behaves as complete).
  plan::OutputMode output_mode = plan::OutputMode::kAppend;
  /// Rows (or windows) at or before this watermark belong to what an earlier batch closed:
  /// stateful operators drop them. The previous batch's watermark (Spark 3.4+).
  int64_t late_watermark_ms = std::numeric_limits<int64_t>::min();
  /// Windows ending at or before this watermark are emitted (append) and evicted. The batch's own.
  int64_t eviction_watermark_ms = std::numeric_limits<int64_t>::min();
  StateStores* stores = nullptr;
  /// The micro-batch's id (streaming only; -1 for a batch query).
  int64_t batch_id = -1;
  /// The rows of each scan for this run: ScanExec i reads entry i. Set by the executor.
  const std::vector<std::shared_ptr<arrow::Table>>* scan_inputs = nullptr;

  // Filled in while the plan runs.
  std::vector<EventTimeStats> event_time;     // per watermark operator (PhysicalPlan::watermarks())
  std::vector<OperatorProgress> operators;    // per stateful operator id (PhysicalPlan::stateful())
  /// Every operator that ran, in explain order (parent before its inputs).
  std::vector<const PhysicalOperator*> operators_run;
};

}  // namespace sluice::exec
