// StreamingDeduplicateWithinWatermarkExec (dropDuplicatesWithinWatermark): a key is kept from
// its first event time until that time plus the watermark delay; the value is that expiry
// (fixed64 micros; empty when the first row had no event time: kept forever). A key expires
// once the batch's watermark reaches its expiry. Rows at or before the previous batch's
// watermark are dropped as late.
#include <arrow/api.h>

#include "exec/dedup_exec.h"
#include "exec/physical_planner.h"
#include "exec/row_codec.h"

namespace sluice::exec {
namespace {

class StreamingDeduplicateWithinWatermarkExec : public DeduplicateExec {
 public:
  StreamingDeduplicateWithinWatermarkExec(const plan::LogicalPlan& node, int operator_id,
                                          std::vector<OperatorPtr> children, std::string event_column, int64_t delay_us)
      : DeduplicateExec(node, operator_id, std::move(children), node.key_columns, std::move(event_column)),
        delay_us_(delay_us) {}

 protected:
  const char* exec_name() const override { return "StreamingDeduplicateWithinWatermarkExec"; }
  const char* state_operator_name() const override { return "dedupeWithinWatermark"; }
  const char* value_schema() const override { return "[expiresAtMicros bigint]"; }

  void NewValue(const arrow::Int64Array* event_us, int64_t row, std::string* value) const override {
    if (event_us && !event_us->IsNull(row)) EncodeInt64(event_us->Value(row) + delay_us_, value);
  }

  // Each key expires at its own time (its value): the whole store is walked.
  Result<state::StateStore::KeyAction> Evict(std::string_view, std::string_view v, int64_t evict_us) const override {
    using Action = state::StateStore::KeyAction;
    if (v.empty()) return Action::kKeep;
    size_t pos = 0;
    ARROW_ASSIGN_OR_RAISE(int64_t expires, DecodeInt64(v, &pos));
    return expires <= evict_us ? Action::kRemove : Action::kKeep;
  }

 private:
  int64_t delay_us_;
};

}  // namespace

Result<OperatorPtr> PlanDeduplicateWithinWatermarkExec(const plan::LogicalPlan& node,
                                                       std::vector<OperatorPtr>* children, PlannerContext* ctx) {
  if (!node.within_watermark) return OperatorPtr();
  // The input's watermarked column: its event time starts each key's lifetime.
  const auto marked = node.input->WatermarkedColumns();
  std::string event_column;
  int64_t delay_us = 0;
  if (!marked.empty()) {
    event_column = marked.begin()->first;
    delay_us = marked.begin()->second * 1000;
  }
  return std::make_unique<StreamingDeduplicateWithinWatermarkExec>(node, ctx->next_stateful_id++, std::move(*children),
                                                                   std::move(event_column), delay_us);
}

}  // namespace sluice::exec
