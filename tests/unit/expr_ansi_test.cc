// Spark 4's ANSI evaluation (the default) and the legacy mode of spark.sql.ansi.enabled=false:
// casts, arithmetic overflow, division by zero, timestamps <-> numbers, decimal rounding.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "plan/expr.h"
#include "sluice/column.h"
#include "unit/expr_test_util.h"

namespace sluice {
namespace {

using testing::BatchFromJson;
using testing::ErrorOf;
using testing::ExpectEval;
using testing::Legacy;


std::shared_ptr<arrow::RecordBatch> Values() {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("d", arrow::float64()),
                               arrow::field("big", arrow::int64()), arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))});
  return BatchFromJson(schema, R"([
    {"s": "1.5", "d": 1e20, "big": 3000000000, "ts": "1970-01-01 00:00:01.9"},
    {"s": "abc", "d": -1e20, "big": -1, "ts": "1969-12-31 23:59:59.5"},
    {"s": null, "d": null, "big": null, "ts": null}])");
}

TEST(ExprAnsi, MalformedTextFailsTheCastNamingValueAndType) {
  std::string error = ErrorOf(col("s").cast("bigint"), Values());
  EXPECT_NE(error.find("[CAST_INVALID_INPUT] The value '1.5' of the type \"STRING\" cannot be cast to \"BIGINT\""),
            std::string::npos) << error;
  EXPECT_NE(error.find("spark.sql.ansi.enabled"), std::string::npos) << error;
}

TEST(ExprAnsi, LegacyCastTruncatesFractionsAndNullsMalformedText) {
  ExpectEval(Legacy(col("s").cast("bigint")), Values(), arrow::int64(), "[1, null, null]");
  ExpectEval(Legacy(col("s").cast("double")), Values(), arrow::float64(), "[1.5, null, null]");
}

TEST(ExprAnsi, FractionalOverflowFailsUnderAnsiAndSaturatesOtherwise) {
  std::string error = ErrorOf(col("d").cast("int"), Values());
  EXPECT_NE(error.find("[CAST_OVERFLOW]"), std::string::npos) << error;
  EXPECT_NE(error.find("\"DOUBLE\" cannot be cast to \"INT\""), std::string::npos) << error;
  ExpectEval(Legacy(col("d").cast("int")), Values(), arrow::int32(), "[2147483647, -2147483648, null]");
}

TEST(ExprAnsi, IntegerNarrowingFailsUnderAnsiAndWrapsOtherwise) {
  EXPECT_NE(ErrorOf(col("big").cast("int"), Values()).find("[CAST_OVERFLOW] The value 3000000000L"), std::string::npos);
  ExpectEval(Legacy(col("big").cast("int")), Values(), arrow::int32(), "[-1294967296, -1, null]");
}

TEST(ExprAnsi, IntegerOverflowAndDivisionByZero) {
  auto b = Values();
  EXPECT_NE(ErrorOf(col("big") * lit(int64_t{4000000000000}), b).find("[ARITHMETIC_OVERFLOW] long overflow"),
            std::string::npos);
  ExpectEval(Legacy(col("big") * lit(int64_t{4000000000000})), b, arrow::int64(),
             "[-8830391984918102016, -4000000000000, null]");
  EXPECT_NE(ErrorOf(col("big") / lit(0), b).find("[DIVIDE_BY_ZERO] Division by zero"), std::string::npos);
  EXPECT_NE(ErrorOf(col("big") % lit(0), b).find("[DIVIDE_BY_ZERO]"), std::string::npos);
  EXPECT_NE(ErrorOf(col("d") / lit(0.0), b).find("[DIVIDE_BY_ZERO]"), std::string::npos);
  ExpectEval(Legacy(col("d") / lit(0)), b, arrow::float64(), "[null, null, null]");
}

TEST(ExprAnsi, TimestampsAndNumbersConvertInSeconds) {
  auto b = Values();
  // 1.9 s -> 1; -0.5 s -> -1 (floored, as Spark).
  ExpectEval(col("ts").cast("bigint"), b, arrow::int64(), "[1, -1, null]");
  ExpectEval(col("ts").cast("double"), b, arrow::float64(), "[1.9, -0.5, null]");
  ExpectEval((col("big") - col("big") + lit(86400)).cast("timestamp"), b,
             arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), R"(["1970-01-02 00:00:00", "1970-01-02 00:00:00", null])");
}

// DECIMAL -> DOUBLE gives the double nearest the decimal, as Spark's BigDecimal.doubleValue: the
// literal 0.3 (a DECIMAL(1,1)) is 0.3, not 0.30000000000000004 (what scaling by 0.1 gives).
TEST(ExprAnsi, DecimalToDoubleIsTheNearestDouble) {
  auto b = Values();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"0.3", "decimal(1,1)"},
      {"1.1", "decimal(2,1)"},
      {"-2.675", "decimal(4,3)"},
      {"0.000000000000001", "decimal(15,15)"},
      {"123456789012345678.9", "decimal(19,1)"},
      {"12345678901234567890.123456789", "decimal(29,9)"}};
  for (const auto& [text, type] : cases) {
    auto d = sluice::testing::TryEval(lit(text).cast(type).cast("double"), b);
    ASSERT_OK(d);
    const auto& doubles = static_cast<const arrow::DoubleArray&>(**d);
    EXPECT_EQ(doubles.Value(0), std::strtod(text.c_str(), nullptr)) << text << " as " << type;
    auto f = sluice::testing::TryEval(lit(text).cast(type).cast("float"), b);
    ASSERT_OK(f);
    EXPECT_EQ(static_cast<const arrow::FloatArray&>(**f).Value(0), std::strtof(text.c_str(), nullptr)) << text;
  }
}

TEST(ExprAnsi, DecimalCastsRoundHalfUpAndCheckPrecision) {
  auto b = Values();
  ExpectEval(lit(1.25).cast("decimal(5,1)"), b, arrow::decimal128(5, 1), R"(["1.3", "1.3", "1.3"])");
  ExpectEval(lit(-1.25).cast("decimal(5,1)"), b, arrow::decimal128(5, 1), R"(["-1.3", "-1.3", "-1.3"])");
  EXPECT_NE(ErrorOf(lit(12345.6).cast("decimal(3,1)"), b).find("[NUMERIC_VALUE_OUT_OF_RANGE"), std::string::npos);
  ExpectEval(Legacy(lit(12345.6).cast("decimal(3,1)")), b, arrow::decimal128(3, 1), "[null, null, null]");
}

// Text -> DECIMAL reads every digit of the text (as Java's BigDecimal), then rounds half up:
// no intermediate type limits the text to 20 integer or 18 fractional digits.
TEST(ExprAnsi, TextToDecimalReadsEveryDigitThenRoundsHalfUp) {
  auto b = Values();
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"1.1234567890123456789", "decimal(20,2)", "1.12"},
      {"123456789012345678901234", "decimal(38,0)", "123456789012345678901234"},
      {"0.12345678901234567890123", "decimal(38,30)", "0.123456789012345678901230000000"},
      {"0.123456789012345678901234567890123456789012", "decimal(10,5)", "0.12346"},
      {"1.005", "decimal(5,2)", "1.01"},
      {"-1.005", "decimal(5,2)", "-1.01"},
      {"0.5", "decimal(1,0)", "1"},
      {"-0.5", "decimal(1,0)", "-1"},
      {"0.4999", "decimal(1,0)", "0"},
      {"9.995", "decimal(4,2)", "10.00"},
      {"1e3", "decimal(6,2)", "1000.00"},
      {"1.5E-2", "decimal(5,3)", "0.015"},
      {"0.5e-2", "decimal(3,2)", "0.01"},
      {"1e-1000", "decimal(10,2)", "0.00"},
      {".5", "decimal(2,1)", "0.5"},
      {"+5.", "decimal(2,1)", "5.0"},
      {"007.50", "decimal(3,2)", "7.50"},
      {" 2.5\t", "decimal(2,1)", "2.5"}};
  for (const auto& [text, type, want] : cases) {
    const auto expr = lit(text).cast(type);
    auto d = sluice::testing::TryEval(expr, b);
    ASSERT_OK(d) << text << " as " << type;
    const auto& dec = static_cast<const arrow::Decimal128Array&>(**d);
    EXPECT_EQ(dec.FormatValue(0), want) << text << " as " << type;
  }
  // More digits than the precision allows after rounding: an error under ANSI, NULL otherwise.
  struct TooWide {
    std::string text;
    int precision, scale;
  };
  for (const auto& [text, precision, scale] : std::vector<TooWide>{
           {"9.995", 3, 2}, {"123456789012345678901234567890123456789", 38, 0}, {"1e40", 38, 0}, {"100", 4, 2}}) {
    const std::string type = "decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    const std::string error = ErrorOf(lit(text).cast(type), b);
    EXPECT_NE(error.find("[NUMERIC_VALUE_OUT_OF_RANGE"), std::string::npos) << text << ": " << error;
    ExpectEval(Legacy(lit(text).cast(type)), b, arrow::decimal128(precision, scale), "[null, null, null]");
  }
  // Not a number in Java's BigDecimal syntax.
  for (const std::string text : {"abc", "", "1e", "1.2.3", "+-1", "NaN", "1e+", "--1", "1 2", "0x10", "e5", "."}) {
    const std::string error = ErrorOf(lit(text).cast("decimal(10,2)"), b);
    EXPECT_NE(error.find("[CAST_INVALID_INPUT]"), std::string::npos) << "'" << text << "': " << error;
  }
}

TEST(ExprAnsi, TimestampTextKeepsMicrosecondsOfLongerFractions) {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8())});
  auto b = BatchFromJson(schema, R"([{"s": "1970-01-01 00:00:01.123456789"}])");
  ExpectEval(col("s").cast("timestamp"), b, arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), R"(["1970-01-01 00:00:01.123456"])");
}

TEST(ExprAnsi, DoublesAndTimestampsCastToSparkText) {
  auto schema = arrow::schema({arrow::field("d", arrow::float64()),
                               arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))});
  auto b = BatchFromJson(schema, R"([{"d": 0.0, "ts": "2024-05-01 10:00:00"}, {"d": 1e20, "ts": "1969-12-31 23:59:59.5"},
                                     {"d": -2.25, "ts": "2024-05-01 10:00:00.000120"}, {"d": 0.0001, "ts": null}])");
  ExpectEval(col("d").cast("string"), b, arrow::utf8(), R"(["0.0", "1.0E20", "-2.25", "1.0E-4"])");
  ExpectEval(col("ts").cast("string"), b, arrow::utf8(),
             R"(["2024-05-01 10:00:00", "1969-12-31 23:59:59.5", "2024-05-01 10:00:00.00012", null])");
}

TEST(ExprAnsi, WithEvalModeChangesOnlyCastsAndCalls) {
  Column c = (col("big") + lit(1)).cast("int").alias("x");
  auto legacy = plan::WithEvalMode(api::ExprOf(c), plan::EvalMode::kLegacy);
  EXPECT_EQ(legacy->ToString(), api::ExprOf(c)->ToString());  // the mode is not part of the plan text
  EXPECT_EQ(legacy->args[0]->mode, plan::EvalMode::kLegacy);
  EXPECT_EQ(legacy->args[0]->args[0]->mode, plan::EvalMode::kLegacy);
  EXPECT_EQ(api::ExprOf(c)->args[0]->mode, plan::EvalMode::kAnsi);  // the original is untouched
  EXPECT_EQ(plan::WithEvalMode(legacy, plan::EvalMode::kLegacy), legacy);
}

}  // namespace
}  // namespace sluice
