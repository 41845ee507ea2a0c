// Partial aggregates: ANSI overflow of BIGINT sums, exact decimal averages with Spark's result
// type and rounding, decimal sums that do not fit, and the state encoding of both.
#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "exec/accumulators.h"
#include "unit/accumulators_test_util.h"
#include "support/status.h"

namespace sluice::exec {
namespace {

using ::testing::HasSubstr;

using test::Call;
using test::Int64s;

// Decimals given as their unscaled values.
std::shared_ptr<arrow::Array> Decimals(const std::shared_ptr<arrow::DataType>& type, const std::vector<int64_t>& unscaled) {
  arrow::Decimal128Builder b(type);
  for (int64_t v : unscaled) EXPECT_OK(b.Append(arrow::Decimal128(v)));
  return b.Finish().ValueOrDie();
}

// Folds every row of `values` into one group and returns the aggregate's final value as text.
Result<std::string> Aggregate(const std::vector<plan::AggCall>& calls, const std::shared_ptr<arrow::Array>& values) {
  AccumulatorSet set(calls);
  std::vector<Acc> accs(set.size());
  for (int64_t row = 0; row < values->length(); ++row) ARROW_RETURN_NOT_OK(set.Update(&accs, {values}, row));
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders(1);
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), calls[0].out_type, &builders[0]));
  ARROW_RETURN_NOT_OK(set.Finish(accs, builders, 0));
  ARROW_ASSIGN_OR_RAISE(auto out, builders[0]->Finish());
  ARROW_ASSIGN_OR_RAISE(auto scalar, out->GetScalar(0));
  return scalar->ToString();
}

// A call whose name has no accumulator is refused by name, not folded as `last`.
TEST(Accumulators, UnknownFunctionIsRefusedByName) {
  plan::AggCall call;
  call.fn = "lastt";
  call.arg = plan::Expr::Column("x");
  call.arg_type = arrow::int64();
  call.out_type = arrow::int64();
  std::vector<plan::AggCall> calls{call};
  AccumulatorSet set(calls);
  EXPECT_THAT(set.status().ToString(), ::testing::HasSubstr("no such aggregate function"));
  EXPECT_THAT(set.status().ToString(), ::testing::HasSubstr("lastt"));
  calls[0].fn = "last";
  EXPECT_OK(AccumulatorSet(calls).status());
}

TEST(Accumulators, BigintSumOverflowFailsUnderAnsiNamingTheCall) {
  std::vector<plan::AggCall> calls = {Call("sum", arrow::int64(), arrow::int64())};
  auto r = Aggregate(calls, Int64s({std::numeric_limits<int64_t>::max(), 1}));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("[ARITHMETIC_OVERFLOW] long overflow in sum(v) AS r"));
  EXPECT_THAT(r.status().message(), HasSubstr("spark.sql.ansi.enabled"));
}

TEST(Accumulators, BigintSumWrapsWithAnsiOff) {
  std::vector<plan::AggCall> calls = {Call("sum", arrow::int64(), arrow::int64(), plan::EvalMode::kLegacy)};
  ASSERT_OK_AND_ASSIGN(auto r, Aggregate(calls, Int64s({std::numeric_limits<int64_t>::max(), 1})));
  EXPECT_EQ(r, std::to_string(std::numeric_limits<int64_t>::min()));
}

TEST(Accumulators, BigintSumBackWithinRangeIsNoOverflow) {
  std::vector<plan::AggCall> calls = {Call("sum", arrow::int64(), arrow::int64())};
  ASSERT_OK_AND_ASSIGN(auto r, Aggregate(calls, Int64s({std::numeric_limits<int64_t>::max(), -5, 3})));
  EXPECT_EQ(r, std::to_string(std::numeric_limits<int64_t>::max() - 2));
}

TEST(Accumulators, MergingPartialsChecksOverflowToo) {
  std::vector<plan::AggCall> calls = {Call("sum", arrow::int64(), arrow::int64())};
  AccumulatorSet set(calls);
  auto values = Int64s({std::numeric_limits<int64_t>::max(), 7});
  std::vector<Acc> earlier(1), later(1);
  ASSERT_OK(set.Update(&earlier, {values}, 0));
  ASSERT_OK(set.Update(&later, {values}, 1));
  EXPECT_THAT(set.Merge(&earlier, later).message(), HasSubstr("ARITHMETIC_OVERFLOW"));
  std::vector<plan::AggCall> legacy = {Call("sum", arrow::int64(), arrow::int64(), plan::EvalMode::kLegacy)};
  AccumulatorSet wrapping(legacy);
  ASSERT_OK(wrapping.Merge(&earlier, later));
  EXPECT_EQ(earlier[0].i, std::numeric_limits<int64_t>::min() + 6);
}

TEST(Accumulators, DoubleSumIsUnaffectedByAnsi) {
  std::vector<plan::AggCall> calls = {Call("sum", arrow::float64(), arrow::float64())};
  arrow::DoubleBuilder b;
  ASSERT_OK(b.AppendValues({1e308, 1e308}));
  ASSERT_OK_AND_ASSIGN(auto values, b.Finish());
  ASSERT_OK_AND_ASSIGN(auto r, Aggregate(calls, values));
  EXPECT_EQ(r, "inf");
}

TEST(Accumulators, DecimalAverageIsExactWithSparksTypeAndHalfUpRounding) {
  auto dec10_2 = arrow::decimal128(10, 2);
  std::vector<plan::AggCall> calls = {Call("avg", dec10_2, arrow::decimal128(14, 6))};
  ASSERT_OK_AND_ASSIGN(auto r, Aggregate(calls, Decimals(dec10_2, {125, 250})));
  EXPECT_EQ(r, "1.875000");
  ASSERT_OK_AND_ASSIGN(r, Aggregate(calls, Decimals(dec10_2, {2, 0, 0})));  // 0.02 / 3
  EXPECT_EQ(r, "0.006667");
  ASSERT_OK_AND_ASSIGN(r, Aggregate(calls, Decimals(dec10_2, {-2, 0, 0})));
  EXPECT_EQ(r, "-0.006667");
  // An exact half at the result's last digit rounds away from zero: 1 / 32 = 0.03125.
  auto dec5_0 = arrow::decimal128(5, 0);
  std::vector<plan::AggCall> to_4 = {Call("avg", dec5_0, arrow::decimal128(9, 4))};
  std::vector<int64_t> one_in_32(32, 0);
  one_in_32[0] = 1;
  ASSERT_OK_AND_ASSIGN(r, Aggregate(to_4, Decimals(dec5_0, one_in_32)));
  EXPECT_EQ(r, "0.0313");
  one_in_32[0] = -1;
  ASSERT_OK_AND_ASSIGN(r, Aggregate(to_4, Decimals(dec5_0, one_in_32)));
  EXPECT_EQ(r, "-0.0313");
}

TEST(Accumulators, DecimalAverageStateRoundTripsExactly) {
  auto dec = arrow::decimal128(38, 0);
  std::vector<plan::AggCall> calls = {Call("avg", dec, arrow::decimal128(38, 4))};
  AccumulatorSet set(calls);
  // 10^20 + 1: a double sum would lose the 1.
  arrow::Decimal128Builder b(dec);
  ASSERT_OK(b.Append(arrow::Decimal128("100000000000000000001")));
  ASSERT_OK_AND_ASSIGN(auto values, b.Finish());
  std::vector<Acc> accs(1);
  ASSERT_OK(set.Update(&accs, {values}, 0));
  std::string bytes;
  set.Encode(accs, &bytes);
  EXPECT_EQ(bytes.size(), 8u + 16u);  // count, 128-bit sum
  size_t pos = 0;
  std::vector<Acc> back;
  ASSERT_OK(set.Decode(bytes, &pos, &back));
  EXPECT_EQ(pos, bytes.size());
  EXPECT_EQ(back[0].count, 1);
  EXPECT_TRUE(back[0].dec == accs[0].dec);
}

TEST(Accumulators, DecimalSumThatDoesNotFitFailsUnderAnsiAndIsNullOtherwise) {
  auto dec = arrow::decimal128(38, 0);
  arrow::Decimal128Builder b(dec);
  const arrow::Decimal128 big("99999999999999999999999999999999999999");
  ASSERT_OK(b.Append(big));
  ASSERT_OK(b.Append(big));
  ASSERT_OK_AND_ASSIGN(auto values, b.Finish());
  std::vector<plan::AggCall> ansi = {Call("sum", dec, dec)};
  auto r = Aggregate(ansi, values);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("[NUMERIC_VALUE_OUT_OF_RANGE]"));
  EXPECT_THAT(r.status().message(), HasSubstr("sum(v) AS r"));
  std::vector<plan::AggCall> legacy = {Call("sum", dec, dec, plan::EvalMode::kLegacy)};
  ASSERT_OK_AND_ASSIGN(auto nulled, Aggregate(legacy, values));
  EXPECT_EQ(nulled, "null");
}

}  // namespace
}  // namespace sluice::exec
