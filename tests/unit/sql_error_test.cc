// Errors point at the SQL: each names the thing at fault and its line:column in the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "sluice/sluice.h"
#include "sql/sql_pipeline.h"
#include "support/temp_dir.h"

namespace sluice::sql {
namespace {

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
    for (const auto& f : c.fragments) EXPECT_NE(message.find(f), std::string::npos) << c.name << ": '" << f << "' in\n" << message;
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
          {"unknown connector 'kinesis'", "Available connectors: console, files, iceberg, memory, rate, rate-micro-batch, socket"}});
  for (const char* planned : {"kafka"}) {
    Expect({planned, std::string("CREATE TABLE k (v TEXT) WITH (connector = '") + planned + "');", "p.sql:3:31",
            {std::string("connector '") + planned + "' is not available yet"}});
  }
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
  const std::string watermark = "CREATE TABLE s (ts TIMESTAMP) WITH (connector = 'files', format = 'json', path = '" +
                                dir_.Sub("in") + "', event_time = 'ts', watermark = '10 seconds');\nSELECT ts FROM s;";
  Expect({"event time not yet", watermark, WhereIs(watermark, "event_time"), {"'event_time' is not available yet"}});
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
  Expect({"bad cast type", "SELECT CAST(id AS INTERVAL) FROM events;", "p.sql:3:19", {"Unknown type 'interval'"}});
  Expect({"LIKE needs a literal pattern", "SELECT id FROM events WHERE name LIKE name;", "p.sql:3:39",
          {"LIKE pattern must be a string literal"}});
}

TEST_F(SqlErrorTest, UnsupportedConstructsArePointedAt) {
  Expect({"join", "SELECT * FROM events a JOIN events b ON a.id = b.id;", "p.sql:3:29", {"JOIN is not supported"}});
  Expect({"group by", "SELECT name FROM events\nGROUP BY name;", "p.sql:4:10", {"GROUP BY is not supported"}});
  Expect({"aggregate", "SELECT count(*) FROM events;", "p.sql:3:8", {"aggregate function 'count'"}});
  Expect({"order by", "SELECT id FROM events ORDER BY id;", "p.sql:3:32", {"ORDER BY is not supported"}});
  Expect({"limit", "SELECT id FROM events LIMIT 5;", "p.sql:3:29", {"LIMIT"}});
  Expect({"distinct", "SELECT DISTINCT id FROM events;", "p.sql:3:1", {"DISTINCT"}});
  Expect({"subquery", "SELECT id FROM events WHERE id IN (SELECT 1);", "p.sql:3:32", {"subqueries are not supported"}});
  Expect({"subquery in FROM", "SELECT * FROM (SELECT 1) AS t;", "p.sql:3:23", {"subqueries in FROM"}});
  Expect({"window function", "SELECT sum(price) OVER () FROM events;", "p.sql:3:8", {"window functions"}});
  Expect({"union", "SELECT id FROM events UNION SELECT id FROM events;", "p.sql:3:44", {"UNION"}});
  Expect({"no FROM", "SELECT 1;", "p.sql:3:1", {"needs FROM"}});
  Expect({"now()", "SELECT id, CURRENT_TIMESTAMP FROM events;", "p.sql:3:12", {"current date/time"}});
  Expect({"two queries into one sink",
          "CREATE TABLE o () WITH (connector = 'console');\nINSERT INTO o SELECT id FROM events;\n"
          "INSERT INTO o SELECT name FROM events;",
          "p.sql:5:13", {"table 'o' is already written by the INSERT at p.sql:4:13"}});
  Expect({"reading a sink", "CREATE TABLE o () WITH (connector = 'console');\nSELECT * FROM o;", "p.sql:4:15",
          {"table 'o'", "cannot be read"}});
  Expect({"syntax", "SELECT id FROM events WHERE;", "p.sql:3:28", {"syntax error"}});
}

}  // namespace
}  // namespace sluice::sql
