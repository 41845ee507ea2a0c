// What the two streaming aggregations share (grouped/windowed: hash_aggregate_exec.cc; session
// windows: session_window_exec.cc): the key layout, the evaluated input columns, the output
// builders, the batch's emit/evict settings, and the AggregateExec base that buffers the
// batch's input, describes the state and reports progress.
//
// State key of a group: the window bounds first (end, then start) or else a watermarked grouping
// column first, so the store iterates keys in event-time order and eviction can stop early;
// then the other grouping values (row_codec). The value: the encoded partial aggregates.
#pragma once

#include <arrow/api.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/accumulators.h"
#include "exec/physical_operator.h"
#include "exec/stateful_util.h"
#include "plan/logical_plan.h"

namespace sluice::exec {

using Accs = std::vector<Acc>;

/// a mod b, in [0, b).
inline int64_t FloorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return m < 0 ? m + b : m;
}

/// Where each part of a key goes in the output. Fixed at planning.
struct AggregateLayout {
  std::shared_ptr<arrow::Schema> schema;  // the aggregate's output
  bool session = false;
  bool windowed = false;          // tumbling/sliding: key = end, start, groups
  int window_start_out = -1;      // output column of window_start (window_end = +1)
  std::vector<int> group_expr;    // non-window grouping expressions, in key order
  std::vector<int> group_out;     // their output columns
  bool time_first = false;        // !windowed: the first key part is a watermarked column
  int64_t time_first_factor = 1;  // its unit -> micros
  bool evictable = false;         // keys carry an event time the watermark can close
  size_t first_agg_out = 0;
};

/// The event time (micros) a grouped key can be closed by, or kNoWatermark when it has none.
Result<int64_t> KeyTime(const AggregateLayout& l, std::string_view key);

/// What this batch emits and which watermarks apply to it.
struct AggregateSettings {
  plan::OutputMode mode = plan::OutputMode::kComplete;  // a batch query behaves as complete mode
  int64_t late_us = kNoWatermark;   // rows (windows) at or before it are dropped as late
  int64_t evict_us = kNoWatermark;  // keys (windows) at or before it are closed
};

/// Evaluated input columns of one batch.
struct AggregateInputs {
  int64_t num_rows = 0;
  std::vector<std::shared_ptr<arrow::Array>> groups;  // per AggregateLayout::group_expr entry
  std::vector<std::shared_ptr<arrow::Array>> args;    // per aggregate call, then max_by/min_by orderings
  std::shared_ptr<arrow::Int64Array> time_us;         // window/session time
};

/// The parts (one per input batch) as one: only the evaluated columns are concatenated.
Result<AggregateInputs> ConcatInputs(const std::vector<AggregateInputs>& parts);

/// Appends row `row`'s grouping values to `key`.
void EncodeGroups(const AggregateInputs& in, int64_t row, std::string* key);

/// Builders for the aggregate's output columns.
struct AggregateOutput {
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;

  static Result<AggregateOutput> Make(const arrow::Schema& schema);
  /// Room for `rows` more rows in every column.
  Status Reserve(int64_t rows);
  Status AppendTimestamp(int col, int64_t us);
  /// Decodes the grouping part of `key` (after any window bounds) into the output.
  Status AppendGroups(const AggregateLayout& l, std::string_view key, size_t* pos);
  Result<std::shared_ptr<arrow::Table>> Finish(const std::shared_ptr<arrow::Schema>& schema);
};

/// A streaming (or batch) aggregation over the state store. It holds the batch's input back
/// (aggregation answers only once every row is in) and runs on Finish.
class AggregateExec : public StatefulOperator {
 public:
  AggregateExec(const plan::LogicalPlan& node, int operator_id, std::vector<OperatorPtr> children);

  std::string Describe() const override;
  state::StateOperatorMetadata StateMetadata(int num_partitions) const override;
  /// Append and update emit or evict when the watermark moves; complete mode re-emits every
  /// group anyway, so a no-data batch would change nothing (as Spark's StateStoreSaveExec).
  bool RunsNoDataBatch(plan::OutputMode mode) const override { return mode != plan::OutputMode::kComplete; }
  Result<std::unique_ptr<OperatorState>> MakeState(ExecContext* ctx) const override;
  Status Push(ExecContext* ctx, OperatorState* state, int child_index, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override;
  Status Finish(ExecContext* ctx, OperatorState* state, const BatchConsumer& out) const override;

 protected:
  /// The explain name (Spark's: StateStoreSaveExec, SessionWindowStateStoreSaveExec).
  virtual const char* exec_name() const = 0;
  /// operatorName in state/<id>/_metadata.
  virtual const char* state_operator_name() const = 0;
  /// Folds the batch (its input batches' evaluated columns, `parts`: at least one) into state,
  /// evicts what the watermark closed, and returns the rows the output mode emits. Adds its
  /// timings and late rows to `progress`.
  virtual Result<std::shared_ptr<arrow::Table>> Aggregate(const std::vector<AggregateInputs>& parts,
                                                          const AggregateSettings& settings, ExecContext* ctx,
                                                          OperatorProgress* progress) const = 0;

  const AggregateLayout& layout() const { return layout_; }
  const std::vector<plan::AggCall>& aggs() const { return aggs_; }
  const std::optional<plan::WindowSpec>& window() const { return window_; }
  bool global() const { return group_exprs_.empty(); }

 private:
  Result<AggregateInputs> Evaluate(const arrow::RecordBatch& batch, OperatorState* state) const;
  AggregateSettings Settings(const ExecContext& ctx) const;

  std::vector<plan::ExprPtr> group_exprs_;
  std::vector<plan::AggCall> aggs_;  // AccumulatorSet keeps a pointer: never modified
  std::optional<plan::WindowSpec> window_;
  AggregateLayout layout_;
  std::string keys_text_;         // the grouping, as explain and the state metadata print it
  std::string watermarked_text_;  // the input's watermarked columns (state metadata)
  std::string value_text_;        // the aggregate calls and their output columns (state metadata)
};

}  // namespace sluice::exec
