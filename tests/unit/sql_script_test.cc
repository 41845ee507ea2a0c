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

namespace sluice::sql {
namespace {

TEST(SqlScript, ViewsAreReadInOrderAndWithBeforeInsertJoinsTheSelect) {
  Script script = MustParse(
      "CREATE TABLE t (a BIGINT) WITH (connector = 'files', format = 'json', path = '/in');\n"
      "CREATE TEMP VIEW v1 AS SELECT a FROM t;\n"
      "CREATE OR REPLACE TEMPORARY VIEW V2 AS SELECT a FROM v1;\n"
      "CREATE TABLE o () WITH (connector = 'console');\n"
      "WITH c AS (SELECT a FROM V2) INSERT INTO o SELECT * FROM c;\n");
  ASSERT_EQ(script.views.size(), 2u);
  EXPECT_EQ(script.views[0].name, "v1");
  EXPECT_EQ(script.views[1].name, "V2");  // the spelling as written
  EXPECT_EQ(script.FindView("v2"), &script.views[1]);
  EXPECT_EQ(script.FindView("t"), nullptr);
  ASSERT_EQ(script.queries.size(), 1u);
  EXPECT_FALSE(script.queries[0].select["withClause"].is_null()) << "WITH before INSERT belongs to its SELECT";
}

TEST(SqlScript, FlinkOptionKeysAndWatermarkAreRead) {
  Script script = MustParse(
      "CREATE TABLE t (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)\n"
      "  WITH ('connector' = 'filesystem', 'format' = 'json', 'path' = '/in', 'max-files-per-trigger' = 3);\n");
  ASSERT_EQ(script.tables.size(), 1u);
  const TableDecl& t = script.tables[0];
  EXPECT_EQ(t.connector, "files");
  ASSERT_EQ(t.schema->num_fields(), 2) << "WATERMARK FOR is not a column";
  ASSERT_NE(t.Find("maxFilesPerTrigger"), nullptr);
  EXPECT_EQ(t.Find("maxFilesPerTrigger")->written_key, "max-files-per-trigger");
  ASSERT_NE(t.Find("eventTime"), nullptr);
  EXPECT_EQ(t.Find("eventTime")->value, "ts");
  ASSERT_NE(t.Find("watermark"), nullptr);
  EXPECT_EQ(t.Find("watermark")->value, "5 second");
}

TEST(SqlScript, FlinkKafkaAndFormatOptionsBecomeTheEngineOptions) {
  Script script = MustParse(
      "CREATE TABLE k () WITH ('connector' = 'kafka', 'topic' = 'clicks', 'properties.bootstrap.servers' = 'b:9092',\n"
      "  'scan.startup.mode' = 'earliest-offset', 'sink.delivery-guarantee' = 'at-least-once');\n"
      "CREATE TABLE c (id BIGINT) WITH ('connector' = 'filesystem', 'format' = 'csv', 'path' = '/in',\n"
      "  'csv.field-delimiter' = ';', 'csv.ignore-parse-errors' = 'true', 'csv.quote-character' = '''');\n");
  ASSERT_EQ(script.tables.size(), 2u);
  const TableDecl& k = script.tables[0];
  auto value = [](const TableDecl& t, const std::string& key) {
    const TableOption* o = t.Find(key);
    return o ? o->value : std::string("<missing>");
  };
  EXPECT_EQ(value(k, "topic"), "clicks");
  EXPECT_EQ(value(k, "kafka.bootstrap.servers"), "b:9092");
  EXPECT_EQ(value(k, "startingOffsets"), "earliest");
  EXPECT_EQ(value(k, "delivery.guarantee"), "at-least-once");
  EXPECT_EQ(k.Find("scan.startup.mode"), nullptr);
  const TableDecl& c = script.tables[1];
  EXPECT_EQ(value(c, "sep"), ";");
  EXPECT_EQ(value(c, "mode"), "DROPMALFORMED");
  EXPECT_EQ(value(c, "quote"), "'");
  ASSERT_NE(c.Find("sep"), nullptr);
  EXPECT_EQ(c.Find("sep")->written_key, "csv.field-delimiter");  // messages name what the file says
}

TEST(SqlScript, FlinkOptionsWithoutASluiceFeatureAreRefusedAtTheOption) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"CREATE TABLE k () WITH ('connector' = 'kafka', 'scan.startup.mode' = 'group-offsets');",
       "'scan.startup.mode' = 'group-offsets' is not available"},
      {"CREATE TABLE k () WITH ('connector' = 'kafka', 'scan.startup.mode' = 'timestamp');",
       "needs 'scan.startup.timestamp-millis'"},
      {"CREATE TABLE f (id BIGINT) WITH ('connector' = 'filesystem', 'format' = 'json', 'path' = '/in', "
       "'source.monitor-interval' = '10s');",
       "the trigger decides"},
      {"CREATE TABLE c (id BIGINT) WITH (connector = 'files', format = 'csv', path = '/in', sep = ',', "
       "'csv.field-delimiter' = ';');",
       "option 'csv.field-delimiter' sets 'sep', which 'sep' already sets"}};
  for (const auto& [sql, message] : cases) {
    auto script = ParseScript(SqlText("p.sql", sql));
    ASSERT_FALSE(script.ok()) << sql;
    EXPECT_THAT(script.status().message(), HasSubstr(message)) << sql;
    EXPECT_THAT(script.status().message(), HasSubstr("p.sql:1:")) << sql;
  }
}

TEST(SqlScript, NestedColumnTypesInSparkSpelling) {
  Script script = MustParse(
      "CREATE TABLE t (id BIGINT, tags ARRAY<STRING>, addr STRUCT<city: STRING, zip INT>,\n"
      "  m MAP<STRING, BIGINT>, deep array<struct<`a b`: DECIMAL(10, 2), ts: TIMESTAMP>>)\n"
      "  WITH (connector = 'files', format = 'json', path = '/in');\n");
  ASSERT_EQ(script.tables.size(), 1u);
  const auto& schema = *script.tables[0].schema;
  ASSERT_EQ(schema.num_fields(), 5);
  EXPECT_TRUE(schema.field(1)->type()->Equals(arrow::list(arrow::field("element", arrow::utf8()))));
  EXPECT_TRUE(schema.field(2)->type()->Equals(
      arrow::struct_({arrow::field("city", arrow::utf8()), arrow::field("zip", arrow::int32())})));
  EXPECT_TRUE(schema.field(3)->type()->Equals(arrow::map(arrow::utf8(), arrow::int64())));
  EXPECT_TRUE(schema.field(4)->type()->Equals(arrow::list(arrow::field(
      "element", arrow::struct_({arrow::field("a b", arrow::decimal128(10, 2)),
                                 arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))})))));
  EXPECT_EQ(schema.field(4)->name(), "deep");
}

TEST(SqlScript, NestedTypeMistakesArePointedAt) {
  for (const auto& [sql, message] : std::vector<std::pair<std::string, std::string>>{
           {"CREATE TABLE t (a ARRAY<STRNG>) WITH (connector = 'console');", "p.sql:1:25"},
           {"CREATE TABLE t (a STRUCT<x INT y INT>) WITH (connector = 'console');", "expected '>'"}}) {
    auto script = ParseScript(SqlText("p.sql", sql));
    ASSERT_FALSE(script.ok()) << sql;
    EXPECT_THAT(script.status().message(), HasSubstr(message)) << sql;
  }
}

TEST(SqlScript, EverySpellingOfADashedEngineOptionIsOneOption) {
  SqlText text("p.sql",
               "CREATE TABLE ice () WITH (connector = 'iceberg', table = 'db.t', target_file_size_bytes = 1024,\n"
               "  \"target-file-size-bytes\" = 2048);\n");
  auto script = ParseScript(text);
  ASSERT_FALSE(script.ok());
  EXPECT_THAT(script.status().message(), HasSubstr("option 'target-file-size-bytes' is given twice"));
  Script camel = MustParse("CREATE TABLE ice () WITH (connector = 'iceberg', targetFileSizeBytes = 10);\n");
  ASSERT_EQ(camel.tables.size(), 1u);
  ASSERT_EQ(camel.tables[0].options.size(), 1u);
  EXPECT_EQ(camel.tables[0].options[0].key, "target-file-size-bytes");
}

}  // namespace
}  // namespace sluice::sql
