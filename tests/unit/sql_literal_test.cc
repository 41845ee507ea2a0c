// Integer literals keep their sign. Debian's libpg_query 15-4.0 writes 0 and every negative
// integer constant as an empty node in its JSON tree ("ival": {}); sluice reads such a literal
// back from the SQL text instead of taking the empty node for 0.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sluice/sluice.h"
#include "sql/sql_pipeline.h"
#include "sql/sql_script.h"
#include "sql/sql_text.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::sql {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SqlText, ReadsIntegerLiteralsWithTheirSign) {
  SqlText text("p.sql", "-1 - 2 -/* c */ 3 0 42 -9223372036854775808 9223372036854775808 1.5 7x");
  EXPECT_EQ(text.IntegerAt(0), -1);
  EXPECT_EQ(text.IntegerAt(3), -2);   // "- 2": a space after the sign
  EXPECT_EQ(text.IntegerAt(7), -3);   // a comment after the sign
  EXPECT_EQ(text.IntegerAt(18), 0);
  EXPECT_EQ(text.IntegerAt(20), 42);
  EXPECT_EQ(text.IntegerAt(23), INT64_MIN);
  EXPECT_EQ(text.IntegerAt(44), std::nullopt);  // does not fit 64 bits
  EXPECT_EQ(text.IntegerAt(64), std::nullopt);  // not an integer: 1.5
  EXPECT_EQ(text.IntegerAt(68), std::nullopt);  // 7x
  EXPECT_EQ(text.IntegerAt(-1), std::nullopt);
  SqlText option("p.sql", "x = -3, \"Y\"=-7, z = 'a'");
  EXPECT_EQ(option.AssignedIntegerAt(0), -3);
  EXPECT_EQ(option.AssignedIntegerAt(8), -7);
  EXPECT_EQ(option.AssignedIntegerAt(16), std::nullopt);
}

TEST(SqlLiterals, NegativeOptionAndSetValuesKeepTheirSign) {
  SqlText text("p.sql",
               "SET my.key = -3;\n"
               "CREATE TABLE t (a INT) WITH (connector = 'files', format = 'json', path = '/in', x = -3, y = 0, "
               "w = - 7, z = 4);\n"
               "SELECT a FROM t;\n");
  ASSERT_OK_AND_ASSIGN(Script script, ParseScript(text));
  ASSERT_EQ(script.settings.size(), 1u);
  EXPECT_EQ(script.settings[0].value, "-3");
  const TableDecl* t = script.FindTable("t");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Find("x")->value, "-3");
  EXPECT_EQ(t->Find("y")->value, "0");
  EXPECT_EQ(t->Find("w")->value, "-7");
  EXPECT_EQ(t->Find("z")->value, "4");
}

// Rows as "c1|c2|..." lines in row order; null as "null".
std::vector<std::string> Lines(const std::shared_ptr<arrow::Table>& t) {
  std::vector<std::string> out;
  for (int64_t r = 0; r < t->num_rows(); ++r) {
    std::string line;
    for (int c = 0; c < t->num_columns(); ++c) {
      auto scalar = t->column(c)->GetScalar(r);
      line += (c ? "|" : "") + (!scalar.ok() ? std::string("?") : (*scalar)->is_valid ? (*scalar)->ToString() : "null");
    }
    out.push_back(line);
  }
  return out;
}

class SqlNegativeLiteralTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.Sub("in"));
    std::ofstream(dir_.Sub("in") + "/part-0.json") << "{\"v\": -7}\n{\"v\": -4}\n{\"v\": null}\n{\"v\": 3}\n";
  }
  std::string Pipeline(const std::string& select) const {
    return "CREATE TABLE src (v BIGINT) WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("in") +
           "');\n" + select + ";\n";
  }
  testing::TempDir dir_;
  std::shared_ptr<Session> session_ = Session::Make();
};

TEST_F(SqlNegativeLiteralTest, PlanShowsTheNegativeValues) {
  SqlText text("q.sql", Pipeline("SELECT -1 AS m, coalesce(v, -1) AS c, v * -2 AS d, v - -0 AS z FROM src WHERE v > -5"));
  ASSERT_OK_AND_ASSIGN(auto pipeline, CompilePipeline(session_, text, ExecutionMode::kBatch));
  ASSERT_EQ(pipeline.queries.size(), 1u);
  const std::string plan = pipeline.queries[0].frame.explain();
  EXPECT_THAT(plan, HasSubstr("coalesce(v, -1)"));
  EXPECT_THAT(plan, HasSubstr("-2"));
  EXPECT_THAT(plan, HasSubstr("-5"));
  EXPECT_THAT(plan, Not(HasSubstr("coalesce(v, 0)")));
}

TEST_F(SqlNegativeLiteralTest, RowsComputeWithTheNegativeValues) {
  SqlText text("q.sql", Pipeline("SELECT -1 AS m, coalesce(v, -1) AS c, v * -2 AS d FROM src WHERE v > -5 OR v IS NULL"));
  ASSERT_OK_AND_ASSIGN(auto pipeline, CompilePipeline(session_, text, ExecutionMode::kBatch));
  ASSERT_OK_AND_ASSIGN(auto rows, pipeline.queries[0].frame.collect());
  // v = -7 is filtered out by v > -5 (v > 0 would also drop -4).
  EXPECT_EQ(Lines(rows), (std::vector<std::string>{"-1|-4|8", "-1|-1|null", "-1|3|-6"}));
}

TEST_F(SqlNegativeLiteralTest, GroupByPositionZeroOrNegativeIsRefusedWithItsValue) {
  SqlText text("q.sql", Pipeline("SELECT v, count(*) AS n FROM src GROUP BY -1"));
  auto pipeline = CompilePipeline(session_, text, ExecutionMode::kBatch);
  ASSERT_FALSE(pipeline.ok());
  EXPECT_THAT(pipeline.status().message(), HasSubstr("GROUP BY position -1"));
}

}  // namespace
}  // namespace sluice::sql
