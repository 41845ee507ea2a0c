// Errors point at the SQL: each names the thing at fault and its line:column in the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "sluice/sluice.h"
#include "sql/sql_pipeline.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::sql {
namespace {

using ::testing::HasSubstr;

struct ErrorCase {
  std::string name;
  std::string body;   // after the header (which is 2 lines)
  std::string where;  // "p.sql:L:C"
  std::vector<std::string> fragments;
};

class SqlErrorTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_.Sub("in")); }

  std::string Header() const {
    return "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE)\n"
           "  WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("in") + "');\n";
  }

  void Expect(const ErrorCase& c, bool with_header = true) {
    SqlText text("p.sql", (with_header ? Header() : "") + c.body);
    auto pipeline = CompilePipeline(Session::Make(), text, ExecutionMode::kStreaming);
    ASSERT_FALSE(pipeline.ok()) << c.name;
    const std::string& message = pipeline.status().message();
    EXPECT_EQ(message.rfind(c.where + ": ", 0), 0u) << c.name << ":\n" << message;
    for (const auto& f : c.fragments) EXPECT_THAT(message, HasSubstr(f)) << c.name << ": '" << f << "' in\n" << message;
  }

  // "p.sql:L:C" of the first `needle` in header + body (ASCII text).
  std::string WhereIs(const std::string& body, const std::string& needle) const {
    SqlText text("p.sql", Header() + body);
    return text.Where(static_cast<int>(text.text().find(needle)));
  }

  testing::TempDir dir_;
};

TEST_F(SqlErrorTest, UnknownNamesArePointedAt) {
  Expect({"unknown column", "SELECT id,\n  pricee FROM events;", "p.sql:4:3", {"'pricee'", "Available columns: [id, name, price]"}});
  Expect({"unknown column in WHERE", "SELECT id FROM events WHERE nam = 'a';", "p.sql:3:29", {"'nam'"}});
  Expect({"unknown table", "SELECT id FROM evnts;", "p.sql:3:16", {"unknown table 'evnts'", "Declared tables: events"}});
  Expect({"unknown sink table", "INSERT INTO nowhere SELECT id FROM events;", "p.sql:3:13", {"unknown table 'nowhere'"}});
  Expect({"unknown qualifier", "SELECT x.id FROM events;", "p.sql:3:8", {"unknown table 'x'", "events"}});
  Expect({"unknown function", "SELECT id, frobnicate(name) FROM events;", "p.sql:3:12",
          {"unknown function 'frobnicate'", "Available functions:", "upper"}});
  Expect({"wrong arity", "SELECT upper(name, name) FROM events;", "p.sql:3:8", {"'upper' takes 1 argument(s), got 2"}});
}

TEST_F(SqlErrorTest, ConnectorsAndOptionsArePointedAt) {
  Expect({"unknown connector", "CREATE TABLE k (v TEXT) WITH (connector = 'kinesis');", "p.sql:3:31",
          {"unknown connector 'kinesis'", "Available connectors: console, files, iceberg, kafka, memory, rate, rate-micro-batch, socket"}});
  Expect({"kafka option", "CREATE TABLE k () WITH (connector = 'kafka', bootstrap_servers = 'localhost:1', "
          "subscribe = 't',\n  starting_ofsets = 'earliest');\nSELECT CAST(value AS STRING) FROM k;",
          "p.sql:4:3", {"unknown option 'starting_ofsets'", "startingOffsets"}});
  Expect({"unknown option (snake_case as written)",
          "CREATE TABLE s (v TEXT) WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("in") +
              "',\n  max_files_per_trig = 2);\nSELECT v FROM s;",
          "p.sql:4:3", {"Unknown option 'max_files_per_trig'", "Valid options: maxFilesPerTrigger", "connector, format, path"}});
  const std::string bad_value = "CREATE TABLE s (v TEXT) WITH (connector = 'files', format = 'json', path = '" +
                                dir_.Sub("in") + "', max_files_per_trigger = 0);\nSELECT v FROM s;";
  Expect({"bad option value", bad_value, WhereIs(bad_value, "max_files_per_trigger"),
          {"'max_files_per_trigger'", "positive integer"}});
  Expect({"unknown sink option", "CREATE TABLE o () WITH (connector = 'console', colour = 'red');\nINSERT INTO o SELECT id FROM events;",
          "p.sql:3:48", {"Unknown option 'colour'", "numRows"}});
  Expect({"missing path", "CREATE TABLE o () WITH (connector = 'files', format = 'json');\nINSERT INTO o SELECT id FROM events;",
          "p.sql:3:14", {"needs option 'path'"}});
}

TEST_F(SqlErrorTest, TypeMismatchesArePointedAt) {
  Expect({"operator types", "SELECT id FROM events WHERE name + 1 > 2;", "p.sql:3:34", {"'+'", "string"}});
  Expect({"non-boolean WHERE", "SELECT id FROM events WHERE name;", "p.sql:3:29", {"must be boolean", "string"}});
  Expect({"sink column type",
          "CREATE TABLE o (id BIGINT, n BIGINT) WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("o") +
              "');\nINSERT INTO o SELECT id,\n name FROM events;",
          "p.sql:5:2", {"type mismatch", "'name' is string", "'n' bigint"}});
  Expect({"sink column count",
          "CREATE TABLE o (id BIGINT) WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("o") +
              "');\nINSERT INTO o SELECT id, name FROM events;",
          "p.sql:4:1", {"2 column(s)", "declares 1"}});
  Expect({"bad cast type", "SELECT CAST(id AS INTERVAL) FROM events;", "p.sql:3:19", {"INTERVAL values are only supported as window sizes"}});
  Expect({"LIKE needs a literal pattern", "SELECT id FROM events WHERE name LIKE name;", "p.sql:3:39",
          {"LIKE pattern must be a string literal"}});
}

TEST_F(SqlErrorTest, UnsupportedConstructsArePointedAt) {
  // ORDER BY and LIMIT plan (a stream refuses them outside complete mode when it starts); their
  // mistakes are pointed at.
  Expect({"order by a column not in the result", "SELECT id FROM events ORDER BY price;", "p.sql:3:32", {"'price'"}});
  Expect({"order by position", "SELECT id FROM events ORDER BY 2;", "p.sql:3:32",
          {"ORDER BY position 2 is not in the select list (1..1)"}});
  Expect({"negative limit", "SELECT id FROM events LIMIT -1;", "p.sql:3:29", {"LIMIT takes a non-negative integer"}});
  Expect({"offset", "SELECT id FROM events LIMIT 1 OFFSET 2;", "p.sql:3:38", {"OFFSET is not supported"}});
  Expect({"distinct on", "SELECT DISTINCT ON (id) id FROM events;", "p.sql:3:1", {"DISTINCT ON"}});
  Expect({"distinct star", "SELECT DISTINCT * FROM events;", "p.sql:3:17", {"SELECT DISTINCT * is not supported"}});
  Expect({"window struct", "SELECT window FROM events;", "p.sql:3:8",
          {"'window' is a reserved word", "window.start", "window_time(window) are not available"}});
  Expect({"subquery", "SELECT id FROM events WHERE id IN (SELECT 1);", "p.sql:3:32", {"subqueries are not supported"}});
  Expect({"constant subquery in FROM", "SELECT * FROM (SELECT 1) AS t;", "p.sql:3:23",
          {"a streaming query needs FROM <table>", "runs in sluice batch"}});
  Expect({"window function", "SELECT sum(price) OVER () FROM events;", "p.sql:3:8", {"window functions"}});
  Expect({"intersect all", "SELECT id FROM events INTERSECT ALL SELECT id FROM events;", "p.sql:3:44",
          {"INTERSECT ALL is not supported", "INTERSECT (which also removes duplicates) is"}});
  Expect({"no FROM", "SELECT 1;", "p.sql:3:1", {"needs FROM"}});
  Expect({"current_time", "SELECT id, CURRENT_TIME FROM events;", "p.sql:3:12", {"CURRENT_TIME", "current_timestamp()"}});
  Expect({"two queries into one sink",
          "CREATE TABLE o () WITH (connector = 'console');\nINSERT INTO o SELECT id FROM events;\n"
          "INSERT INTO o SELECT name FROM events;",
          "p.sql:5:13", {"table 'o' is already written by the INSERT at p.sql:4:13"}});
  Expect({"reading a sink", "CREATE TABLE o () WITH (connector = 'console');\nSELECT * FROM o;", "p.sql:4:15",
          {"table 'o'", "cannot be read"}});
  Expect({"syntax", "SELECT id FROM events WHERE;", "p.sql:3:28", {"syntax error"}});
}

TEST_F(SqlErrorTest, StructureAndDedupeErrorsArePointedAt) {
  Expect({"intersect", "SELECT id FROM events INTERSECT SELECT id FROM events;", "p.sql:3:40",
          {"INTERSECT on a stream is not supported", "LEFT SEMI JOIN", "sluice batch"}});
  Expect({"except", "SELECT id FROM events EXCEPT SELECT id FROM events;", "p.sql:3:37",
          {"EXCEPT on a stream is not supported", "LEFT ANTI JOIN"}});
  Expect({"union distinct order by", "SELECT id FROM events UNION SELECT id FROM events ORDER BY id;", "p.sql:3:60",
          {"ORDER BY or LIMIT after UNION is not supported"}});
  Expect({"union column count", "SELECT id, name FROM events UNION ALL SELECT id FROM events;", "p.sql:3:46",
          {"the first input has 2 columns", "the second has 1"}});
  Expect({"union column type", "SELECT id, name FROM events UNION ALL SELECT id, price FROM events;", "p.sql:3:46",
          {"column 2 is 'name' string in the first input but 'price' double in the second", "CAST"}});
  Expect({"union order by", "SELECT id FROM events UNION ALL SELECT id FROM events ORDER BY id;", "p.sql:3:64",
          {"wrap it in a subquery"}});
  Expect({"unknown view", "CREATE VIEW v AS SELECT id FROM events;\nSELECT * FROM w;", "p.sql:4:15",
          {"unknown table 'w'", "Declared tables: events; views: v"}});
  Expect({"view reads a later view", "CREATE VIEW a AS SELECT id FROM b;\nCREATE VIEW b AS SELECT id FROM events;\n"
          "SELECT * FROM a;", "p.sql:3:33", {"unknown table 'b'", "(in view a, used at p.sql:5:15)"}});
  Expect({"insert into a view", "CREATE VIEW v AS SELECT id FROM events;\nINSERT INTO v SELECT id FROM events;",
          "p.sql:4:13", {"'v' is a view, which cannot be written"}});
  Expect({"view named like a table", "CREATE VIEW events AS SELECT 1;", "p.sql:3:13", {"'events' is already declared"}});
  Expect({"recursive cte", "WITH RECURSIVE r AS (SELECT id FROM events) SELECT * FROM r;", "p.sql:3:1",
          {"WITH RECURSIVE is not supported"}});
  Expect({"cte twice", "WITH a AS (SELECT id FROM events), a AS (SELECT id FROM events) SELECT * FROM a;",
          "p.sql:3:36", {"WITH names 'a' twice"}});
  Expect({"qualify rank", "SELECT id FROM events QUALIFY rank() OVER (PARTITION BY id ORDER BY price) = 1;",
          "p.sql:3:31", {"window function 'rank' is not supported in QUALIFY"}});
  Expect({"qualify other comparison", "SELECT id FROM events QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY price) <= 1;",
          "p.sql:3:82", {"QUALIFY supports one form"}});
  Expect({"qualify desc", "SELECT id FROM events QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY price DESC) = 1;",
          "p.sql:3:75", {"ORDER BY ... DESC", "max_by"}});
  Expect({"qualify without partition", "SELECT id FROM events QUALIFY ROW_NUMBER() OVER (ORDER BY price) = 1;",
          "p.sql:3:31", {"needs PARTITION BY the key columns"}});
  Expect({"qualify unknown key", "SELECT id FROM events QUALIFY ROW_NUMBER() OVER (PARTITION BY idd ORDER BY price) = 1;",
          "p.sql:3:63", {"column 'idd' is not an input column", "Columns: id, name, price"}});
  Expect({"rank in subquery", "SELECT * FROM (SELECT id, rank() OVER (PARTITION BY id ORDER BY price) AS r FROM events) t "
          "WHERE r = 1;", "p.sql:3:27", {"window functions (rank(...) OVER ...) are not supported", "QUALIFY ROW_NUMBER()"}});
  Expect({"group by all with star", "SELECT *, count(*) FROM events GROUP BY ALL;", "p.sql:3:8",
          {"GROUP BY ALL with SELECT * is not supported"}});
  Expect({"describe in a stream", "DESCRIBE events;", "p.sql:3:1", {"DESCRIBE runs in sluice batch"}});
  Expect({"desc in a stream", "DESC events;", "p.sql:3:1", {"DESCRIBE runs in sluice batch"}});
  Expect({"generator alias list too short", "SELECT id, posexplode(split(name, ',')) AS (p) FROM events;", "p.sql:3:41",
          {"posexplode produces 2 column(s) (pos, col) but AS (...) names 1"}});
  Expect({"user as a column", "SELECT id, user FROM events;", "p.sql:3:12", {"quote it, e.g. \"user\""}});
  Expect({"reserved word", "CREATE TABLE u (user TEXT) WITH (connector = 'console');", "p.sql:3:17",
          {"syntax error", "'user' is a reserved word", "quote it (\"user\")"}});
}

TEST_F(SqlErrorTest, FlinkSpellingsAreReadOrPointedAt) {
  Expect({"dotted flink option refused by name", "CREATE TABLE o () WITH ('connector' = 'filesystem', 'format' = 'json', "
          "'path' = '/tmp/x', 'sink.rolling-policy.file-size' = '1MB');\nINSERT INTO o SELECT id FROM events;",
          "p.sql:3:91", {"Unknown option 'sink.rolling-policy.file-size'"}});
  Expect({"bad WATERMARK FOR", "CREATE TABLE w (id BIGINT, ts TIMESTAMP, WATERMARK FOR ts AS ts + 5)\n"
          "  WITH (connector = 'files', format = 'json', path = '/tmp/x');\nSELECT id FROM w;",
          "p.sql:3:42", {"unsupported WATERMARK FOR expression"}});
}

TEST_F(SqlErrorTest, AggregationErrorsArePointedAt) {
  Expect({"non-grouped column", "SELECT name, count(*),\n  price FROM events GROUP BY name;", "p.sql:4:3",
          {"Column 'price' must appear in the GROUP BY clause or be used in an aggregate function"}});
  Expect({"non-grouped column inside an expression", "SELECT name, price * 2 FROM events GROUP BY name;", "p.sql:3:14",
          {"'price' must appear in the GROUP BY clause"}});
  Expect({"non-grouped column in HAVING", "SELECT name FROM events GROUP BY name HAVING price > 1;", "p.sql:3:46",
          {"'price' must appear in the GROUP BY clause"}});
  Expect({"aggregate in WHERE", "SELECT name FROM events WHERE sum(price) > 1 GROUP BY name;", "p.sql:3:31",
          {"aggregate functions are not allowed in WHERE", "HAVING"}});
  Expect({"aggregate in GROUP BY", "SELECT count(*) FROM events GROUP BY count(*);", "p.sql:3:38",
          {"aggregate functions are not allowed in GROUP BY"}});
  Expect({"nested aggregates", "SELECT name, max(count(*)) FROM events GROUP BY name;", "p.sql:3:18",
          {"cannot be nested", "count(1)"}});
  Expect({"unknown aggregate", "SELECT name, median(price) FROM events GROUP BY name;", "p.sql:3:14",
          {"aggregate function 'median' is not supported", "count(DISTINCT x), sum, avg", "stddev", "percentile_approx"}});
  Expect({"DISTINCT in stddev", "SELECT stddev(DISTINCT price) FROM events;", "p.sql:3:8",
          {"stddev(DISTINCT ...) is not supported", "count, sum and avg"}});
  Expect({"max_by arity", "SELECT max_by(name) FROM events;", "p.sql:3:8", {"'max_by' takes 2 argument(s), got 1"}});
  Expect({"percentile out of range", "SELECT percentile_approx(price, 1.5) FROM events;", "p.sql:3:8",
          {"percentage must be between 0.0 and 1.0", "1.5"}});
  Expect({"percentile of a column", "SELECT percentile_approx(price, price) FROM events;", "p.sql:3:8",
          {"percentage must be a numeric literal"}});
  Expect({"percentile array out of range", "SELECT percentile_approx(price, array(0.5, 1.5)) FROM events;", "p.sql:3:8",
          {"percentage must be between 0.0 and 1.0, but it is 1.5"}});
  Expect({"percentile array of a column", "SELECT percentile_approx(price, array(0.5, price)) FROM events;",
          "p.sql:3:8", {"each percentage in array(0.5, price) must be a numeric literal, but it is price"}});
  Expect({"percentile array with a NULL", "SELECT percentile_approx(price, array(0.5, NULL)) FROM events;",
          "p.sql:3:8", {"must be a numeric literal, but it is NULL"}});
  Expect({"approx_count_distinct rsd too large", "SELECT approx_count_distinct(name, 0.5) FROM events;", "p.sql:3:8",
          {"at least 4 bits", "at most 0.39"}});
  Expect({"LIKE ESCAPE before another character", "SELECT name FROM events WHERE name LIKE 'a!b' ESCAPE '!';",
          "p.sql:3:41", {"escape character '!' must be followed by _, % or itself"}});
  Expect({"sum(*)", "SELECT sum(*) FROM events;", "p.sql:3:8", {"only count(*) takes *"}});
  Expect({"aggregate of a string", "SELECT avg(name) FROM events;", "p.sql:3:8", {"avg() needs a numeric argument"}});
  Expect({"unknown column in an aggregate", "SELECT sum(pricee) FROM events;", "p.sql:3:12", {"'pricee'", "price"}});
  Expect({"star with GROUP BY", "SELECT * FROM events GROUP BY name;", "p.sql:3:8", {"SELECT *"}});
  Expect({"GROUP BY position out of range", "SELECT name FROM events GROUP BY 2;", "p.sql:3:34",
          {"GROUP BY position 2 is not in the select list"}});
  Expect({"GROUP BY an aggregate position", "SELECT count(*) FROM events GROUP BY 1;", "p.sql:3:38",
          {"refers to an aggregate"}});
  Expect({"unknown GROUP BY column", "SELECT count(*) FROM events GROUP BY nme;", "p.sql:3:38", {"'nme'"}});
  Expect({"ROLLUP", "SELECT name, count(*) FROM events GROUP BY ROLLUP (name);", "p.sql:3:44", {"ROLLUP"}});
  Expect({"FILTER on first", "SELECT first(price) FILTER (WHERE price > 1) FROM events;", "p.sql:3:8",
          {"FILTER (WHERE ...) is not supported on first()"}});
  Expect({"FILTER on a scalar function", "SELECT upper(name) FILTER (WHERE price > 1) FROM events;", "p.sql:3:8",
          {"only allowed on aggregate functions"}});
  Expect({"moments of a string", "SELECT stddev(name) FROM events;", "p.sql:3:8", {"stddev() needs a numeric argument"}});
}

class SqlWindowErrorTest : public SqlErrorTest {
 protected:
  std::string Table(const std::string& columns, const std::string& options) const {
    return "CREATE TABLE events (" + columns + ")\n  WITH (connector = 'files', format = 'json', path = '" +
           dir_.Sub("in") + "'" + options + ");\n";
  }
};

TEST_F(SqlWindowErrorTest, WindowAndWatermarkErrorsArePointedAt) {
  const std::string t = Table("id BIGINT, name TEXT, ts TIMESTAMP, label TEXT", ", event_time = 'ts', watermark = '1 minute'");
  Expect({"window outside GROUP BY", t + "SELECT tumble(ts, INTERVAL '1 minute') FROM events;", "p.sql:3:8",
          {"window functions (tumble, hop, session) can only be used in GROUP BY"}}, false);
  Expect({"window in WHERE", t + "SELECT id FROM events WHERE tumble(ts, '1 minute') IS NULL;", "p.sql:3:29",
          {"can only be used in GROUP BY"}}, false);
  Expect({"window inside a GROUP BY expression", t + "SELECT count(*) FROM events GROUP BY coalesce(tumble(ts, '1 minute'));",
          "p.sql:3:47", {"GROUP BY item of its own"}}, false);
  Expect({"two windows", t + "SELECT count(*) FROM events GROUP BY tumble(ts, '1 minute'), session(ts, '1 minute');",
          "p.sql:3:62", {"only one window function"}}, false);
  Expect({"window_start without a window", t + "SELECT name,\n window_start, count(*) FROM events GROUP BY name;",
          "p.sql:4:2", {"window_start needs an event-time window in GROUP BY", "tumble(ts, INTERVAL"}}, false);
  Expect({"window size not an interval", t + "SELECT count(*) FROM events GROUP BY tumble(ts, 10);", "p.sql:3:49",
          {"interval literal such as INTERVAL '10 minutes'"}}, false);
  Expect({"bad window size", t + "SELECT count(*) FROM events GROUP BY tumble(ts, INTERVAL '10 parsecs');", "p.sql:3:38",
          {"10 parsecs"}}, false);
  Expect({"window over a non-timestamp", t + "SELECT count(*) FROM events GROUP BY tumble(label, INTERVAL '1 minute');",
          "p.sql:3:38", {"needs a timestamp time column", "label"}}, false);
  Expect({"INTERVAL as a value", t + "SELECT id, INTERVAL '1 hour' AS i FROM events;", "p.sql:3:12",
          {"INTERVAL values are only supported as window sizes"}}, false);
  Expect({"OVER", t + "SELECT count(*) OVER () FROM events;", "p.sql:3:8", {"GROUP BY tumble"}}, false);

}

TEST_F(SqlWindowErrorTest, EventTimeOptionsAreChecked) {
  auto where = [&](const std::string& sql, const std::string& needle) {
    SqlText text("p.sql", sql);
    return text.Where(static_cast<int>(sql.find(needle)));
  };
  std::string sql = Table("ts TIMESTAMP", ", event_time = 'ts'") + "SELECT ts FROM events;";
  Expect({"event_time without watermark", sql, where(sql, "event_time"), {"'event_time' needs option 'watermark'"}}, false);
  sql = Table("ts TIMESTAMP", ", watermark = '10 seconds'") + "SELECT ts FROM events;";
  Expect({"watermark without event_time", sql, where(sql, "watermark"), {"'watermark' needs option 'event_time'"}}, false);
  sql = Table("ts TEXT", ", event_time = 'ts', watermark = '10 seconds'") + "SELECT ts FROM events;";
  Expect({"event time declared TEXT", sql, where(sql, "event_time"),
          {"column 'ts' of table 'events' is string", "declare it as ts TIMESTAMP"}}, false);
  sql = Table("ts TIMESTAMP", ", event_time = 'tss', watermark = '10 seconds'") + "SELECT ts FROM events;";
  Expect({"unknown event-time column", sql, where(sql, "event_time"), {"'tss'", "Columns: ts"}}, false);
  sql = Table("ts TIMESTAMP", ", event_time = 'ts', watermark = 'ten seconds'") + "SELECT ts FROM events;";
  Expect({"bad watermark delay", sql, where(sql, "watermark"), {"ten seconds"}}, false);
}

}  // namespace
}  // namespace sluice::sql
