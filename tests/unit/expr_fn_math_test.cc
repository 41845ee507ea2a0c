// The math and conditional functions of the function table: Spark's result types, rounding and
// NULL behaviour.
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
using testing::Fn;
using testing::Legacy;

std::shared_ptr<arrow::RecordBatch> MathNumbers() {
  auto schema = arrow::schema({arrow::field("i", arrow::int32()), arrow::field("l", arrow::int64()),
                               arrow::field("d", arrow::float64()), arrow::field("m", arrow::decimal128(5, 2))});
  return BatchFromJson(schema, R"([
    {"i": -7, "l": 25, "d": 2.5, "m": "1.55"},
    {"i": 7, "l": -25, "d": -2.5, "m": "-1.55"},
    {"i": null, "l": null, "d": 1.005, "m": null},
    {"i": -2147483648, "l": 0, "d": 0.0, "m": "0.00"}])");
}

TEST(ExprFnMath, AbsKeepsTheTypeAndOverflowFollowsAnsi) {
  auto b = MathNumbers()->Slice(0, 3);
  ExpectEval(Fn("abs", {col("i")}), b, arrow::int32(), "[7, 7, null]");
  ExpectEval(Fn("abs", {col("d")}), b, arrow::float64(), "[2.5, 2.5, 1.005]");
  EXPECT_THAT(ErrorOf(Fn("abs", {col("i")}), MathNumbers()), HasSubstr("[ARITHMETIC_OVERFLOW]"));
  ExpectEval(Legacy(Fn("abs", {col("i")})), MathNumbers(), arrow::int32(), "[7, 7, null, -2147483648]");
}

// Spark rounds a double through its decimal text: round(1.005, 2) is 1.01, not 1.0.
TEST(ExprFnMath, RoundIsHalfUpOnTheDecimalTextAndBroundIsHalfEven) {
  auto b = MathNumbers();
  ExpectEval(Fn("round", {col("d")}), b, arrow::float64(), "[3.0, -3.0, 1.0, 0.0]");
  ExpectEval(Fn("round", {col("d"), lit(2)}), b, arrow::float64(), "[2.5, -2.5, 1.01, 0.0]");
  ExpectEval(Fn("bround", {col("d")}), b, arrow::float64(), "[2.0, -2.0, 1.0, 0.0]");
  ExpectEval(Fn("round", {col("l"), lit(-1)}), b, arrow::int64(), "[30, -30, null, 0]");
  ExpectEval(Fn("bround", {col("l"), lit(-1)}), b, arrow::int64(), "[20, -20, null, 0]");
  // DECIMAL(5,2) rounded to one digit is DECIMAL(5,1): p - s + 1 integral digits.
  ExpectEval(Fn("round", {col("m"), lit(1)}), b, arrow::decimal128(5, 1), R"(["1.6", "-1.6", null, "0.0"])");
  EXPECT_THAT(ErrorOf(Fn("round", {col("d"), col("i")}), b), HasSubstr("must be a non-null integer literal"));
}

TEST(ExprFnMath, FloorAndCeilGiveBigintOrAWholeDecimal) {
  auto b = MathNumbers();
  ExpectEval(Fn("floor", {col("d")}), b, arrow::int64(), "[2, -3, 1, 0]");
  ExpectEval(Fn("ceil", {col("d")}), b, arrow::int64(), "[3, -2, 2, 0]");
  ExpectEval(Fn("ceil", {col("i")}), b, arrow::int64(), "[-7, 7, null, -2147483648]");
  ExpectEval(Fn("floor", {col("m")}), b, arrow::decimal128(4, 0), R"(["1", "-2", null, "0"])");
}

TEST(ExprFnMath, LogarithmsAreNullForNonPositiveArguments) {
  auto b = MathNumbers();
  ExpectEval(Fn("ln", {col("l")}), b->Slice(1, 3), arrow::float64(), "[null, null, null]");
  ExpectEval(Fn("log10", {lit(1000)}), b->Slice(0, 1), arrow::float64(), "[3.0]");
  ExpectEval(Fn("log", {lit(2), lit(8)}), b->Slice(0, 1), arrow::float64(), "[3.0]");
  ExpectEval(Fn("log", {lit(2), col("l")}), b->Slice(1, 3), arrow::float64(), "[null, null, null]");
  ExpectEval(Fn("log", {lit(-2), lit(8)}), b->Slice(0, 1), arrow::float64(), "[null]");
  ExpectEval(Fn("sqrt", {col("l")}), b->Slice(0, 1), arrow::float64(), "[5.0]");
  ExpectEval(Fn("pow", {col("l"), lit(2)}), b, arrow::float64(), "[625.0, 625.0, null, 0.0]");
  ExpectEval(Fn("sign", {col("i")}), b, arrow::float64(), "[-1.0, 1.0, null, -1.0]");
  ExpectEval(Fn("exp", {lit(0)}), b->Slice(0, 1), arrow::float64(), "[1.0]");
}

TEST(ExprFnMath, PmodIsNonNegativeForAPositiveDivisor) {
  auto b = MathNumbers();
  ExpectEval(Fn("pmod", {col("i"), lit(3)}), b->Slice(0, 3), arrow::int32(), "[2, 1, null]");
  ExpectEval(col("i") % lit(3), b->Slice(0, 3), arrow::int32(), "[-1, 1, null]");
  EXPECT_THAT(ErrorOf(Fn("pmod", {col("i"), lit(0)}), b), HasSubstr("[DIVIDE_BY_ZERO]"));
  ExpectEval(Legacy(Fn("pmod", {col("i"), lit(0)})), b->Slice(0, 1), arrow::int32(), "[null]");
}

TEST(ExprFnMath, GreatestAndLeastSkipNullsAndWiden) {
  auto b = MathNumbers();
  ExpectEval(Fn("greatest", {col("i"), col("l")}), b, arrow::int64(), "[25, 7, null, 0]");
  ExpectEval(Fn("least", {col("i"), col("d"), lit(1)}), b, arrow::float64(), "[-7.0, -2.5, 1.0, -2147483648.0]");
  EXPECT_THAT(ErrorOf(Fn("greatest", {col("i"), lit("x")}), b), HasSubstr("cannot apply 'greatest'"));
}

TEST(ExprFnConditional, IfNullifNvl2) {
  auto b = MathNumbers();
  // if(): a NULL condition takes the else branch.
  ExpectEval(Fn("if", {col("i") > lit(0), lit("pos"), lit("neg")}), b, arrow::utf8(), R"(["neg", "pos", "neg", "neg"])");
  ExpectEval(Fn("if", {col("i") > lit(0), col("i"), col("d")}), b, arrow::float64(), "[2.5, 7.0, 1.005, 0.0]");
  ExpectEval(Fn("nullif", {col("l"), lit(0)}), b, arrow::int64(), "[25, -25, null, null]");
  ExpectEval(Fn("nvl2", {col("i"), lit(1), lit(2)}), b, arrow::int32(), "[1, 1, 2, 1]");
  EXPECT_THAT(ErrorOf(Fn("if", {col("i"), lit(1), lit(2)}), b), HasSubstr("must be boolean"));
}

}  // namespace
}  // namespace sluice
