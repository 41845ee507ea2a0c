// Deduplication over the state store: what dropDuplicates (dedup_exec.cc) and
// dropDuplicatesWithinWatermark (dedup_within_watermark_exec.cc) share. Each keeps one state
// entry per key seen and passes a row on only when its key is new; they differ in what the
// entry's value holds and when an entry expires.
//
// State key = the key columns (row_codec), a watermarked key column first so that eviction
// can walk keys in event-time order and stop early.
#pragma once

#include <string>
#include <vector>

#include "exec/physical_operator.h"
#include "plan/logical_plan.h"

namespace sluice::exec {

class DeduplicateExec : public StatefulOperator {
 public:
  /// `key_columns`: in state key order; `event_column`: the column whose event time drops late
  /// rows and expires keys (empty: none); `unit_to_micros` its unit (UnitToMicros).
  DeduplicateExec(const plan::LogicalPlan& node, int operator_id, std::vector<OperatorPtr> children,
                  std::vector<std::string> key_columns, std::string event_column);

  std::string Describe() const override;
  state::StateOperatorMetadata StateMetadata(int num_partitions) const override;
  Result<std::unique_ptr<OperatorState>> MakeState(ExecContext* ctx) const override;
  Status Push(ExecContext* ctx, OperatorState* state, int child_index, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override;
  /// Passes on the batch's rows whose key was not seen before (nor earlier in this batch), in
  /// input order, and evicts expired keys.
  Status Finish(ExecContext* ctx, OperatorState* state, const BatchConsumer& out) const override;

 protected:
  virtual const char* exec_name() const = 0;
  /// operatorName in the state metadata and in progress.
  virtual const char* state_operator_name() const = 0;
  virtual const char* value_schema() const = 0;
  /// The state value of a key first seen at `row` (event_us: the event column in micros, or
  /// null without one).
  virtual void NewValue(const arrow::Int64Array* event_us, int64_t row, std::string* value) const = 0;
  /// What eviction under the watermark `evict_us` (micros) does with a stored key: keys are
  /// walked in key order (StateStore::ForEachRemoving); kStop ends the walk.
  virtual Result<state::StateStore::KeyAction> Evict(std::string_view key, std::string_view value,
                                                     int64_t evict_us) const = 0;

  const std::string& event_column() const { return event_column_; }
  /// The event column's unit -> micros (UnitToMicros), 1 without one.
  int64_t event_unit() const { return event_unit_; }

 private:
  std::vector<std::string> user_keys_;  // as the user named them (explain, state metadata)
  std::vector<std::string> key_columns_;
  std::string event_column_;
  int64_t event_unit_ = 1;
};

}  // namespace sluice::exec
