// EventTimeWatermarkExec's record of the event times a batch holds (exec/watermark_exec.h): in
// milliseconds, floored (an event time before 1970 rounds down like a later one), for each
// timestamp unit, nulls skipped, across several input batches.
#include "exec/watermark_exec.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <vector>

#include "exec/stateful.h"
#include "support/status.h"

namespace sluice::exec {
namespace {

struct Expected {
  int64_t min_ms, max_ms;
  double sum_ms;
  int64_t count;
};

// The stats after pushing `values` (nullopt: null) of `unit` as two batches.
EventTimeStats Record(arrow::TimeUnit::type unit, const std::vector<std::optional<int64_t>>& values) {
  auto type = arrow::timestamp(unit);
  auto schema = arrow::schema({arrow::field("ts", type)});
  EventTimeWatermarkExec exec("ts", 0, "0 seconds", 0, "w", schema, {});
  ExecContext ctx;
  int64_t passed = 0;
  const size_t half = values.size() / 2;
  for (auto [begin, end] : {std::pair<size_t, size_t>{0, half}, {half, values.size()}}) {
    arrow::TimestampBuilder b(type, arrow::default_memory_pool());
    for (size_t i = begin; i < end; ++i) EXPECT_OK(values[i] ? b.Append(*values[i]) : b.AppendNull());
    auto array = b.Finish().ValueOrDie();
    auto batch = arrow::RecordBatch::Make(schema, array->length(), {array});
    EXPECT_OK(exec.Push(&ctx, nullptr, 0, batch, [&](std::shared_ptr<arrow::RecordBatch> out) {
      passed += out->num_rows();
      return Status::OK();
    }));
  }
  EXPECT_EQ(passed, static_cast<int64_t>(values.size()));  // rows pass unchanged
  EXPECT_EQ(ctx.event_time.size(), 1u);
  return ctx.event_time.empty() ? EventTimeStats{} : ctx.event_time[0];
}

void ExpectStats(const EventTimeStats& got, const Expected& want) {
  EXPECT_EQ(got.min_ms, want.min_ms);
  EXPECT_EQ(got.max_ms, want.max_ms);
  EXPECT_DOUBLE_EQ(got.sum_ms, want.sum_ms);
  EXPECT_EQ(got.count, want.count);
}

TEST(EventTimeWatermarkExec, RecordsEventTimesInMillisecondsFlooredForEveryUnit) {
  // Microseconds: -1 us is in the millisecond before 1970 (-1), -1000 us is -1 ms exactly,
  // -1001 us rounds down to -2; positive values truncate.
  ExpectStats(Record(arrow::TimeUnit::MICRO, {-1001, std::nullopt, -1000, -1, 0, 999, 1000, 1767225600123456}),
              {-2, 1767225600123, -2.0 - 1 - 1 + 0 + 0 + 1 + 1767225600123.0, 7});
  ExpectStats(Record(arrow::TimeUnit::NANO, {-1000001, -1, 1999999, std::nullopt, 2000000}),
              {-2, 2, -2.0 - 1 + 1 + 2, 4});
  ExpectStats(Record(arrow::TimeUnit::MILLI, {-5, 7, std::nullopt}), {-5, 7, 2.0, 2});
  ExpectStats(Record(arrow::TimeUnit::SECOND, {-2, 3}), {-2000, 3000, 1000.0, 2});
}

TEST(EventTimeWatermarkExec, ABatchOfNullsRecordsNothing) {
  const EventTimeStats s = Record(arrow::TimeUnit::MICRO, {std::nullopt, std::nullopt});
  EXPECT_EQ(s.count, 0);
  EXPECT_EQ(s.max_ms, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(s.min_ms, std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace sluice::exec
