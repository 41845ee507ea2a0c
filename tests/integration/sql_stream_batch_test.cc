// "A streaming query is the query you would write on a static table": the same SQL run as a
// stream (availableNow, one file per batch) and as a batch job gives the same rows. For
// aggregations in complete mode, the memory table after the last batch equals the batch
// answer; in append mode (event-time windows over a watermark) the stream emitted exactly the
// batch result's windows that the final watermark closed, each once.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "integration/test_util.h"
#include "cli/pipeline_launch.h"
#include "sql/sql_pipeline.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

// 5 files x 8 rows: ids 0..39, some null names and prices, timestamps as text and as TIMESTAMP.
void WriteEvents(const std::string& dir) {
  for (int f = 0; f < 5; ++f) {
    std::string lines;
    for (int i = f * 8; i < (f + 1) * 8; ++i) {
      std::string name = i % 7 == 3 ? "null" : "\"n" + std::to_string(i) + "\"";
      std::string price = i % 11 == 5 ? "null" : std::to_string(i * 0.75);
      char ts[32];
      std::snprintf(ts, sizeof(ts), "2024-03-%02d %02d:%02d:00", 1 + i % 28, i % 24, (i * 7) % 60);
      lines += "{\"id\":" + std::to_string(i) + ",\"name\":" + name + ",\"price\":" + price + ",\"ts\":\"" + ts +
               "\",\"ts_text\":\"" + ts + "\"}\n";
    }
    WriteInputFile(dir, "events-" + std::to_string(f) + ".json", lines);
  }
}

// Rows as text, sorted; rows whose `window_end` is after `max_window_end_us` are left out.
std::vector<std::string> SortedRows(const std::shared_ptr<arrow::Table>& table,
                                    int64_t max_window_end_us = INT64_MAX) {
  std::vector<std::string> rows;
  if (!table) return rows;
  const int end_column = table->schema()->GetFieldIndex("window_end");
  for (int64_t r = 0; r < table->num_rows(); ++r) {
    if (end_column >= 0) {
      auto end = table->column(end_column)->GetScalar(r);
      if (end.ok() && (*end)->is_valid &&
          static_cast<const arrow::TimestampScalar&>(**end).value > max_window_end_us) {
        continue;
      }
    }
    std::string row;
    for (int c = 0; c < table->num_columns(); ++c) {
      auto scalar = table->column(c)->GetScalar(r);
      row += (c ? " | " : "") + (scalar.ok() ? (*scalar)->ToString() : std::string("?"));
    }
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// A query of a parameterized suite: `name` names the ctest entry, `sql` is the SELECT.
struct SqlCase {
  const char* name;
  const char* sql;
};
void PrintTo(const SqlCase& c, std::ostream* os) { *os << c.sql; }
std::string CaseName(const ::testing::TestParamInfo<SqlCase>& info) { return info.param.name; }

class SqlStreamBatchTest : public ::testing::TestWithParam<SqlCase> {};

// Runs `select` (over table `events`) into a parquet sink, as a stream and as a batch job.
void ExpectStreamEqualsBatch(const std::string& select) {
  TempDir dir;
  WriteEvents(dir.Sub("in"));
  auto pipeline_text = [&](const std::string& out) {
    return "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE, ts TIMESTAMP, ts_text TEXT)\n"
           "  WITH (connector = 'files', format = 'json', path = '" + dir.Sub("in") + "', max_files_per_trigger = 1);\n"
           "CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '" + out + "');\n"
           "INSERT INTO out " + select + ";\n";
  };

  auto stream_session = Session::Make();
  sql::SqlText stream_sql("stream.sql", pipeline_text(dir.Sub("stream_out")));
  ASSERT_OK_AND_ASSIGN(auto stream_pipeline, sql::CompilePipeline(stream_session, stream_sql, sql::ExecutionMode::kStreaming));
  cli::StreamOptions options;
  options.checkpoint_root = dir.Sub("ckpt");
  options.trigger = AvailableNow();
  ASSERT_OK_AND_ASSIGN(auto query, cli::StartStreamingQuery(stream_pipeline.queries.at(0), options));
  ASSERT_OK(query.awaitTermination());
  EXPECT_THAT(query.lastProgress(), HasSubstr("\"batchId\":4")) << "one file per batch: 5 batches";

  auto batch_session = Session::Make();
  sql::SqlText batch_sql("batch.sql", pipeline_text(dir.Sub("batch_out")));
  ASSERT_OK_AND_ASSIGN(auto batch_pipeline, sql::CompilePipeline(batch_session, batch_sql, sql::ExecutionMode::kBatch));
  ASSERT_OK_AND_ASSIGN(auto outcome, cli::RunBatchQuery(batch_pipeline.queries.at(0), "error", /*write_files=*/true));
  EXPECT_TRUE(outcome.written);

  auto streamed = ReadSinkDir(dir.Sub("stream_out"), "parquet");
  auto batched = ReadSinkDir(dir.Sub("batch_out"), "parquet");
  ASSERT_TRUE(streamed && batched);
  EXPECT_TRUE(streamed->schema()->Equals(*batched->schema()))
      << streamed->schema()->ToString() << "\nvs\n" << batched->schema()->ToString();
  auto stream_rows = SortedRows(streamed);
  EXPECT_FALSE(stream_rows.empty());
  EXPECT_EQ(stream_rows, SortedRows(batched)) << select;
}

TEST_P(SqlStreamBatchTest, StreamingResultEqualsBatchResult) { ExpectStreamEqualsBatch(GetParam().sql); }

INSTANTIATE_TEST_SUITE_P(
    Queries, SqlStreamBatchTest,
    ::testing::Values(
        SqlCase{"SelectStar", "SELECT * FROM events"},
        SqlCase{"UpperWithFilter", "SELECT id, upper(name) AS u FROM events WHERE price > 5"},
        SqlCase{"Arithmetic", "SELECT id, price * 2 + 1 AS p, id % 3 AS m, -price AS neg, id / 4 AS q FROM events"},
        SqlCase{"SearchedCase",
                "SELECT id, CASE WHEN price >= 20 THEN 'high' WHEN price >= 5 THEN 'mid' ELSE 'low' END AS band FROM "
                "events"},
        SqlCase{"IsNullOrLike", "SELECT id, name FROM events WHERE name IS NULL OR name LIKE 'n1%'"},
        SqlCase{"CoalesceAndIn",
                "SELECT id, coalesce(name, 'anon') AS n, id IN (1, 5, 9) AS picked FROM events WHERE price IS NOT "
                "NULL"},
        SqlCase{"StringFunctions",
                "SELECT concat(name, '#', CAST(id AS STRING)) AS tag, substring(name, 1, 2) AS pre, length(name) AS "
                "len, lower(trim(name)) AS l FROM events"},
        SqlCase{"TimeFunctions",
                "SELECT id, date_trunc('hour', ts) AS h, year(ts) AS y, hour(ts) AS hr, minute(ts) AS mi, "
                "dayofweek(ts) AS dw, EXTRACT(day FROM ts) AS d FROM events"},
        SqlCase{"Casts",
                "SELECT id, CAST(price AS INT) AS pi, price::DECIMAL(10, 2) AS pd FROM events WHERE price BETWEEN 2 "
                "AND 20"},
        SqlCase{"NegatedPredicates",
                "SELECT id FROM events WHERE NOT (id = 3) AND id <> 4 AND id NOT IN (7, 8) AND name NOT LIKE '%9'"},
        SqlCase{"ToTimestamp",
                "SELECT id, to_timestamp(ts_text, 'yyyy-MM-dd HH:mm:ss') AS parsed, ts_text FROM events WHERE id % 2 "
                "= 0"},
        SqlCase{"ConcatOperatorAndSimpleCase",
                "SELECT id, name || '!' AS shout, CASE id % 2 WHEN 0 THEN 'even' ELSE 'odd' END AS parity FROM "
                "events e WHERE e.price < 25 OR e.name IS NULL"}),
    CaseName);

// --- aggregations -----------------------------------------------------------------------

constexpr int kFiles = 5;
constexpr int kRowsPerFile = 8;
constexpr int64_t kBaseUs = 1709251200LL * 1000000;  // 2024-03-01 00:00:00 UTC
constexpr int64_t kMinuteUs = 60LL * 1000000;

// Row i's event time: every 7 minutes, with a 3-hour pause before row 20 (sessions close),
// and neighbours swapped inside a file (disorder well inside the 10-minute watermark delay).
int64_t EventTimeUs(int i) {
  int j = i % 2 == 0 ? i + 1 : i - 1;
  return kBaseUs + j * 7 * kMinuteUs + (j >= 20 ? 180 * kMinuteUs : 0);
}

std::string FormatTs(int64_t us) {
  time_t secs = static_cast<time_t>(us / 1000000);
  struct tm t;
  gmtime_r(&secs, &t);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &t);
  return buf;
}

// 5 files x 8 rows; names cycle through ada, bob, cy and null; some prices null.
void WriteTimedEvents(const std::string& dir) {
  for (int f = 0; f < kFiles; ++f) {
    std::string lines;
    for (int i = f * kRowsPerFile; i < (f + 1) * kRowsPerFile; ++i) {
      static const char* kNames[] = {"\"ada\"", "\"bob\"", "\"cy\"", "null"};
      std::string price = i % 9 == 4 ? "null" : std::to_string(i * 0.75);
      lines += "{\"id\":" + std::to_string(i) + ",\"name\":" + kNames[i % 4] + ",\"price\":" + price + ",\"ts\":\"" +
               FormatTs(EventTimeUs(i)) + "\"}\n";
    }
    WriteInputFile(dir, "events-" + std::to_string(f) + ".json", lines);
  }
}

std::string Pipeline(const std::string& in, const std::string& sink, const std::string& select) {
  return "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE, ts TIMESTAMP)\n"
         "  WITH (connector = 'files', format = 'json', path = '" + in + "', max_files_per_trigger = 1,\n"
         "        event_time = 'ts', watermark = '10 minutes');\n" +
         sink + "\nINSERT INTO out " + select + ";\n";
}

Result<std::shared_ptr<arrow::Table>> RunBatch(const std::string& sql) {
  sql::SqlText text("batch.sql", sql);
  ARROW_ASSIGN_OR_RAISE(auto pipeline, sql::CompilePipeline(Session::Make(), text, sql::ExecutionMode::kBatch));
  ARROW_ASSIGN_OR_RAISE(auto outcome, cli::RunBatchQuery(pipeline.queries.at(0), "error", /*write_files=*/false));
  return outcome.rows;
}

// Runs the only query of `sql` as a stream (availableNow, output `mode`) until it ends;
// returns its last progress.
Result<std::string> RunStream(const std::shared_ptr<Session>& session, const std::string& sql,
                              const std::string& checkpoint, const std::string& mode) {
  sql::SqlText text("stream.sql", sql);
  ARROW_ASSIGN_OR_RAISE(auto pipeline, sql::CompilePipeline(session, text, sql::ExecutionMode::kStreaming));
  cli::StreamOptions options;
  options.checkpoint_root = checkpoint;
  options.trigger = AvailableNow();
  options.output_mode = mode;
  ARROW_ASSIGN_OR_RAISE(auto query, cli::StartStreamingQuery(pipeline.queries.at(0), options));
  ARROW_RETURN_NOT_OK(query.awaitTermination());
  return query.lastProgress();
}

class SqlCompleteModeTest : public ::testing::TestWithParam<SqlCase> {};

TEST_P(SqlCompleteModeTest, LastCompleteResultEqualsBatchResult) {
  TempDir dir;
  WriteTimedEvents(dir.Sub("in"));
  const std::string sql = Pipeline(dir.Sub("in"), "CREATE TABLE out () WITH (connector = 'memory');", GetParam().sql);

  auto session = Session::Make();
  ASSERT_OK_AND_ASSIGN(std::string progress, RunStream(session, sql, dir.Sub("ckpt"), "complete"));
  // One file per batch: batches 0..4 (and a last batch without data when the watermark moved).
  EXPECT_GE(nlohmann::json::parse(progress)["batchId"].get<int64_t>(), 4) << progress;
  ASSERT_OK_AND_ASSIGN(auto streamed, session->memoryTable("out"));
  ASSERT_OK_AND_ASSIGN(auto batched, RunBatch(sql));
  auto rows = SortedRows(streamed);
  EXPECT_FALSE(rows.empty());
  EXPECT_EQ(rows, SortedRows(batched)) << GetParam().sql;
}

INSTANTIATE_TEST_SUITE_P(
    Queries, SqlCompleteModeTest,
    ::testing::Values(
        SqlCase{"GroupByName", "SELECT name, count(*) AS n, sum(price) AS total FROM events GROUP BY name"},
        SqlCase{"GlobalAggregates",
                "SELECT count(*) AS n, count(name) AS named, count(DISTINCT name) AS names, avg(price) AS a, min(ts) "
                "AS lo, max(ts) AS hi FROM events"},
        SqlCase{"GroupByOrdinalWithHaving",
                "SELECT id % 3 AS bucket, max(price) - min(price) AS spread, sum(price) / count(*) AS mean FROM "
                "events WHERE price IS NOT NULL GROUP BY 1 HAVING count(*) > 5"},
        SqlCase{"TumblingWindow",
                "SELECT window_start, window_end, count(*) AS n, sum(price) AS s FROM events GROUP BY tumble(ts, "
                "INTERVAL '1 hour')"},
        SqlCase{"HoppingWindowByExpression",
                "SELECT upper(name) AS who, window_start, count(*) AS n FROM events GROUP BY upper(name), hop(ts, "
                "INTERVAL '30 minutes', INTERVAL '1 hour')"},
        SqlCase{"FirstLastMinMax",
                "SELECT id % 4 AS k, first(id) AS f, last(id) AS l, min(name) AS lo, max(name) AS hi FROM events "
                "GROUP BY k"},
        SqlCase{"OrderByLimit",
                "SELECT name, count(*) AS n, sum(price) AS total FROM events GROUP BY name ORDER BY n DESC, name "
                "LIMIT 2"}),
    CaseName);

// A batch job sorts and limits too, in Spark's NULL order (ASC: NULLs first).
TEST(SqlBatchTest, OrderByAndLimitOrderTheRows) {
  TempDir dir;
  WriteTimedEvents(dir.Sub("in"));
  const std::string sql = Pipeline(dir.Sub("in"), "CREATE TABLE out () WITH (connector = 'memory');",
                                   "SELECT name, id FROM events WHERE id % 4 <> 1 ORDER BY name, id DESC LIMIT 12");
  ASSERT_OK_AND_ASSIGN(auto batched, RunBatch(sql));
  ASSERT_EQ(batched->num_rows(), 12);
  auto name = [&](int64_t i) { return batched->GetColumnByName("name")->GetScalar(i).ValueOrDie()->ToString(); };
  auto id = [&](int64_t i) { return batched->GetColumnByName("id")->GetScalar(i).ValueOrDie()->ToString(); };
  EXPECT_EQ(name(0), "null");  // ids 39, 35, ... (name null: id % 4 == 3)
  EXPECT_EQ(id(0), "39");
  EXPECT_EQ(id(1), "35");
  EXPECT_EQ(name(10), "ada");  // ids 36, 32, ...
  EXPECT_EQ(id(10), "36");
}

// Under ANSI (the default) a BIGINT sum that overflows fails a batch job as it fails a stream.
TEST(SqlBatchTest, BigintSumOverflowFailsUnderAnsi) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "big.json", "{\"id\":9223372036854775807}\n{\"id\":1}\n");
  const std::string select = "SELECT sum(id) AS total FROM events";
  auto failed = RunBatch(Pipeline(dir.Sub("in"), "CREATE TABLE out () WITH (connector = 'memory');", select));
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("[ARITHMETIC_OVERFLOW] long overflow in sum(id) AS total"));
  ASSERT_OK_AND_ASSIGN(auto wrapped, RunBatch("SET spark.sql.ansi.enabled = false;\n" +
                                              Pipeline(dir.Sub("in"), "CREATE TABLE out () WITH (connector = 'memory');",
                                                       select)));
  EXPECT_EQ(wrapped->column(0)->GetScalar(0).ValueOrDie()->ToString(), "-9223372036854775808");
}

class SqlAppendModeTest : public ::testing::TestWithParam<SqlCase> {};

// The final watermark is the latest event time minus the 10-minute delay; append mode has
// emitted exactly the windows ending at or before it.
TEST_P(SqlAppendModeTest, EmittedWindowsEqualTheBatchWindowsTheWatermarkClosed) {
  TempDir dir;
  WriteTimedEvents(dir.Sub("in"));
  const std::string sink = "CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '" +
                           dir.Sub("out") + "');";
  const std::string sql = Pipeline(dir.Sub("in"), sink, GetParam().sql);
  ASSERT_OK(RunStream(Session::Make(), sql, dir.Sub("ckpt"), "append").status());

  int64_t max_ts = 0;
  for (int i = 0; i < kFiles * kRowsPerFile; ++i) max_ts = std::max(max_ts, EventTimeUs(i));
  const int64_t final_watermark = max_ts - 10 * kMinuteUs;
  ASSERT_OK_AND_ASSIGN(auto batched, RunBatch(sql));
  auto expected = SortedRows(batched, final_watermark);
  auto streamed = SortedRows(ReadSinkDir(dir.Sub("out"), "parquet"));
  EXPECT_FALSE(expected.empty());
  EXPECT_LT(expected.size(), SortedRows(batched).size()) << "some windows stay open";
  EXPECT_EQ(streamed, expected) << GetParam().sql;
}

INSTANTIATE_TEST_SUITE_P(
    Queries, SqlAppendModeTest,
    ::testing::Values(
        SqlCase{"TumblingWindow",
                "SELECT window_start, window_end, count(*) AS n, sum(price) AS s FROM events GROUP BY tumble(ts, "
                "INTERVAL '30 minutes')"},
        SqlCase{"HoppingWindowWithHaving",
                "SELECT name, window_start, window_end, count(*) AS n, max(id) AS top FROM events GROUP BY name, "
                "hop(ts, INTERVAL '20 minutes', INTERVAL '1 hour') HAVING count(*) >= 2"},
        SqlCase{"SessionWindow",
                "SELECT name, window_start, window_end, count(*) AS n, min(id) AS first_id FROM events GROUP BY "
                "name, session(ts, INTERVAL '25 minutes')"}),
    CaseName);

}  // namespace
}  // namespace sluice::testing
