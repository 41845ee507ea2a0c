// `sluice run` over the rate-micro-batch source: a kill -9 in the middle of a run and a redo
// give exactly the rows the source defines for its offsets; idle triggers reach --progress.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "integration/test_util.h"

namespace sluice::testing {
namespace {

TEST(CliRate, KillNineThenRestartGivesExactlyTheRowsOfTheRecordedOffsets) {
  TempDir dir;
  std::string sql = WriteText(dir.Sub("rate.sql"),
                              "CREATE TABLE ticks () WITH (connector = 'rate-micro-batch', rows_per_batch = '10',\n"
                              "  start_timestamp = '1700000000000', advance_millis_per_batch = '1000');\n"
                              "CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '" +
                                  dir.Sub("out") + "');\n"
                              "INSERT INTO out SELECT value, \"timestamp\" AS ts FROM ticks;\n");
  std::string run = ToolPath("sluice") + " run " + sql + " --checkpoint " + dir.Sub("ckpt");
  // Runs back to back until SIGKILL lands somewhere in a batch.
  int rc = RunCommand("timeout --foreground -s KILL 1 " + run + " --trigger processing-time=5ms >/dev/null 2>" + dir.Sub("err1"));
  ASSERT_EQ(rc, 137) << ReadText(dir.Sub("err1"));
  // The restart re-runs an uncommitted batch (if the kill left one) with its recorded offsets.
  ASSERT_EQ(RunCommand(run + " --trigger once >/dev/null 2>" + dir.Sub("err2")), 0) << ReadText(dir.Sub("err2"));
  auto rows = ReadSinkDir(dir.Sub("out"));
  ASSERT_NE(rows, nullptr);
  auto values = SortedInts(rows, "value");
  ASSERT_FALSE(values.empty());
  ASSERT_EQ(values.size() % 10, 0u);
  EXPECT_EQ(values, Range(0, static_cast<int64_t>(values.size())));  // no gap, no duplicate
  // Timestamps are a function of the value alone: batch start + even spread over the advance.
  auto ts = rows->GetColumnByName("ts");
  auto val = rows->GetColumnByName("value");
  for (int c = 0; c < val->num_chunks(); ++c) {
    auto v = std::static_pointer_cast<arrow::Int64Array>(val->chunk(c));
    auto t = std::static_pointer_cast<arrow::TimestampArray>(ts->chunk(c));
    for (int64_t i = 0; i < v->length(); ++i) {
      int64_t expected_ms = 1700000000000 + (v->Value(i) / 10) * 1000 + (v->Value(i) % 10) * 100;
      ASSERT_EQ(t->Value(i) / 1000, expected_ms) << "value " << v->Value(i);
    }
  }
}

TEST(CliRate, IdleTriggersAreWrittenToTheProgressFile) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "a.json", JsonRows(0, 3));
  std::string sql = WriteText(dir.Sub("p.sql"),
                              "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE) WITH (connector = 'files', "
                              "format = 'json', path = '" + dir.Sub("in") + "');\n"
                              "CREATE TABLE out () WITH (connector = 'memory');\n"
                              "INSERT INTO out SELECT id FROM events;\n");
  std::string cmd = "timeout --preserve-status -s INT 1 " + ToolPath("sluice") + " run " + sql + " --checkpoint " + dir.Sub("ckpt") +
                    " --trigger processing-time=20ms --conf sluice.sql.streaming.noDataProgressEventInterval=100 " +
                    "--progress " + dir.Sub("progress.jsonl") + " >/dev/null 2>" + dir.Sub("err");
  ASSERT_EQ(RunCommand(cmd), 0) << ReadText(dir.Sub("err"));  // SIGINT stops gracefully
  std::istringstream lines(ReadText(dir.Sub("progress.jsonl")));
  int batches = 0, idle = 0;
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.value("event", "") == "QueryIdleEvent") {
      ++idle;
      EXPECT_TRUE(j.contains("runId"));
    } else {
      ++batches;
      EXPECT_EQ(j["numInputRows"], 3);
    }
  }
  EXPECT_EQ(batches, 1);
  EXPECT_GE(idle, 1);
}

}  // namespace
}  // namespace sluice::testing
