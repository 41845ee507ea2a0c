#include "exec/watermark_exec.h"

#include <arrow/api.h>

#include <algorithm>

#include "exec/physical_planner.h"

namespace sluice::exec {

EventTimeWatermarkExec::EventTimeWatermarkExec(std::string event_time_column, int64_t delay_ms, std::string delay_text,
                                               int watermark_index, std::string watermark_id,
                                               std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children)
    : PhysicalOperator(std::move(schema), std::move(children)),
      event_time_column_(std::move(event_time_column)),
      delay_ms_(delay_ms),
      delay_text_(std::move(delay_text)),
      watermark_index_(watermark_index),
      watermark_id_(std::move(watermark_id)) {}

std::string EventTimeWatermarkExec::Describe() const {
  return "EventTimeWatermarkExec " + event_time_column_ + ", delay " + delay_text_ +
         " (records max event time; the watermark applies from the next batch)";
}

namespace {

// Floor division, so that event times before 1970 round down like later ones.
template <int64_t kDivisor>
int64_t FloorDivBy(int64_t v) {
  return v >= 0 ? v / kDivisor : -((-v + kDivisor - 1) / kDivisor);
}

}  // namespace

Status EventTimeWatermarkExec::Push(ExecContext* ctx, OperatorState*, int,
                                    const std::shared_ptr<arrow::RecordBatch>& batch, const BatchConsumer& out) const {
  auto column = batch->GetColumnByName(event_time_column_);
  if (!column) return Status::Invalid("withWatermark: column '", event_time_column_, "' is missing");
  const auto slot = static_cast<size_t>(watermark_index_);
  if (ctx->event_time.size() <= slot) ctx->event_time.resize(slot + 1);
  EventTimeStats& stats = ctx->event_time[slot];
  const auto& a = static_cast<const arrow::TimestampArray&>(*column);
  const bool nulls = a.null_count() > 0;
  // Per unit, a loop whose conversion to milliseconds divides by a constant (a division by a
  // run-time divisor per row was most of this loop).
  auto fold = [&](auto to_ms) {
    for (int64_t i = 0; i < a.length(); ++i) {
      if (nulls && a.IsNull(i)) continue;
      const int64_t ms = to_ms(a.Value(i));
      stats.max_ms = std::max(stats.max_ms, ms);
      stats.min_ms = std::min(stats.min_ms, ms);
      stats.sum_ms += static_cast<double>(ms);
      ++stats.count;
    }
  };
  switch (static_cast<const arrow::TimestampType&>(*column->type()).unit()) {
    case arrow::TimeUnit::SECOND: fold([](int64_t v) { return v * 1000; }); break;
    case arrow::TimeUnit::MILLI: fold([](int64_t v) { return v; }); break;
    case arrow::TimeUnit::MICRO: fold([](int64_t v) { return FloorDivBy<1000>(v); }); break;
    case arrow::TimeUnit::NANO: fold([](int64_t v) { return FloorDivBy<1000000>(v); }); break;
  }
  return out(batch);
}

Result<OperatorPtr> PlanEventTimeWatermarkExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children,
                                               PlannerContext* ctx) {
  return std::make_unique<EventTimeWatermarkExec>(node.event_time_column, node.delay_ms, node.delay_text,
                                                  ctx->next_watermark_index++, node.watermark_id, node.schema,
                                                  std::move(*children));
}

}  // namespace sluice::exec
