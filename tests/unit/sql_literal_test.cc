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

// Spark's literal and result types: 1.5 is DECIMAL(2,1), 1e3 DOUBLE, -2147483648 still INT;
// EXTRACT(SECOND ...) is DECIMAL(8,6) with the microseconds.
TEST_F(SqlNegativeLiteralTest, LiteralAndExtractTypesFollowSpark) {
  SqlText text("q.sql", Pipeline("SELECT 1.5 AS d, 0.125 AS f, 1e3 AS e, -2147483648 AS i, 2147483648 AS b, "
                                 "v + 1.5 AS s, EXTRACT(SECOND FROM TIMESTAMP '2024-01-01 00:00:07.25') AS sec "
                                 "FROM src WHERE v = 3"));
  ASSERT_OK_AND_ASSIGN(auto pipeline, CompilePipeline(session_, text, ExecutionMode::kBatch));
  ASSERT_OK_AND_ASSIGN(auto rows, pipeline.queries[0].frame.collect());
  const auto& schema = *rows->schema();
  EXPECT_TRUE(schema.field(0)->type()->Equals(arrow::decimal128(2, 1))) << schema.ToString();
  EXPECT_TRUE(schema.field(1)->type()->Equals(arrow::decimal128(3, 3))) << schema.ToString();
  EXPECT_TRUE(schema.field(2)->type()->Equals(arrow::float64())) << schema.ToString();
  EXPECT_TRUE(schema.field(3)->type()->Equals(arrow::int32())) << schema.ToString();
  EXPECT_TRUE(schema.field(4)->type()->Equals(arrow::int64())) << schema.ToString();
  EXPECT_TRUE(schema.field(5)->type()->Equals(arrow::decimal128(22, 1))) << schema.ToString();
  EXPECT_TRUE(schema.field(6)->type()->Equals(arrow::decimal128(8, 6))) << schema.ToString();
  EXPECT_EQ(Lines(rows), (std::vector<std::string>{"1.5|0.125|1000|-2147483648|2147483648|4.5|7.250000"}));
}

// spark.sql.ansi.enabled (default true, as Spark 4) decides how casts and arithmetic fail.
TEST_F(SqlNegativeLiteralTest, AnsiSettingDecidesBetweenErrorAndNull) {
  const std::string select = "SELECT CAST('1.5' AS BIGINT) AS c, v / 0 AS d FROM src WHERE v = 3";
  ASSERT_OK_AND_ASSIGN(auto ansi, CompilePipeline(session_, SqlText("q.sql", Pipeline(select)), ExecutionMode::kBatch));
  auto failed = ansi.queries[0].frame.collect();
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("[CAST_INVALID_INPUT] The value '1.5'"), std::string::npos)
      << failed.status().message();
  SqlText legacy_text("q.sql", "SET spark.sql.ansi.enabled = false;\n" + Pipeline(select));
  ASSERT_OK_AND_ASSIGN(auto legacy, CompilePipeline(Session::Make(), legacy_text, ExecutionMode::kBatch));
  ASSERT_OK_AND_ASSIGN(auto rows, legacy.queries[0].frame.collect());
  EXPECT_EQ(Lines(rows), (std::vector<std::string>{"1|null"}));
}

}  // namespace
}  // namespace sluice::sql
