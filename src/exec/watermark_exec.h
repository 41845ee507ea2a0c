// EventTimeWatermarkExec (withWatermark): rows pass unchanged; the operator records the event
// times it saw, from which the runtime moves the watermark after the batch (max event time -
// delay; it applies from the next batch).
#pragma once

#include <cstdint>
#include <string>

#include "exec/physical_operator.h"

namespace sluice::exec {

class EventTimeWatermarkExec : public PhysicalOperator {
 public:
  EventTimeWatermarkExec(std::string event_time_column, int64_t delay_ms, std::string delay_text, int watermark_index,
                         std::string watermark_id, std::shared_ptr<arrow::Schema> schema,
                         std::vector<OperatorPtr> children);

  /// Position among the plan's watermark operators, bottom-up: its statistics are
  /// ExecContext::event_time[watermark_index()].
  int watermark_index() const { return watermark_index_; }
  int64_t delay_ms() const { return delay_ms_; }
  /// The declaration it comes from (LogicalPlan::watermark_id): operators with the same id are
  /// one watermark for the runtime.
  const std::string& watermark_id() const { return watermark_id_; }

  std::string Describe() const override;
  Status Push(ExecContext* ctx, OperatorState* state, int child_index, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override;

 private:
  std::string event_time_column_;
  int64_t delay_ms_;
  std::string delay_text_;
  int watermark_index_;
  std::string watermark_id_;
};

}  // namespace sluice::exec
