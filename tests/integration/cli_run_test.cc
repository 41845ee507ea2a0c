// The `sluice` command end to end: run / batch / explain on pipeline files, restarts on the same
// checkpoint (after a clean stop, SIGTERM and kill -9), progress lines and error exits.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/memory_pool.h>
#include <parquet/arrow/writer.h>
#include <gtest/gtest.h>
#include <algorithm>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "integration/test_util.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

class CliRunTest : public ::testing::Test {
 protected:
  // A pipeline reading json {id, name, price} from in/ into json sinks; `extra` is appended.
  std::string WritePipeline(const std::string& options, const std::string& extra = "") {
    std::string path = dir_.Sub("pipeline.sql");
    WriteText(path, "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE)\n"
                    "  WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("in") + "'" + options + ");\n"
                    "CREATE TABLE out () WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("out") + "');\n"
                    "INSERT INTO out SELECT id, upper(name) AS name, price FROM events WHERE id >= 0;\n" + extra);
    return path;
  }

  int Sluice(const std::string& args) {
    return RunCommand(ToolPath("sluice") + " " + args + " >" + dir_.Sub("stdout.txt") + " 2>" + dir_.Sub("stderr.txt"));
  }
  std::string Stderr() { return ReadText(dir_.Sub("stderr.txt")); }
  std::string Stdout() { return ReadText(dir_.Sub("stdout.txt")); }

  std::vector<int64_t> OutputIds(const std::string& sink = "out") {
    auto rows = ReadSinkDir(dir_.Sub(sink), "json");
    return rows ? SortedInts(rows, "id") : std::vector<int64_t>{};
  }

  TempDir dir_;
};

TEST_F(CliRunTest, RestartOnTheSameCheckpointReadsOnlyNewFiles) {
  std::string pipeline = WritePipeline("",
      "CREATE TABLE cheap () WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("cheap") + "');\n"
      "INSERT INTO cheap SELECT id FROM events WHERE price < 15;\n");
  for (int f = 0; f < 3; ++f) WriteInputFile(dir_.Sub("in"), "a" + std::to_string(f) + ".json", JsonRows(f * 10, 10));
  const std::string run = "run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now";
  ASSERT_EQ(Sluice(run), 0) << Stderr();
  EXPECT_EQ(OutputIds(), Range(0, 30));
  // Each query checkpoints under DIR/<sink table name>.
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("ckpt/out/commits/0")));
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("ckpt/cheap/commits/0")));

  for (int f = 3; f < 5; ++f) WriteInputFile(dir_.Sub("in"), "a" + std::to_string(f) + ".json", JsonRows(f * 10, 10));
  ASSERT_EQ(Sluice(run), 0) << Stderr();
  EXPECT_EQ(OutputIds(), Range(0, 50));          // no loss, no duplicate
  EXPECT_EQ(OutputIds("cheap"), Range(0, 10));   // price = id * 1.5 < 15

  ASSERT_EQ(Sluice(run), 0) << Stderr();  // nothing new: nothing written
  EXPECT_EQ(OutputIds(), Range(0, 50));
}

TEST_F(CliRunTest, KillNineMidRunThenRestartIsExactlyOnce) {
  std::string pipeline = WritePipeline(", max_files_per_trigger = 1");
  for (int f = 0; f < 60; ++f) WriteInputFile(dir_.Sub("in"), "k" + std::to_string(100 + f) + ".json", JsonRows(f * 5, 5));
  // One file per batch and a batch every 40 ms: 60 batches take over 2 s; the kill lands mid-run.
  int rc = RunCommand("timeout --foreground -s KILL 1 " + ToolPath("sluice") + " run " + pipeline + " --checkpoint " +
                      dir_.Sub("ckpt") + " --trigger processing-time=40ms >/dev/null 2>&1");
  EXPECT_EQ(rc, 137) << "expected the run to be killed";
  auto partial = OutputIds();
  EXPECT_GT(partial.size(), 0u);
  EXPECT_LT(partial.size(), 300u);

  ASSERT_EQ(Sluice("run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now"), 0) << Stderr();
  EXPECT_EQ(OutputIds(), Range(0, 300));
}

TEST_F(CliRunTest, SigtermStopsGracefullyWithExitZero) {
  std::string pipeline = WritePipeline(", max_files_per_trigger = 1");
  for (int f = 0; f < 40; ++f) WriteInputFile(dir_.Sub("in"), "t" + std::to_string(100 + f) + ".json", JsonRows(f * 3, 3));
  int rc = RunCommand("timeout --preserve-status -s TERM 1 " + ToolPath("sluice") + " run " + pipeline +
                      " --checkpoint " + dir_.Sub("ckpt") + " --trigger processing-time=50ms >/dev/null 2>" +
                      dir_.Sub("stderr.txt"));
  EXPECT_EQ(rc, 0) << Stderr();
  EXPECT_THAT(Stderr(), HasSubstr("SIGTERM, stopping"));
  EXPECT_LT(OutputIds().size(), 120u);
  ASSERT_EQ(Sluice("run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now"), 0) << Stderr();
  EXPECT_EQ(OutputIds(), Range(0, 120));
}

TEST_F(CliRunTest, ProgressFileGetsOneJsonLinePerBatch) {
  std::string pipeline = WritePipeline(", maxFilesPerTrigger = 1");
  for (int f = 0; f < 4; ++f) WriteInputFile(dir_.Sub("in"), "p" + std::to_string(f) + ".json", JsonRows(f * 2, 2));
  ASSERT_EQ(Sluice("run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now --progress " +
                   dir_.Sub("progress.jsonl")),
            0)
      << Stderr();
  std::istringstream lines(ReadText(dir_.Sub("progress.jsonl")));
  std::string line;
  std::vector<int64_t> batches;
  while (std::getline(lines, line)) {
    auto progress = nlohmann::json::parse(line);
    EXPECT_EQ(progress["name"], "out");
    EXPECT_EQ(progress["numInputRows"], 2);
    batches.push_back(progress["batchId"].get<int64_t>());
  }
  EXPECT_EQ(batches, Range(0, 4));
  // Not a terminal: one plain status line per batch.
  EXPECT_THAT(Stderr(), HasSubstr("sluice: out batch 3: 2 rows"));
  // maxFilesPerTrigger = 1 over 4 files: 3 files wait after batch 0, none after batch 3.
  EXPECT_THAT(Stderr(), HasSubstr(", 3 files pending)"));
  EXPECT_THAT(Stderr(), HasSubstr(", 0 files pending)"));
}

// Filter pushdown end to end: the JSON source drops the rows `id % 7 = 0` rejects while decoding
// (numRowsFilteredAtScan), writes the same rows as the plan's filter would, and still counts every
// row it read as input (numInputRows), malformed records included.
TEST_F(CliRunTest, PushedFilterDropsRowsAtTheScanAndCountsEveryInputRow) {
  const std::string path = dir_.Sub("pipeline.sql");
  WriteText(path, "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE)\n"
                  "  WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("in") +
                  "', maxFilesPerTrigger = 1);\n"
                  "CREATE TABLE out () WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("out") + "');\n"
                  "INSERT INTO out SELECT id, price FROM events WHERE id % 7 = 0;\n");
  WriteInputFile(dir_.Sub("in"), "f0.json", JsonRows(0, 6000));
  WriteInputFile(dir_.Sub("in"), "f1.json", JsonRows(6000, 3000) + "{\"id\":\n" + "{\"id\":14,\"price\":\"x\"}\n");
  ASSERT_EQ(Sluice("run " + path + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now --progress " +
                   dir_.Sub("progress.jsonl")),
            0)
      << Stderr();
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 9000; i += 7) want.push_back(i);
  want.push_back(14);  // the malformed record keeps its id (PERMISSIVE's partial result)
  std::sort(want.begin(), want.end());
  EXPECT_EQ(OutputIds(), want);
  std::istringstream lines(ReadText(dir_.Sub("progress.jsonl")));
  std::string line;
  std::vector<int64_t> input_rows, filtered;
  while (std::getline(lines, line)) {
    auto progress = nlohmann::json::parse(line);
    input_rows.push_back(progress["numInputRows"].get<int64_t>());
    filtered.push_back(std::stoll(progress["sources"][0]["metrics"]["numRowsFilteredAtScan"].get<std::string>()));
  }
  std::sort(input_rows.begin(), input_rows.end());
  std::sort(filtered.begin(), filtered.end());
  EXPECT_EQ(input_rows, (std::vector<int64_t>{3002, 6000}));
  // File f0 is filtered while decoded (858 of its 6000 rows kept); f1 has malformed records, so it
  // is read whole and the plan's filter alone drops its rows.
  EXPECT_EQ(filtered, (std::vector<int64_t>{0, 6000 - 858}));
}

// The Parquet source skips the row groups whose statistics rule out `id >= 8500` (8 of 10) and
// still counts their rows as input.
TEST_F(CliRunTest, PushedFilterSkipsParquetRowGroups) {
  arrow::Int64Builder ids;
  arrow::DoubleBuilder prices;
  for (int64_t i = 0; i < 10000; ++i) {
    ASSERT_TRUE(ids.Append(i).ok());
    ASSERT_TRUE(prices.Append(i * 1.5).ok());
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("price", arrow::float64())});
  auto table = arrow::Table::Make(schema, {*ids.Finish(), *prices.Finish()});
  std::filesystem::create_directories(dir_.Sub("pq"));
  auto out = *arrow::io::FileOutputStream::Open(dir_.Sub("pq/a.parquet"));
  ASSERT_TRUE(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out, /*chunk_size=*/1000).ok());
  ASSERT_TRUE(out->Close().ok());
  const std::string path = dir_.Sub("pipeline.sql");
  WriteText(path, "CREATE TABLE events (id BIGINT, price DOUBLE)\n"
                  "  WITH (connector = 'files', format = 'parquet', path = '" + dir_.Sub("pq") + "');\n"
                  "CREATE TABLE out () WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("out") + "');\n"
                  "INSERT INTO out SELECT id, price FROM events WHERE id >= 8500 AND price > 0;\n");
  ASSERT_EQ(Sluice("run " + path + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now --progress " +
                   dir_.Sub("progress.jsonl")),
            0)
      << Stderr();
  EXPECT_EQ(OutputIds(), Range(8500, 10000));
  auto progress = nlohmann::json::parse(ReadText(dir_.Sub("progress.jsonl")));
  EXPECT_EQ(progress["numInputRows"], 10000);
  EXPECT_EQ(progress["sources"][0]["metrics"]["numRowGroupsSkipped"], "8");
  EXPECT_EQ(progress["sources"][0]["metrics"]["numRowsFilteredAtScan"], "8000");
}

TEST_F(CliRunTest, BatchWritesTheSameRowsAsTheStream) {
  for (int f = 0; f < 3; ++f) WriteInputFile(dir_.Sub("in"), "b" + std::to_string(f) + ".json", JsonRows(f * 4, 4));
  std::string pipeline = WritePipeline("");
  ASSERT_EQ(Sluice("run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --trigger once"), 0) << Stderr();
  auto streamed = OutputIds();
  std::filesystem::rename(dir_.Sub("out"), dir_.Sub("streamed"));
  ASSERT_EQ(Sluice("batch " + pipeline), 0) << Stderr();
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("out/_spark_metadata")));  // plain files
  EXPECT_EQ(OutputIds(), streamed);
  EXPECT_EQ(streamed, Range(0, 12));
  // A second batch run refuses the non-empty directory unless told otherwise.
  EXPECT_EQ(Sluice("batch " + pipeline), 1);
  EXPECT_THAT(Stderr(), HasSubstr("already exists"));
  EXPECT_EQ(Sluice("batch " + pipeline + " --mode overwrite"), 0) << Stderr();
  EXPECT_EQ(OutputIds(), Range(0, 12));

  ASSERT_EQ(Sluice("batch " + pipeline + " --print"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("== out (12 rows) =="));
  EXPECT_THAT(Stdout(), HasSubstr("|N11 "));
}

TEST_F(CliRunTest, ExplainPrintsPlanAndOutputModeVerdict) {
  std::filesystem::create_directories(dir_.Sub("in"));
  std::string pipeline = WritePipeline("");
  ASSERT_EQ(Sluice("explain " + pipeline), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("== Logical Plan ==\nProject [id, upper(name) AS name, price]\n  Filter (id >= 0)"))
      << Stdout();
  EXPECT_THAT(Stdout(), HasSubstr("== Physical Plan ==\nProjectExec [id, upper(name) AS name, price]")) << Stdout();
  EXPECT_THAT(Stdout(), HasSubstr("    ScanExec json FileStreamSource["));
  EXPECT_THAT(Stdout(), HasSubstr("append: ok"));
  EXPECT_THAT(Stdout(), HasSubstr("complete: refused: Complete output mode not supported"));
  EXPECT_EQ(Sluice("explain " + pipeline + " --output-mode complete"), 1);
}

TEST_F(CliRunTest, ErrorsExitNonZeroAndPointAtTheSql) {
  std::filesystem::create_directories(dir_.Sub("in"));
  std::string pipeline = WritePipeline("", "INSERT INTO out2 SELECT id FROM events;\n");
  EXPECT_EQ(Sluice("run " + pipeline + " --checkpoint " + dir_.Sub("ckpt")), 1);
  EXPECT_THAT(Stderr(), HasSubstr("pipeline.sql:5:13: unknown table 'out2'"));

  pipeline = WritePipeline("");
  EXPECT_EQ(Sluice("run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --output-mode complete"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("Complete output mode not supported"));
  EXPECT_THAT(Stderr(), HasSubstr("query 'out' (" + pipeline + ":4:1)"));

  EXPECT_EQ(Sluice("run " + pipeline), 1);  // a file sink needs a checkpoint
  EXPECT_THAT(Stderr(), HasSubstr("--checkpoint must be given"));

  EXPECT_EQ(Sluice("run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --trigger sometimes"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("--trigger 'sometimes'"));
  EXPECT_EQ(Sluice("run " + dir_.Sub("missing.sql")), 1);
  EXPECT_THAT(Stderr(), HasSubstr("cannot read pipeline file"));
}

TEST_F(CliRunTest, UsageErrorsAndMisspelledSettingsExitOneSayingWhatWasMeant) {
  std::filesystem::create_directories(dir_.Sub("in"));
  const std::string pipeline = WritePipeline("");
  const std::string run = "run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now";
  EXPECT_EQ(Sluice(run + " --no-such-flag"), 1);  // CLI11 alone would exit 109
  EXPECT_EQ(Sluice("run"), 1);                   // ... and 106 for a missing argument
  EXPECT_EQ(Sluice(run + " --conf spark.sql.shuffle.partiton=2"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("--conf Unknown setting 'spark.sql.shuffle.partiton': did you mean "
                                  "'spark.sql.shuffle.partitions'?"));
  EXPECT_EQ(Sluice(run + " --conf sluice.sql.turbo=true"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("Unknown setting 'sluice.sql.turbo'"));
  // A Spark setting sluice does not use: one warning line, and the pipeline runs. (Before the
  // pipeline file is rewritten with a misspelled SET below: WritePipeline reuses its path.)
  EXPECT_EQ(Sluice(run + " --conf spark.sql.adaptive.enabled=true"), 0) << Stderr();
  EXPECT_THAT(Stderr(), HasSubstr("warning: --conf Setting 'spark.sql.adaptive.enabled' has no effect in sluice"));
  const std::string with_set = WritePipeline("", "SET sluice.sql.shuffle.partitons = 2;\n");
  EXPECT_EQ(Sluice("run " + with_set + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("SET: Unknown setting 'sluice.sql.shuffle.partitons': did you mean "
                                  "'sluice.sql.shuffle.partitions'?"));
}

TEST_F(CliRunTest, ARenamedSinkTableSaysWhereItsOldCheckpointIs) {
  WriteInputFile(dir_.Sub("in"), "a.json", JsonRows(0, 3));
  const std::string pipeline = WritePipeline("");
  const std::string args = " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now";
  ASSERT_EQ(Sluice("run " + pipeline + args), 0) << Stderr();
  // The same output directory under a new table name: a new checkpoint, refused by the output's owner.
  std::string text = ReadText(pipeline);
  for (const std::string from : {"TABLE out ", "INTO out "}) {
    text.replace(text.find(from), from.size(), from.substr(0, from.size() - 1) + "_v2 ");
  }
  WriteText(pipeline, text);
  EXPECT_EQ(Sluice("run " + pipeline + args), 1);
  EXPECT_THAT(Stderr(), HasSubstr("also holds " + dir_.Sub("ckpt") + "/out: if the sink table was renamed, its "
                                  "checkpoint is there; rename that directory to " + dir_.Sub("ckpt") + "/out_v2"));
}

TEST_F(CliRunTest, VersionAndCheckpointShowStillWork) {
  ASSERT_EQ(Sluice("version"), 0);
  EXPECT_EQ(Stdout().rfind("sluice ", 0), 0u);
  // The CLI runs on jemalloc unless ARROW_DEFAULT_MEMORY_POOL says otherwise (when Arrow has it).
  ASSERT_EQ(RunCommand("env -u ARROW_DEFAULT_MEMORY_POOL " + ToolPath("sluice") + " version >" + dir_.Sub("stdout.txt")), 0);
  const auto backends = arrow::SupportedMemoryBackendNames();
  if (std::find(backends.begin(), backends.end(), "jemalloc") != backends.end()) {
    EXPECT_THAT(Stdout(), HasSubstr("memory pool: jemalloc"));
  }
  ASSERT_EQ(RunCommand("ARROW_DEFAULT_MEMORY_POOL=system " + ToolPath("sluice") + " version >" + dir_.Sub("stdout.txt")), 0);
  EXPECT_THAT(Stdout(), HasSubstr("memory pool: system"));
  WriteInputFile(dir_.Sub("in"), "v.json", JsonRows(0, 3));
  std::string pipeline = WritePipeline("");
  ASSERT_EQ(Sluice("run " + pipeline + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now"), 0) << Stderr();
  ASSERT_EQ(Sluice("checkpoint show " + dir_.Sub("ckpt/out")), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("\"queryId\""));
  // The pipeline's root shows every query's checkpoint by sink table.
  ASSERT_EQ(Sluice("checkpoint show " + dir_.Sub("ckpt")), 0) << Stderr();
  auto root = nlohmann::json::parse(Stdout());
  EXPECT_EQ(root["queries"]["out"]["lastCommittedBatch"], 0) << Stdout();
  EXPECT_EQ(root["queries"]["out"]["rerunOnRestart"], false);
  EXPECT_EQ(Sluice("checkpoint show " + dir_.Sub("in")), 1);
  EXPECT_THAT(Stderr(), HasSubstr("is not a sluice checkpoint"));
}

}  // namespace
}  // namespace sluice::testing
