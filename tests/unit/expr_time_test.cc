// Time functions: to_timestamp, date_trunc, field extraction, timestamp comparison.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "sluice/column.h"
#include "support/status.h"
#include "unit/expr_test_util.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

using testing::BatchFromJson;
using testing::ErrorOf;
using testing::ExpectEval;
using testing::Legacy;

const auto kTs = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");

std::shared_ptr<arrow::RecordBatch> Events() {
  auto schema = arrow::schema({arrow::field("ts", kTs), arrow::field("d", arrow::date32()),
                               arrow::field("s", arrow::utf8())});
  // 2024-03-15 is a Friday, 2023-12-31 a Sunday.
  return BatchFromJson(schema, R"([
    {"ts": "2024-03-15 13:45:30.123456", "d": "2024-03-15", "s": "2024-01-02 03:04:05"},
    {"ts": "2023-12-31 23:59:59", "d": "2023-12-31", "s": "2024-01-02T03:04:05.123456Z"},
    {"ts": null, "d": null, "s": "not a time"},
    {"ts": "2024-01-01 00:00:00", "d": "2024-01-01", "s": null}])");
}

// Unparsable text fails the query under ANSI (Spark 4's default) and is NULL without it.
TEST(ExprTime, ToTimestampParsesIsoTextAndUnparsableIsNullWithoutAnsi) {
  EXPECT_NE(ErrorOf(to_timestamp(col("s")), Events()).find("[CAST_INVALID_INPUT]"), std::string::npos);
  ExpectEval(Legacy(to_timestamp(col("s"))), Events(), kTs,
             R"(["2024-01-02 03:04:05", "2024-01-02 03:04:05.123456", null, null])");
  auto schema = arrow::schema({arrow::field("s", arrow::utf8())});
  auto b = BatchFromJson(schema, R"([{"s": "2024-05-06 07:08:09.5"}, {"s": "2024-05-06T07:08:09+02:00"}, {"s": "2024-05-06"}])");
  ExpectEval(to_timestamp(col("s")), b, kTs, R"(["2024-05-06 07:08:09.5", "2024-05-06 05:08:09", "2024-05-06 00:00:00"])");
}

TEST(ExprTime, ToTimestampWithSparkPattern) {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8())});
  auto b = BatchFromJson(schema, R"([{"s": "15/03/2024 13:45"}, {"s": "garbage"}, {"s": null}])");
  ExpectEval(Legacy(to_timestamp(col("s"), "dd/MM/yyyy HH:mm")), b, kTs, R"(["2024-03-15 13:45:00", null, null])");
  EXPECT_NE(ErrorOf(to_timestamp(col("s"), "dd/MM/yyyy HH:mm"), b).find("[CANNOT_PARSE_TIMESTAMP] Text 'garbage'"),
            std::string::npos);
  auto d = BatchFromJson(schema, R"([{"s": "2024-03-15 'x' 10:11:12"}])");
  ExpectEval(to_timestamp(col("s"), "yyyy-MM-dd '''x''' HH:mm:ss"), d, kTs, R"(["2024-03-15 10:11:12"])");
  std::string error = ErrorOf(to_timestamp(col("s"), "yyyy-MM-dd HH:mm:ss.SSS"), b);
  EXPECT_THAT(error, HasSubstr("Unsupported letter 'SSS'"));
}

TEST(ExprTime, ToTimestampOfDateAndCastOfText) {
  ExpectEval(to_timestamp(col("d")), Events(), kTs,
             R"(["2024-03-15 00:00:00", "2023-12-31 00:00:00", null, "2024-01-01 00:00:00"])");
  ExpectEval(Legacy(col("s").cast("timestamp")), Events(), kTs,
             R"(["2024-01-02 03:04:05", "2024-01-02 03:04:05.123456", null, null])");
  ExpectEval(col("ts").cast("date"), Events(), arrow::date32(), R"(["2024-03-15", "2023-12-31", null, "2024-01-01"])");
}

TEST(ExprTime, DateTruncFloorsToEachUnit) {
  auto b = Events();
  ExpectEval(date_trunc("year", col("ts")), b, kTs, R"(["2024-01-01 00:00:00", "2023-01-01 00:00:00", null, "2024-01-01 00:00:00"])");
  ExpectEval(date_trunc("quarter", col("ts")), b, kTs, R"(["2024-01-01 00:00:00", "2023-10-01 00:00:00", null, "2024-01-01 00:00:00"])");
  ExpectEval(date_trunc("month", col("ts")), b, kTs, R"(["2024-03-01 00:00:00", "2023-12-01 00:00:00", null, "2024-01-01 00:00:00"])");
  ExpectEval(date_trunc("week", col("ts")), b, kTs, R"(["2024-03-11 00:00:00", "2023-12-25 00:00:00", null, "2024-01-01 00:00:00"])");
  ExpectEval(date_trunc("day", col("ts")), b, kTs, R"(["2024-03-15 00:00:00", "2023-12-31 00:00:00", null, "2024-01-01 00:00:00"])");
  ExpectEval(date_trunc("HOUR", col("ts")), b, kTs, R"(["2024-03-15 13:00:00", "2023-12-31 23:00:00", null, "2024-01-01 00:00:00"])");
  ExpectEval(date_trunc("minute", col("ts")), b, kTs, R"(["2024-03-15 13:45:00", "2023-12-31 23:59:00", null, "2024-01-01 00:00:00"])");
  ExpectEval(date_trunc("second", col("ts")), b, kTs, R"(["2024-03-15 13:45:30", "2023-12-31 23:59:59", null, "2024-01-01 00:00:00"])");
  ExpectEval(date_trunc("month", col("d")), b, kTs, R"(["2024-03-01 00:00:00", "2023-12-01 00:00:00", null, "2024-01-01 00:00:00"])");
  std::string error = ErrorOf(date_trunc("fortnight", col("ts")), b);
  EXPECT_THAT(error, HasSubstr("Unknown date_trunc unit 'fortnight'"));
}

TEST(ExprTime, FieldExtractionReturnsInt) {
  auto b = Events();
  ExpectEval(year(col("ts")), b, arrow::int32(), "[2024, 2023, null, 2024]");
  ExpectEval(month(col("ts")), b, arrow::int32(), "[3, 12, null, 1]");
  ExpectEval(dayofmonth(col("ts")), b, arrow::int32(), "[15, 31, null, 1]");
  ExpectEval(hour(col("ts")), b, arrow::int32(), "[13, 23, null, 0]");
  ExpectEval(minute(col("ts")), b, arrow::int32(), "[45, 59, null, 0]");
  ExpectEval(second(col("ts")), b, arrow::int32(), "[30, 59, null, 0]");
  ExpectEval(year(col("d")), b, arrow::int32(), "[2024, 2023, null, 2024]");
  ExpectEval(Legacy(month(col("s"))), b, arrow::int32(), "[1, 1, null, null]");
}

TEST(ExprTime, DayOfWeekCountsFromSunday) {
  // Friday = 6, Sunday = 1, Monday = 2 (Spark).
  ExpectEval(dayofweek(col("ts")), Events(), arrow::int32(), "[6, 1, null, 2]");
  ExpectEval(dayofweek(col("d")), Events(), arrow::int32(), "[6, 1, null, 2]");
}

TEST(ExprTime, TimestampsCompareWithTimestampsDatesAndText) {
  auto b = Events();
  ExpectEval(col("ts") > lit("2024-01-01 00:00:00"), b, arrow::boolean(), "[true, false, null, false]");
  ExpectEval(col("ts") >= col("d"), b, arrow::boolean(), "[true, true, null, true]");
  ExpectEval(col("d") == lit("2023-12-31"), b, arrow::boolean(), "[false, true, null, false]");
  EXPECT_THAT(ErrorOf(year(col("ts") > col("d")), b), HasSubstr("year"));
}

}  // namespace
}  // namespace sluice
