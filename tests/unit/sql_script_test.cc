// Reading pipeline files: positions, identifiers as written, statements, options and types.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "sql/sql_script.h"
#include "sql/sql_text.h"
#include "support/status.h"

namespace sluice::sql {
namespace {

using ::testing::HasSubstr;

Script MustParse(const std::string& sql) {
  SqlText text("p.sql", sql);
  auto script = ParseScript(text);
  EXPECT_OK(script);
  return script.ok() ? *script : Script{};
}

TEST(SqlText, ByteOffsetsBecomeLineAndCharacterColumn) {
  SqlText text("p.sql", "SELECT 1;\n  SELECT 'é', x;\n");
  EXPECT_EQ(text.Where(0), "p.sql:1:1");
  EXPECT_EQ(text.Where(12), "p.sql:2:3");
  // 'é' is two bytes; the column counts characters.
  size_t x = text.text().find("x;");
  EXPECT_EQ(text.Where(static_cast<int>(x)), "p.sql:2:15");
}

TEST(SqlText, ErrorShowsTheLineAndACaret) {
  SqlText text("p.sql", "SELECT a,\n       pricee FROM t");
  Status st = text.ErrorAt(17, "Column 'pricee' does not exist");
  EXPECT_EQ(st.message(), "p.sql:2:8: Column 'pricee' does not exist\n         pricee FROM t\n         ^");
}

TEST(SqlText, NamesLongerThanTheGrammarsLimitAreRefusedNotCut) {
  const std::string name63(63, 'a');
  const std::string name64 = name63 + "b";
  for (const std::string& sql : {"SELECT 1 AS " + name64, "SELECT 1 AS \"" + name64 + "\"",
                                 "SELECT 1 AS `" + name64 + "`"}) {
    auto script = ParseScript(SqlText("p.sql", sql));
    ASSERT_FALSE(script.ok()) << sql;
    EXPECT_THAT(script.status().message(), HasSubstr("p.sql:1:13: this name is 64 bytes long; names are limited to "
                                                     "63 bytes"));
  }
  // 63 bytes, long string literals and comments are fine.
  MustParse("SELECT 1 AS " + name63 + ", '" + name64 + name64 + "' AS s -- " + name64 + "\n;");
}

TEST(SqlText, IdentifiersKeepTheirSpelling) {
  SqlText text("p.sql", "SELECT userId, \"Odd \"\"Name\"\", t.colA FROM t");
  EXPECT_EQ(text.IdentifierAt(7, "userid"), "userId");
  EXPECT_EQ(text.IdentifierAt(15, "Odd \"Name"), "Odd \"Name");
  EXPECT_EQ(text.IdentifierChainAt(30, {"t", "cola"}), (std::vector<std::string>{"t", "colA"}));
  EXPECT_EQ(text.IdentifierAt(7, "other"), "other");  // the location does not hold that name
  SqlText aliased("p.sql", "SELECT x AS totalPrice, 'totalprice' FROM t");
  EXPECT_EQ(aliased.SpellingIn("totalprice", 7, 40), "totalPrice");  // string literals are skipped
}

TEST(SqlScript, SnakeCaseOptionsBecomeCamelCase) {
  EXPECT_EQ(SnakeToCamel("max_files_per_trigger"), "maxFilesPerTrigger");
  EXPECT_EQ(SnakeToCamel("column_name_of_corrupt_record"), "columnNameOfCorruptRecord");
  EXPECT_EQ(SnakeToCamel("maxFilesPerTrigger"), "maxFilesPerTrigger");
  EXPECT_EQ(SnakeToCamel("path"), "path");
}

TEST(SqlScript, ReadsTablesSettingsAndQueries) {
  Script script = MustParse(R"(
    SET sluice.sql.streaming.minBatchesToRetain = 10;
    SET spark.sql.session.timeZone TO 'UTC';
    CREATE TABLE Events (userId BIGINT NOT NULL, name TEXT, price DOUBLE PRECISION, amount DECIMAL(10, 2),
                         ts TIMESTAMP, tz TIMESTAMPTZ, d DATE, ok BOOLEAN, small SMALLINT, i INT, r REAL,
                         v VARCHAR(20), s STRING, f8 FLOAT8)
      WITH (connector = 'files', format = 'csv', path = '/in', max_files_per_trigger = 2, header = true,
            maxFileAge = '7d');
    CREATE TABLE out () WITH (connector = 'Console');
    INSERT INTO out SELECT * FROM events;
    SELECT name FROM events;
  )");
  ASSERT_EQ(script.settings.size(), 2u);
  EXPECT_EQ(script.settings[0].key, "sluice.sql.streaming.minBatchesToRetain");
  EXPECT_EQ(script.settings[0].value, "10");
  EXPECT_EQ(script.settings[1].value, "UTC");

  ASSERT_EQ(script.tables.size(), 2u);
  const TableDecl* events = script.FindTable("EVENTS");
  ASSERT_NE(events, nullptr);
  EXPECT_EQ(events->name, "Events");
  EXPECT_EQ(events->connector, "files");
  auto expected = arrow::schema({arrow::field("userId", arrow::int64(), false), arrow::field("name", arrow::utf8()),
                                 arrow::field("price", arrow::float64()), arrow::field("amount", arrow::decimal128(10, 2)),
                                 arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                                 arrow::field("tz", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                                 arrow::field("d", arrow::date32()), arrow::field("ok", arrow::boolean()),
                                 arrow::field("small", arrow::int16()), arrow::field("i", arrow::int32()),
                                 arrow::field("r", arrow::float32()), arrow::field("v", arrow::utf8()),
                                 arrow::field("s", arrow::utf8()), arrow::field("f8", arrow::float64())});
  ASSERT_NE(events->schema, nullptr);
  EXPECT_TRUE(events->schema->Equals(*expected)) << events->schema->ToString();
  ASSERT_NE(events->Find("maxfilespertrigger"), nullptr);
  EXPECT_EQ(events->Find("maxFilesPerTrigger")->value, "2");
  EXPECT_EQ(events->Find("maxFilesPerTrigger")->written_key, "max_files_per_trigger");
  EXPECT_EQ(events->Find("header")->value, "true");
  EXPECT_EQ(events->Find("maxFileAge")->key, "maxFileAge");
  EXPECT_EQ(events->Find("connector"), nullptr);

  const TableDecl* out = script.FindTable("out");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->schema, nullptr);
  EXPECT_EQ(out->connector, "console");

  ASSERT_EQ(script.queries.size(), 2u);
  EXPECT_EQ(script.queries[0].sink, "out");
  EXPECT_TRUE(script.queries[1].sink.empty());
}

TEST(SqlScript, RefusesWhatAPipelineCannotHold) {
  struct Case {
    std::string sql;
    std::string where;
    std::string fragment;
  };
  std::vector<Case> cases = {
      {"CREATE TABLE t (a INT);", "p.sql:1:14", "has no connector"},
      {"CREATE TABLE t (a INT) WITH (connector = 'files');\nCREATE TABLE T (b INT) WITH (connector = 'files');",
       "p.sql:2:14", "table 'T' is already declared at p.sql:1:14"},
      {"CREATE TABLE t (a INT, A TEXT) WITH (connector = 'files');", "p.sql:1:24", "column 'A' is declared twice"},
      {"CREATE TABLE t (a INT) WITH (connector = 'files', path = '/a', PATH = '/b');", "p.sql:1:64",
       "option 'PATH' is given twice"},
      {"\n  UPDATE t SET a = 1;", "p.sql:2:3", "unsupported statement (Update)"},
      {"INSERT INTO t VALUES (1);", "p.sql:1:1", "INSERT ... VALUES is not supported"},
      {"INSERT INTO t (a) SELECT 1;", "p.sql:1:16", "INSERT INTO t (columns) is not supported"},
      {"CREATE TABLE t (a INT[]) WITH (connector = 'files');", "p.sql:1:19", "array types are not supported"},
      {"SELECT FROM WHERE;", "p.sql:1:13", "syntax error at or near \"WHERE\""},
  };
  for (const auto& c : cases) {
    SqlText text("p.sql", c.sql);
    auto script = ParseScript(text);
    ASSERT_FALSE(script.ok()) << c.sql;
    const std::string& message = script.status().message();
    EXPECT_EQ(message.rfind(c.where + ": ", 0), 0u) << c.sql << "\n" << message;
    EXPECT_THAT(message, HasSubstr(c.fragment)) << c.sql << "\n" << message;
  }
}

}  // namespace
}  // namespace sluice::sql
