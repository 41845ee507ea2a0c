// CREATE TABLE ... PARTITIONED BY (...): read from the parse tree (columns and transform calls),
// turned into the file sink's partitionBy option, and refused where it cannot apply, each
// error located in the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "sluice/sluice.h"
#include "sql/sql_pipeline.h"
#include "sql/sql_script.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::sql {
namespace {

using ::testing::HasSubstr;

class SqlPartitionedByTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_.Sub("in")); }

  std::string Source() const {
    return "CREATE TABLE events (id BIGINT, name TEXT, dt DATE, country TEXT)\n"
           "  WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("in") + "');\n";
  }
  std::string Sink(const std::string& clause, const std::string& extra = "") const {
    return "CREATE TABLE out (id BIGINT, name TEXT, dt DATE, country TEXT) " + clause +
           " WITH (connector = 'files', format = 'parquet', path = '" + dir_.Sub("out") + "'" + extra + ");\n";
  }
  Result<Pipeline> Compile(const std::string& sql) const {
    SqlText text("p.sql", sql);
    return CompilePipeline(Session::Make(), text, ExecutionMode::kStreaming);
  }
  // "p.sql:L:C" of the first `needle` in `sql`.
  static std::string WhereIs(const std::string& sql, const std::string& needle) {
    SqlText text("p.sql", sql);
    return text.Where(static_cast<int>(text.text().find(needle)));
  }

  testing::TempDir dir_;
};

TEST_F(SqlPartitionedByTest, ReadsColumnsAndTransformsKeepingTheirSpelling) {
  SqlText text("p.sql",
               "CREATE TABLE t (ts TIMESTAMP, userId BIGINT, s TEXT, Dt DATE)\n"
               "  PARTITIONED  BY (Dt, day(ts), bucket(16, userId), truncate(4, s), \"Odd Col\")\n"
               "  WITH (connector = 'files', format = 'parquet', path = '/out');");
  auto script = ParseScript(text);
  ASSERT_OK(script);
  const auto& p = script->tables[0].partitioned_by;
  ASSERT_EQ(p.size(), 5u);
  EXPECT_EQ(p[0].column, "Dt");
  EXPECT_TRUE(p[0].transform.empty());
  EXPECT_EQ(p[1].ToString(), "day(ts)");
  EXPECT_EQ(p[2].transform, "bucket");
  EXPECT_EQ(p[2].column, "userId");
  EXPECT_EQ(p[2].parameters, (std::vector<int64_t>{16}));
  EXPECT_EQ(p[3].ToString(), "truncate(4, s)");
  EXPECT_EQ(p[4].column, "Odd Col");
  EXPECT_EQ(text.Where(script->tables[0].partitioned_by_location), "p.sql:2:3");
  // The options after the clause are read as before.
  EXPECT_EQ(script->tables[0].Find("format")->value, "parquet");
}

TEST_F(SqlPartitionedByTest, FilesSinkGetsThePartitionColumns) {
  auto pipeline = Compile(Source() + Sink("PARTITIONED BY (dt, country)") + "INSERT INTO out SELECT * FROM events;");
  ASSERT_OK(pipeline);
  EXPECT_EQ(pipeline->queries[0].sink.options.at("partitionBy"), "dt,country");

  // The option spelling does the same.
  auto option = Compile(Source() + Sink("", ", partition_by = 'country'") + "INSERT INTO out SELECT * FROM events;");
  ASSERT_OK(option);
  EXPECT_EQ(option->queries[0].sink.options.at("partitionBy"), "country");
}

TEST_F(SqlPartitionedByTest, IcebergSinkGetsTheTransformsAsItsPartitionSpec) {
  const std::string iceberg = "CREATE TABLE lake () PARTITIONED BY (days(dt), bucket(16, id), truncate(4, name), country)\n"
                              "  WITH (connector = 'iceberg', table = 'db.out');\nINSERT INTO lake SELECT * FROM events;";
  auto pipeline = Compile(Source() + iceberg);
  ASSERT_OK(pipeline);
  EXPECT_EQ(pipeline->queries[0].sink.format, "iceberg");
  EXPECT_EQ(pipeline->queries[0].sink.options.at("partitionBy"), "days(dt), bucket(16, id), truncate(4, name), country");

  auto bad = Compile(Source() + "CREATE TABLE lake () PARTITIONED BY (week(dt)) WITH (connector = 'iceberg', "
                                "table = 'db.out');\nINSERT INTO lake SELECT * FROM events;");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("Unknown partition transform 'week'"));
}

TEST_F(SqlPartitionedByTest, ErrorsPointAtTheClause) {
  struct Case {
    std::string sql;
    std::string at;  // needle whose position the error names
    std::string fragment;
  };
  const std::string insert = "INSERT INTO out SELECT * FROM events;";
  std::vector<Case> cases = {
      {Source() + Sink("PARTITIONED BY (dt)", ", partition_by = 'dt'") + insert, "partition_by", "keep one"},
      {Source() + Sink("PARTITIONED BY (day(dt))") + insert, "out (", "cannot partition by day(dt)"},
      {Source() + Sink("PARTITIONED BY (nope)") + insert, "PARTITIONED", "'nope' not found"},
      {Source() + Sink("PARTITIONED BY (id, name, dt, country)") + insert, "PARTITIONED", "Cannot use all columns"},
      {Source() + Sink("PARTITION BY LIST (dt)") + insert, "PARTITION BY", "write PARTITIONED BY"},
      {Source() + Sink("PARTITIONED BY (bucket('x', dt))") + insert, "'x'", "takes one column and integer literals"},
      {Source() + "CREATE TABLE c () PARTITIONED BY (dt) WITH (connector = 'console');\nINSERT INTO c SELECT * FROM events;",
       "PARTITIONED", "works with connector = 'files'"},
      {"CREATE TABLE events (id BIGINT, dt DATE) PARTITIONED BY (dt)\n  WITH (connector = 'files', format = 'json', path = '" +
           dir_.Sub("in") + "');\nSELECT * FROM events;",
       "PARTITIONED", "only says how INSERT INTO writes"},
  };
  for (const auto& c : cases) {
    auto pipeline = Compile(c.sql);
    ASSERT_FALSE(pipeline.ok()) << c.sql;
    const std::string& message = pipeline.status().message();
    EXPECT_EQ(message.rfind(WhereIs(c.sql, c.at) + ": ", 0), 0u) << message;
    EXPECT_THAT(message, HasSubstr(c.fragment)) << message;
  }
}

}  // namespace
}  // namespace sluice::sql
