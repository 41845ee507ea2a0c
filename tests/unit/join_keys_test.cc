// Join keys read from Arrow arrays: NULL matches nothing, -0.0 equals 0.0 and NaN equals NaN
// (Spark normalises floating-point join keys), several columns compare together, and the hash
// table finds every build row of a duplicated key, in build order.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cmath>

#include "exec/join_keys.h"
#include "support/status.h"

namespace sluice::exec {
namespace {

std::shared_ptr<arrow::Array> Doubles(const std::vector<std::optional<double>>& values) {
  arrow::DoubleBuilder b;
  for (const auto& v : values) EXPECT_TRUE((v ? b.Append(*v) : b.AppendNull()).ok());
  return *b.Finish();
}

std::shared_ptr<arrow::Array> Strings(const std::vector<std::optional<std::string>>& values) {
  arrow::StringBuilder b;
  for (const auto& v : values) EXPECT_TRUE((v ? b.Append(*v) : b.AppendNull()).ok());
  return *b.Finish();
}

std::vector<int64_t> Matches(const JoinHashTable& table, const JoinKeys& probe, int64_t row) {
  std::vector<int64_t> out;
  table.ForEachMatch(probe, row, [&](int64_t b) { out.push_back(b); });
  return out;
}

TEST(JoinKeys, FloatingPointKeysAreNormalisedAndNullMatchesNothing) {
  ASSERT_OK_AND_ASSIGN(auto build, JoinKeys::Make({Doubles({0.0, std::nan(""), 1.5, std::nullopt})}, 4));
  JoinHashTable table(std::move(build));
  ASSERT_OK_AND_ASSIGN(auto probe, JoinKeys::Make({Doubles({-0.0, -std::nan(""), 2.5, std::nullopt})}, 4));
  EXPECT_EQ(Matches(table, probe, 0), (std::vector<int64_t>{0}));
  EXPECT_EQ(Matches(table, probe, 1), (std::vector<int64_t>{1}));
  EXPECT_TRUE(Matches(table, probe, 2).empty());
  EXPECT_TRUE(Matches(table, probe, 3).empty()) << "NULL never equals NULL";
}

TEST(JoinKeys, DuplicateKeysOverSeveralColumnsAreAllFoundInBuildOrder) {
  ASSERT_OK_AND_ASSIGN(auto build, JoinKeys::Make({Strings({"a", "b", "a", "a"}), Doubles({1, 1, 2, 1})}, 4));
  JoinHashTable table(std::move(build));
  ASSERT_OK_AND_ASSIGN(auto probe, JoinKeys::Make({Strings({"a", "a", "b"}), Doubles({1, 2, 2})}, 3));
  EXPECT_EQ(Matches(table, probe, 0), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(Matches(table, probe, 1), (std::vector<int64_t>{2}));
  EXPECT_TRUE(Matches(table, probe, 2).empty());
}

TEST(JoinKeys, NoKeyColumnsIsACrossJoinAndNestedKeysAreRefused) {
  ASSERT_OK_AND_ASSIGN(auto build, JoinKeys::Make({}, 3));
  JoinHashTable table(std::move(build));
  ASSERT_OK_AND_ASSIGN(auto probe, JoinKeys::Make({}, 1));
  EXPECT_EQ(Matches(table, probe, 0), (std::vector<int64_t>{0, 1, 2}));
  auto list = arrow::MakeArrayOfNull(arrow::list(arrow::int64()), 1).ValueOrDie();
  EXPECT_THAT(JoinKeys::Make({list}, 1).status().message(), ::testing::HasSubstr("not supported"));
}

}  // namespace
}  // namespace sluice::exec
