// The aggregates that keep values (max_by/min_by, collect_list/collect_set, sum/avg DISTINCT,
// percentile_approx) and HyperLogLog++ (approx_count_distinct): Spark's NULL rules and results,
// partial states merged in any split equal one pass, and the state bytes restore exactly.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "exec/accumulators.h"
#include "exec/accumulators_sketches.h"
#include "support/status.h"
#include "unit/accumulators_test_util.h"

namespace sluice::exec {
namespace {

using ::testing::HasSubstr;

using test::Call;
using test::Int64s;

plan::AggCall By(const std::string& fn) {
  plan::AggCall c = Call(fn, arrow::utf8(), arrow::utf8());
  c.ordering = plan::Expr::Column("o");
  c.ordering_type = arrow::int64();
  return c;
}

std::shared_ptr<arrow::Array> Strings(const std::vector<std::optional<std::string>>& values) {
  arrow::StringBuilder b;
  for (const auto& v : values) EXPECT_OK(v ? b.Append(*v) : b.AppendNull());
  return b.Finish().ValueOrDie();
}

// Folds rows [0, split) into one partial and [split, n) into another, merges them, sends the
// merged state through its bytes, and returns the final values as text (joined by " | ").
Result<std::string> SplitAndFinish(const std::vector<plan::AggCall>& calls,
                                   const std::vector<std::shared_ptr<arrow::Array>>& args, int64_t split) {
  AccumulatorSet set(calls);
  std::vector<Acc> earlier(set.size()), later(set.size());
  for (int64_t row = 0; row < args[0]->length(); ++row) {
    ARROW_RETURN_NOT_OK(set.Update(row < split ? &earlier : &later, args, row));
  }
  ARROW_RETURN_NOT_OK(set.Merge(&earlier, later));
  std::string bytes;
  set.Encode(earlier, &bytes);
  size_t pos = 0;
  std::vector<Acc> restored;
  ARROW_RETURN_NOT_OK(set.Decode(bytes, &pos, &restored));
  if (pos != bytes.size()) return Status::Invalid("state bytes not consumed: ", pos, " of ", bytes.size());
  std::string again;
  set.Encode(restored, &again);
  if (again != bytes) return Status::Invalid("state does not re-encode to the same bytes");
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), calls[i].out_type, &builders[i]));
  }
  ARROW_RETURN_NOT_OK(set.Finish(restored, builders, 0));
  std::string text;  // each call's value, joined by " | "
  for (size_t i = 0; i < calls.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto out, builders[i]->Finish());
    ARROW_ASSIGN_OR_RAISE(auto scalar, out->GetScalar(0));
    text += (i ? " | " : "") + scalar->ToString();
  }
  return text;
}

// The same result for every split point (0 = all rows in the later partial).
void ExpectForEverySplit(const std::vector<plan::AggCall>& calls, const std::vector<std::shared_ptr<arrow::Array>>& args,
                         const std::string& expected) {
  for (int64_t split = 0; split <= args[0]->length(); ++split) {
    ASSERT_OK_AND_ASSIGN(auto r, SplitAndFinish(calls, args, split));
    EXPECT_EQ(r, expected) << "split at row " << split;
  }
}

// Spark's results on these rows: max_by = 'e', min_by = 'd'.
TEST(AccumulatorsCollect, MaxByTakesTheValueAtTheLargestOrderingSkippingNullOrderings) {
  auto values = Strings({"a", "b", std::nullopt, "d", "e"});
  auto orderings = Int64s({3, std::nullopt, 9, 1, 9});
  // 9 is the largest ordering, twice: a tie takes the later row.
  ExpectForEverySplit({By("max_by")}, {values, orderings}, "e");
  ExpectForEverySplit({By("min_by")}, {values, orderings}, "d");
  auto no_orderings = Int64s({std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt});
  ExpectForEverySplit({By("max_by")}, {values, no_orderings}, "null");
}

TEST(AccumulatorsCollect, MaxByKeepsANullValueAndATieTakesTheLaterRowAcrossPartials) {
  ExpectForEverySplit({By("max_by")}, {Strings({"a", std::nullopt}), Int64s({1, 2})}, "null");
  auto values = Strings({"first", "second"});
  auto orderings = Int64s({5, 5});
  ExpectForEverySplit({By("max_by")}, {values, orderings}, "second");
  ExpectForEverySplit({By("min_by")}, {values, orderings}, "second");
}

TEST(AccumulatorsCollect, CollectListKeepsArrivalOrderAndCollectSetTheDistinctValuesWithoutNulls) {
  auto values = Int64s({3, std::nullopt, 1, 3, 2});
  auto list_type = arrow::list(arrow::field("element", arrow::int64(), false));
  const std::string prefix = "list<element: int64 not null>";
  ExpectForEverySplit({Call("collect_list", arrow::int64(), list_type)}, {values}, prefix + "[3, 1, 3, 2]");
  ExpectForEverySplit({Call("collect_set", arrow::int64(), list_type)}, {values}, prefix + "[1, 2, 3]");
  ExpectForEverySplit({Call("collect_list", arrow::int64(), list_type)}, {Int64s({std::nullopt})}, prefix + "[]");
}

TEST(AccumulatorsCollect, SumAndAvgDistinctCountEachValueOnce) {
  auto values = Int64s({1, 1, 2, std::nullopt, 3, 2});
  ExpectForEverySplit({Call("sum_distinct", arrow::int64(), arrow::int64())}, {values}, "6");
  ExpectForEverySplit({Call("avg_distinct", arrow::int64(), arrow::float64())}, {values}, "2");
  ExpectForEverySplit({Call("sum_distinct", arrow::int64(), arrow::int64())}, {Int64s({std::nullopt})}, "null");
}

TEST(AccumulatorsCollect, SumDistinctOverflowFailsUnderAnsiNamingTheCall) {
  std::vector<plan::AggCall> calls = {Call("sum_distinct", arrow::int64(), arrow::int64())};
  auto r = SplitAndFinish(calls, {Int64s({std::numeric_limits<int64_t>::max(), 1, 1})}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("[ARITHMETIC_OVERFLOW] long overflow in sum(DISTINCT v) AS r"));
}

plan::AggCall Percentile(double p, int64_t accuracy = 10000) {
  plan::AggCall c = Call("percentile_approx", arrow::int64(), arrow::int64());
  c.percentages = {p};
  c.accuracy = accuracy;
  return c;
}

plan::AggCall Percentiles(std::vector<double> ps, int64_t accuracy = 10000) {
  plan::AggCall c = Call("percentile_approx", arrow::int64(), arrow::list(arrow::field("element", arrow::int64(), false)));
  c.percentages = std::move(ps);
  c.percentage_array = true;
  c.accuracy = accuracy;
  return c;
}

TEST(AccumulatorsCollect, PercentileApproxIsTheCeilOfPTimesNthSmallestValue) {
  // 1..10 shuffled, with a NULL (skipped) and a duplicate 7.
  auto values = Int64s({7, 3, std::nullopt, 10, 1, 5, 7, 2, 9, 4, 6, 8});
  // n = 11 sorted: 1 2 3 4 5 6 7 7 8 9 10.
  ExpectForEverySplit({Percentile(0.5)}, {values}, "6");    // ceil(5.5) = 6th
  ExpectForEverySplit({Percentile(0.25)}, {values}, "3");   // ceil(2.75) = 3rd
  ExpectForEverySplit({Percentile(0.7)}, {values}, "7");    // ceil(7.7) = 8th: the second 7
  ExpectForEverySplit({Percentile(0.0)}, {values}, "1");
  ExpectForEverySplit({Percentile(1.0)}, {values}, "10");
  // Within 1/accuracy of either end Spark answers the minimum / maximum.
  ExpectForEverySplit({Percentile(0.95, 10)}, {values}, "10");
  ExpectForEverySplit({Percentile(0.5)}, {Int64s({std::nullopt})}, "null");
}

TEST(AccumulatorsCollect, PercentileApproxOverAnArrayGivesEachPercentageInTheGivenOrder) {
  auto values = Int64s({7, 3, std::nullopt, 10, 1, 5, 7, 2, 9, 4, 6, 8});  // as above: n = 11
  const std::string prefix = "list<element: int64 not null>";
  // The same values as the single form, unsorted and with a repeat, from the one histogram.
  ExpectForEverySplit({Percentiles({0.7, 0.25, 0.5, 0.25})}, {values}, prefix + "[7, 3, 6, 3]");
  ExpectForEverySplit({Percentiles({0.0, 1.0, 0.95}, 10)}, {values}, prefix + "[1, 10, 10]");
  // Beside the single form over the same column: each keeps its own state and result type.
  ExpectForEverySplit({Percentiles({0.5}), Percentile(0.5)}, {values, values}, prefix + "[6] | 6");
  // No non-null value: the whole array is NULL (Spark's), as is an empty array of percentages.
  ExpectForEverySplit({Percentiles({0.5, 0.9})}, {Int64s({std::nullopt})}, "null");
  ExpectForEverySplit({Percentiles({})}, {values}, "null");
}

plan::AggCall Hll(int p) {
  plan::AggCall c = Call("approx_count_distinct", arrow::int64(), arrow::int64());
  c.hll_precision = p;
  return c;
}

std::shared_ptr<arrow::Array> Range(int64_t from, int64_t to, int repeats) {
  arrow::Int64Builder b;
  for (int r = 0; r < repeats; ++r) {
    for (int64_t v = from; v < to; ++v) EXPECT_OK(b.Append(v * 7919));
  }
  return b.Finish().ValueOrDie();
}

TEST(AccumulatorsCollect, ApproxCountDistinctIsWithinItsErrorAndIgnoresRepeats) {
  for (const auto& [n, p] : std::vector<std::pair<int64_t, int>>{{50, 9}, {1000, 9}, {20000, 9}, {20000, 12}}) {
    std::vector<plan::AggCall> calls = {Hll(p)};
    ASSERT_OK_AND_ASSIGN(auto once, SplitAndFinish(calls, {Range(0, n, 1)}, n / 3));
    ASSERT_OK_AND_ASSIGN(auto thrice, SplitAndFinish(calls, {Range(0, n, 3)}, n));
    EXPECT_EQ(once, thrice) << "repeated values changed the estimate, n=" << n;
    const double rsd = 1.106 / std::sqrt(static_cast<double>(1 << p));
    EXPECT_NEAR(std::stod(once), static_cast<double>(n), 3 * rsd * static_cast<double>(n)) << "n=" << n << " p=" << p;
  }
  ASSERT_OK_AND_ASSIGN(auto none, SplitAndFinish({Hll(9)}, {Int64s({std::nullopt, std::nullopt})}, 1));
  EXPECT_EQ(none, "0");
}

TEST(AccumulatorsCollect, ApproxCountDistinctMergeIsTheRegisterMaximum) {
  std::string a, b, all;
  for (uint64_t h : {0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0x8000000000000001ULL}) {
    HllAdd(9, h, &a);
    HllAdd(9, h, &all);
  }
  for (uint64_t h : {0x0123456789abcdefULL, 0x00000000000000ffULL}) {
    HllAdd(9, h, &b);
    HllAdd(9, h, &all);
  }
  HllMerge(b, &a);
  EXPECT_EQ(a, all);
  EXPECT_EQ(a.size(), 512u);
  EXPECT_EQ(HllEstimate(9, a), 4);
}

// Spark's xxhash64(...) of the same values (SELECT xxhash64(1), xxhash64(1L), xxhash64('abc')):
// the hashes decide the registers, so equal hashes give Spark's estimates.
TEST(AccumulatorsCollect, HashesAreSparksXxHash64WithSeed42) {
  arrow::Int32Builder ib;
  ASSERT_OK(ib.Append(1));
  ASSERT_OK_AND_ASSIGN(auto ints, ib.Finish());
  EXPECT_EQ(static_cast<int64_t>(SparkXxHash64(*ints, 0)), -6698625589789238999LL);
  EXPECT_EQ(static_cast<int64_t>(SparkXxHash64(*Int64s({1}), 0)), -7001672635703045582LL);
  EXPECT_EQ(static_cast<int64_t>(SparkXxHash64(*Strings({"abc"}), 0)), 1423657621850124518LL);
}

// PySpark: SELECT approx_count_distinct(id * 7919), approx_count_distinct(CAST(id AS STRING))
// FROM range(300) gives 279 and 296 (linear counting over Spark's registers).
TEST(AccumulatorsCollect, SmallCardinalitiesEqualSparksEstimates) {
  ASSERT_OK_AND_ASSIGN(auto longs, SplitAndFinish({Hll(9)}, {Range(0, 300, 1)}, 100));
  EXPECT_EQ(longs, "279");
  arrow::StringBuilder b;
  for (int i = 0; i < 300; ++i) ASSERT_OK(b.Append(std::to_string(i)));
  ASSERT_OK_AND_ASSIGN(auto strings, b.Finish());
  plan::AggCall call = Hll(9);
  call.arg_type = arrow::utf8();
  ASSERT_OK_AND_ASSIGN(auto text, SplitAndFinish({call}, {strings}, 150));
  EXPECT_EQ(text, "296");
}

TEST(AccumulatorsCollect, RestoringRegistersOfAnotherPrecisionIsRefused) {
  std::vector<plan::AggCall> p9 = {Hll(9)}, p10 = {Hll(10)};
  AccumulatorSet set9(p9), set10(p10);
  std::vector<Acc> accs(1);
  ASSERT_OK(set9.Update(&accs, {Int64s({5})}, 0));
  std::string bytes;
  set9.Encode(accs, &bytes);
  size_t pos = 0;
  std::vector<Acc> back;
  Status st = set10.Decode(bytes, &pos, &back);
  EXPECT_THAT(st.message(), HasSubstr("relative standard deviation"));
}

}  // namespace
}  // namespace sluice::exec
