// `sluice run` with aggregations end to end: a windowed count with a watermark into a parquet
// sink survives stops, new files and kill -9 with exactly the windows of a never-stopped run;
// output modes and explain verdicts for aggregations.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "integration/test_util.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

// File f holds 5 events a minute apart from minute 5*f: event time only moves forward across
// files, so no row is ever late, and a 1-minute watermark closes the 3-minute windows behind it.
std::string EventsFile(int f) {
  std::string lines;
  for (int i = 0; i < 5; ++i) {
    int minute = 5 * f + i;
    char ts[32];
    std::snprintf(ts, sizeof(ts), "2024-05-01 %02d:%02d:30", 10 + minute / 60, minute % 60);
    lines += "{\"who\":\"u" + std::to_string(i % 2) + "\",\"ts\":\"" + ts + "\"}\n";
  }
  return lines;
}

class CliStatefulTest : public ::testing::Test {
 protected:
  std::string WritePipeline(const std::string& root, const std::string& extra_options = "") {
    std::string path = root + "/pipeline.sql";
    std::filesystem::create_directories(root);
    std::ofstream(path) << "CREATE TABLE clicks (who TEXT, ts TIMESTAMP)\n"
                           "  WITH (connector = 'files', format = 'json', path = '" + root + "/in'" + extra_options +
                               ",\n        event_time = 'ts', watermark = '1 minute');\n"
                           "CREATE TABLE counts () WITH (connector = 'files', format = 'parquet', path = '" + root +
                               "/out');\n"
                           "INSERT INTO counts\n"
                           "SELECT window_start, window_end, who, count(*) AS n\n"
                           "FROM clicks GROUP BY tumble(ts, INTERVAL '3 minutes'), who;\n";
    return path;
  }
  int Sluice(const std::string& args) {
    return RunCommand(ToolPath("sluice") + " " + args + " >" + dir_.Sub("stdout.txt") + " 2>" + dir_.Sub("stderr.txt"));
  }
  std::string Stderr() { return ReadText(dir_.Sub("stderr.txt")); }
  std::string Stdout() { return ReadText(dir_.Sub("stdout.txt")); }

  // "window_start | window_end | who | n" per output row, sorted.
  static std::vector<std::string> Windows(const std::string& out) {
    std::vector<std::string> rows;
    auto table = ReadSinkDir(out, "parquet");
    if (!table) return rows;
    for (int64_t r = 0; r < table->num_rows(); ++r) {
      std::string row;
      for (const char* c : {"window_start", "window_end", "who", "n"}) {
        auto s = table->GetColumnByName(c)->GetScalar(r);
        row += (row.empty() ? "" : " | ") + (s.ok() ? (*s)->ToString() : std::string("?"));
      }
      rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  TempDir dir_;
};

TEST_F(CliStatefulTest, WindowedCountSurvivesRestartsAndKillNine) {
  constexpr int kTotalFiles = 60;
  // The never-stopped run: every file, one available-now run.
  const std::string ref = dir_.Sub("ref");
  std::string ref_pipeline = WritePipeline(ref);
  for (int f = 0; f < kTotalFiles; ++f) WriteInputFile(ref + "/in", "c" + std::to_string(100 + f) + ".json", EventsFile(f));
  ASSERT_EQ(Sluice("run " + ref_pipeline + " --checkpoint " + ref + "/ckpt --trigger available-now"), 0) << Stderr();
  const auto expected = Windows(ref + "/out");
  // 300 minutes of events in 3-minute windows, two users; the watermark (last event - 1 min)
  // closes all but the last window.
  ASSERT_EQ(expected.size(), 2u * 99) << ::testing::PrintToString(expected);
  EXPECT_THAT(expected.front(), HasSubstr("2024-05-01 10:00:00"));

  // The same input in pieces: stop, add files, restart; then kill -9 in the middle of a run.
  const std::string run = dir_.Sub("run");
  std::string pipeline = WritePipeline(run, ", max_files_per_trigger = 1");
  const std::string ckpt = " --checkpoint " + run + "/ckpt";
  for (int f = 0; f < 10; ++f) WriteInputFile(run + "/in", "c" + std::to_string(100 + f) + ".json", EventsFile(f));
  ASSERT_EQ(Sluice("run " + pipeline + ckpt + " --trigger available-now"), 0) << Stderr();
  const size_t after_first = Windows(run + "/out").size();
  EXPECT_EQ(after_first, 2u * 16) << "50 minutes: windows up to 10:48 are closed";
  for (int f = 10; f < 20; ++f) WriteInputFile(run + "/in", "c" + std::to_string(100 + f) + ".json", EventsFile(f));
  ASSERT_EQ(Sluice("run " + pipeline + ckpt + " --trigger available-now"), 0) << Stderr();
  EXPECT_GT(Windows(run + "/out").size(), after_first);

  for (int f = 20; f < kTotalFiles; ++f) WriteInputFile(run + "/in", "c" + std::to_string(100 + f) + ".json", EventsFile(f));
  // A batch every 100 ms over 40 files takes 4 s: the kill lands mid-run.
  int rc = RunCommand("timeout --foreground -s KILL 1.5 " + ToolPath("sluice") + " run " + pipeline + ckpt +
                      " --trigger processing-time=100ms >/dev/null 2>&1");
  EXPECT_EQ(rc, 137) << "expected the run to be killed";
  EXPECT_LT(Windows(run + "/out").size(), expected.size());
  ASSERT_EQ(Sluice("run " + pipeline + ckpt + " --trigger available-now"), 0) << Stderr();

  const auto got = Windows(run + "/out");
  EXPECT_EQ(got, expected);
  std::set<std::string> unique(got.begin(), got.end());
  EXPECT_EQ(unique.size(), got.size()) << "a window was written twice";

  // checkpoint show describes the state: the operator, its partitions and versions, and the
  // watermark the next batch will use.
  ASSERT_EQ(Sluice("checkpoint show " + run + "/ckpt/counts"), 0) << Stderr();
  auto shown = nlohmann::json::parse(Stdout());
  ASSERT_EQ(shown["stateOperators"].size(), 1u) << Stdout();
  EXPECT_EQ(shown["stateOperators"][0]["operatorName"], "stateStoreSave");
  const int partitions = shown["stateOperators"][0]["numPartitions"].get<int>();
  EXPECT_EQ(std::to_string(partitions), shown["conf"]["spark.sql.shuffle.partitions"].get<std::string>());
  for (const auto& v : shown["stateOperators"][0]["latestVersionPerPartition"]) {
    EXPECT_EQ(v.get<int64_t>(), shown["lastCommittedBatch"].get<int64_t>() + 1);
  }
  EXPECT_GT(shown["nextBatchWatermarkMs"].get<int64_t>(), 0);
}

TEST_F(CliStatefulTest, OutputModesAndExplainVerdicts) {
  const std::string root = dir_.Sub("p");
  std::string windowed = WritePipeline(root);
  WriteInputFile(root + "/in", "a.json", EventsFile(0));
  ASSERT_EQ(Sluice("explain " + windowed), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("Aggregate [tumbling window(ts, 180000 ms), who] [count(1) AS n]")) << Stdout();
  EXPECT_THAT(Stdout(), HasSubstr("WithWatermark ts, 1 minute"));
  EXPECT_THAT(Stdout(), HasSubstr("append: ok"));
  EXPECT_THAT(Stdout(), HasSubstr("complete: refused: Data source parquet does not support complete output mode"));
  // The file sink is append-only: complete is refused at start with the sink's message.
  EXPECT_EQ(Sluice("run " + windowed + " --checkpoint " + root + "/ckpt --output-mode complete --trigger once"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("query 'counts'"));
  EXPECT_THAT(Stderr(), HasSubstr("output mode"));

  // Without a window, append is refused (naming the fix); complete and update run to the console.
  std::string keyed = root + "/keyed.sql";
  std::ofstream(keyed) << "CREATE TABLE clicks (who TEXT, ts TIMESTAMP) WITH (connector = 'files', format = 'json', "
                          "path = '" + root + "/in');\n"
                          "SELECT who, count(*) AS n FROM clicks GROUP BY who;\n";
  ASSERT_EQ(Sluice("explain " + keyed), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("append: refused: Append output mode not supported"));
  EXPECT_THAT(Stdout(), HasSubstr("GROUP BY tumble/hop/session"));
  EXPECT_EQ(Sluice("explain " + keyed + " --output-mode append"), 1);
  EXPECT_EQ(Sluice("run " + keyed + " --trigger once"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("Append output mode not supported"));
  ASSERT_EQ(Sluice("run " + keyed + " --trigger once --output-mode complete"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("| u0|  3|"));
  ASSERT_EQ(Sluice("run " + keyed + " --trigger once --output-mode update"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("| u1|  2|"));
  ASSERT_EQ(Sluice("batch " + keyed + " --print"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("(2 rows)"));
}

}  // namespace
}  // namespace sluice::testing
