// The date and time functions of the function table: calendar arithmetic, Spark's pattern
// letters, epoch conversions and zone shifts.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "sluice/column.h"
#include "support/status.h"
#include "unit/expr_test_util.h"
#include "util/calendar.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;
using testing::BatchFromJson;
using testing::ErrorOf;
using testing::ExpectEval;
using testing::Fn;
using testing::Legacy;

const auto kTs = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");

std::shared_ptr<arrow::RecordBatch> Days() {
  auto schema = arrow::schema({arrow::field("d", arrow::date32()), arrow::field("ts", kTs),
                               arrow::field("s", arrow::utf8())});
  return BatchFromJson(schema, R"([
    {"d": "2024-01-31", "ts": "2024-03-05 07:08:09.123456", "s": "2024-02-29"},
    {"d": "1969-12-31", "ts": "1969-12-31 23:59:59.5", "s": "05/06/2023 10:11"},
    {"d": null, "ts": null, "s": null}])");
}

TEST(ExprFnDateTime, DateArithmetic) {
  auto b = Days();
  ExpectEval(Fn("date_add", {col("d"), lit(30)}), b, arrow::date32(), R"(["2024-03-01", "1970-01-30", null])");
  ExpectEval(Fn("date_sub", {col("d"), lit(1)}), b, arrow::date32(), R"(["2024-01-30", "1969-12-30", null])");
  // add_months keeps the day, or takes the shorter month's last day.
  ExpectEval(Fn("add_months", {col("d"), lit(1)}), b, arrow::date32(), R"(["2024-02-29", "1970-01-31", null])");
  ExpectEval(Fn("add_months", {col("d"), lit(-13)}), b, arrow::date32(), R"(["2022-12-31", "1968-11-30", null])");
  ExpectEval(Fn("last_day", {col("d")}), b, arrow::date32(), R"(["2024-01-31", "1969-12-31", null])");
  ExpectEval(Fn("datediff", {col("ts"), col("d")}), b, arrow::int32(), "[34, 0, null]");
  ExpectEval(Fn("to_date", {col("ts")}), b, arrow::date32(), R"(["2024-03-05", "1969-12-31", null])");
  ExpectEval(Legacy(Fn("to_date", {col("s"), lit("dd/MM/yyyy HH:mm")})), b, arrow::date32(), R"([null, "2023-06-05", null])");
}

TEST(ExprFnDateTime, DateFormatUsesSparkLetters) {
  auto b = Days();
  ExpectEval(Fn("date_format", {col("ts"), lit("yyyy-MM-dd HH:mm:ss.SSS")}), b, arrow::utf8(),
             R"(["2024-03-05 07:08:09.123", "1969-12-31 23:59:59.500", null])");
  ExpectEval(Fn("date_format", {col("ts"), lit("d/M/yy h a, EEE MMM EEEE MMMM D")}), b, arrow::utf8(),
             R"(["5/3/24 7 AM, Tue Mar Tuesday March 65", "31/12/69 11 PM, Wed Dec Wednesday December 365", null])");
  ExpectEval(Fn("date_format", {col("d"), lit("'day' dd")}), b, arrow::utf8(), R"(["day 31", "day 31", null])");
  EXPECT_THAT(ErrorOf(Fn("date_format", {col("ts"), lit("yyyy QQ")}), b), HasSubstr("Unsupported letter 'QQ'"));
}

TEST(ExprFnDateTime, EpochConversions) {
  auto b = Days();
  ExpectEval(Fn("unix_timestamp", {col("ts")}), b, arrow::int64(), "[1709622489, 0, null]");
  ExpectEval(Legacy(Fn("unix_timestamp", {col("s"), lit("dd/MM/yyyy HH:mm")})), b, arrow::int64(), "[null, 1685959860, null]");
  ExpectEval(Fn("from_unixtime", {lit(int64_t{1685959860})}), b, arrow::utf8(),
             R"(["2023-06-05 10:11:00", "2023-06-05 10:11:00", "2023-06-05 10:11:00"])");
  ExpectEval(Fn("timestamp_seconds", {lit(1.5)}), b->Slice(0, 1), kTs, R"(["1970-01-01 00:00:01.5"])");
  ExpectEval(Fn("timestamp_seconds", {lit(-86400)}), b->Slice(0, 1), kTs, R"(["1969-12-31 00:00:00"])");
  ExpectEval(Fn("timestamp_millis", {lit(int64_t{1500})}), b->Slice(0, 1), kTs, R"(["1970-01-01 00:00:01.5"])");
}

TEST(ExprFnDateTime, MakeTimestampValidatesFields) {
  auto b = Days()->Slice(0, 1);
  ExpectEval(Fn("make_timestamp", {lit(2024), lit(2), lit(29), lit(23), lit(59), lit(59.25)}), b, kTs,
             R"(["2024-02-29 23:59:59.25"])");
  ExpectEval(Fn("make_timestamp", {lit(2024), lit(2), lit(29), lit(23), lit(59), lit(60)}), b, kTs,
             R"(["2024-03-01 00:00:00"])");
  EXPECT_THAT(ErrorOf(Fn("make_timestamp", {lit(2023), lit(2), lit(29), lit(0), lit(0), lit(0)}), b),
              HasSubstr("[DATETIME_FIELD_OUT_OF_BOUNDS]"));
  ExpectEval(Legacy(Fn("make_timestamp", {lit(2023), lit(2), lit(29), lit(0), lit(0), lit(0)})), b, kTs, "[null]");
}

TEST(ExprFnDateTime, MakeDateValidatesFields) {
  auto b = Days()->Slice(0, 1);
  ExpectEval(Fn("make_date", {lit(2024), lit(2), lit(29)}), b, arrow::date32(), R"(["2024-02-29"])");
  ExpectEval(Fn("make_date", {lit(1969), lit(12), lit(31)}), b, arrow::date32(), R"(["1969-12-31"])");
  EXPECT_THAT(ErrorOf(Fn("make_date", {lit(2023), lit(2), lit(29)}), b),
              HasSubstr("[DATETIME_FIELD_OUT_OF_BOUNDS] Invalid value for DayOfMonth in make_date(2023, 2, 29)"));
  EXPECT_THAT(ErrorOf(Fn("make_date", {lit(2023), lit(13), lit(1)}), b), HasSubstr("MonthOfYear"));
  ExpectEval(Legacy(Fn("make_date", {lit(2023), lit(2), lit(29)})), b, arrow::date32(), "[null]");
}

TEST(ExprFnDateTime, ZoneShifts) {
  auto b = Days();
  ExpectEval(Fn("from_utc_timestamp", {col("ts"), lit("Europe/Paris")}), b, kTs,
             R"(["2024-03-05 08:08:09.123456", "1970-01-01 00:59:59.5", null])");
  ExpectEval(Fn("to_utc_timestamp", {col("ts"), lit("America/New_York")}), b, kTs,
             R"(["2024-03-05 12:08:09.123456", "1970-01-01 04:59:59.5", null])");
}

Column Interval(const Column& t, int64_t months, int64_t days, int64_t micros) {
  return Fn("add_interval", {t, lit(months), lit(days), lit(micros)});
}

// Months first (clamped to the month's end), then days, then the time part; a date plus whole
// months and days stays a date.
TEST(ExprFnDateTime, AddIntervalOrdersMonthsDaysMicros) {
  auto b = Days();
  ExpectEval(Interval(col("d"), 1, 1, 0), b, arrow::date32(), R"(["2024-03-01", "1970-02-01", null])");
  ExpectEval(Interval(col("d"), 0, 0, 3600000000), b, kTs,
             R"(["2024-01-31 01:00:00", "1969-12-31 01:00:00", null])");
  ExpectEval(Interval(col("ts"), -1, 0, -500000), b, kTs,
             R"(["2024-02-05 07:08:08.623456", "1969-11-30 23:59:59", null])");
}

TEST(Calendar, CivilDaysRoundTrip) {
  for (int64_t days : {-719468LL, -1LL, 0LL, 59LL, 19782LL, 2932896LL}) {
    auto c = util::CivilFromDays(days);
    EXPECT_EQ(util::DaysFromCivil(c.year, c.month, c.day), days);
  }
  EXPECT_EQ(util::DaysInMonth(1900, 2), 28);
  EXPECT_EQ(util::DaysInMonth(2000, 2), 29);
}

}  // namespace
}  // namespace sluice
