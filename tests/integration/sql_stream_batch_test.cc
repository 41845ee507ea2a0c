// "A streaming query is the query you would write on a static table": the same SQL run as a
// stream (availableNow, one file per batch) and as a batch job gives the same rows.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "integration/test_util.h"
#include "sql/sql_pipeline.h"

namespace sluice::testing {
namespace {

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

// Every row as text, sorted: an order-free comparison of two results.
std::vector<std::string> SortedRows(const std::shared_ptr<arrow::Table>& table) {
  std::vector<std::string> rows;
  if (!table) return rows;
  for (int64_t r = 0; r < table->num_rows(); ++r) {
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

class SqlStreamBatchTest : public ::testing::TestWithParam<std::string> {};

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
  sql::StreamOptions options;
  options.checkpoint_root = dir.Sub("ckpt");
  options.trigger = AvailableNow();
  ASSERT_OK_AND_ASSIGN(auto query, sql::StartStreamingQuery(stream_pipeline.queries.at(0), options));
  ASSERT_OK(query.awaitTermination());
  EXPECT_NE(query.lastProgress().find("\"batchId\":4"), std::string::npos) << "one file per batch: 5 batches";

  auto batch_session = Session::Make();
  sql::SqlText batch_sql("batch.sql", pipeline_text(dir.Sub("batch_out")));
  ASSERT_OK_AND_ASSIGN(auto batch_pipeline, sql::CompilePipeline(batch_session, batch_sql, sql::ExecutionMode::kBatch));
  ASSERT_OK_AND_ASSIGN(auto outcome, sql::RunBatchQuery(batch_pipeline.queries.at(0), "error", /*write_files=*/true));
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

TEST_P(SqlStreamBatchTest, StreamingResultEqualsBatchResult) { ExpectStreamEqualsBatch(GetParam()); }

INSTANTIATE_TEST_SUITE_P(
    Queries, SqlStreamBatchTest,
    ::testing::Values(
        "SELECT * FROM events",
        "SELECT id, upper(name) AS u FROM events WHERE price > 5",
        "SELECT id, price * 2 + 1 AS p, id % 3 AS m, -price AS neg, id / 4 AS q FROM events",
        "SELECT id, CASE WHEN price >= 20 THEN 'high' WHEN price >= 5 THEN 'mid' ELSE 'low' END AS band FROM events",
        "SELECT id, name FROM events WHERE name IS NULL OR name LIKE 'n1%'",
        "SELECT id, coalesce(name, 'anon') AS n, id IN (1, 5, 9) AS picked FROM events WHERE price IS NOT NULL",
        "SELECT concat(name, '#', CAST(id AS STRING)) AS tag, substring(name, 1, 2) AS pre, length(name) AS len, "
        "lower(trim(name)) AS l FROM events",
        "SELECT id, date_trunc('hour', ts) AS h, year(ts) AS y, hour(ts) AS hr, minute(ts) AS mi, dayofweek(ts) AS dw, "
        "EXTRACT(day FROM ts) AS d FROM events",
        "SELECT id, CAST(price AS INT) AS pi, price::DECIMAL(10, 2) AS pd FROM events WHERE price BETWEEN 2 AND 20",
        "SELECT id FROM events WHERE NOT (id = 3) AND id <> 4 AND id NOT IN (7, 8) AND name NOT LIKE '%9'",
        "SELECT id, to_timestamp(ts_text, 'yyyy-MM-dd HH:mm:ss') AS parsed, ts_text FROM events WHERE id % 2 = 0",
        "SELECT id, name || '!' AS shout, CASE id % 2 WHEN 0 THEN 'even' ELSE 'odd' END AS parity FROM events e "
        "WHERE e.price < 25 OR e.name IS NULL"));

}  // namespace
}  // namespace sluice::testing
