// The moments aggregates' state: Welford updates, pairwise merges and the state bytes agree
// with a direct two-pass computation, and the NULL rules are Spark's.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>

#include "exec/accumulators.h"
#include "exec/accumulators_moments.h"
#include "support/status.h"

namespace sluice::exec {
namespace {

const std::vector<double> kValues = {1, 2, 3, 10, 5, -4.5, 7};

double TwoPassVariance(const std::vector<double>& v, bool sample) {
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double m2 = 0;
  for (double x : v) m2 += (x - mean) * (x - mean);
  return m2 / static_cast<double>(sample ? v.size() - 1 : v.size());
}

TEST(AccumulatorsMoments, MergedHalvesEqualTheWholeAndTheTwoPassVariance) {
  Acc whole, left, right;
  for (size_t i = 0; i < kValues.size(); ++i) {
    AddMoment(&whole, kValues[i]);
    AddMoment(i < 3 ? &left : &right, kValues[i]);
  }
  MergeMoments(&left, right);
  EXPECT_EQ(left.count, whole.count);
  EXPECT_NEAR(*FinishMoments("var_samp", left), TwoPassVariance(kValues, true), 1e-12);
  EXPECT_NEAR(*FinishMoments("var_pop", whole), TwoPassVariance(kValues, false), 1e-12);
  EXPECT_NEAR(*FinishMoments("stddev_samp", whole), std::sqrt(TwoPassVariance(kValues, true)), 1e-12);
  Acc empty;
  MergeMoments(&empty, whole);  // merging into an empty state copies it
  EXPECT_EQ(*FinishMoments("stddev_pop", empty), *FinishMoments("stddev_pop", whole));
}

TEST(AccumulatorsMoments, NullWithoutRowsAndForASampleOfOne) {
  Acc acc;
  EXPECT_FALSE(FinishMoments("var_pop", acc).has_value());
  AddMoment(&acc, 3);
  EXPECT_FALSE(FinishMoments("stddev_samp", acc).has_value());
  EXPECT_FALSE(FinishMoments("var_samp", acc).has_value());
  EXPECT_EQ(*FinishMoments("var_pop", acc), 0.0);
}

// The state bytes restore exactly what was saved (a restart continues the same aggregate).
TEST(AccumulatorsMoments, StateBytesRoundTrip) {
  plan::AggCall call;
  call.fn = "stddev_samp";
  call.arg_type = arrow::float64();
  call.out_type = arrow::float64();
  std::vector<plan::AggCall> calls = {call};
  AccumulatorSet set(calls);
  arrow::DoubleBuilder b;
  ASSERT_OK(b.AppendValues(kValues));
  ASSERT_OK_AND_ASSIGN(auto column, b.Finish());
  std::vector<Acc> accs(1);
  for (int64_t row = 0; row < column->length(); ++row) ASSERT_OK(set.Update(&accs, {column}, row));
  std::string bytes;
  set.Encode(accs, &bytes);
  std::vector<Acc> restored;
  size_t pos = 0;
  ASSERT_OK(set.Decode(bytes, &pos, &restored));
  EXPECT_EQ(pos, bytes.size());
  EXPECT_EQ(restored[0].count, accs[0].count);
  EXPECT_EQ(restored[0].d, accs[0].d);
  EXPECT_EQ(restored[0].m2, accs[0].m2);
}

}  // namespace
}  // namespace sluice::exec
