// Crash tests: a child process runs files -> parquet and _exits at a named point of the batch
// protocol (through the fault-injecting filesystem); a restart on the same checkpoint must
// end with every input row in the sink exactly once. Also the seeds' exercise: stop, add
// input, restart = the never-stopped run, row for row.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "integration/test_util.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

std::string StreamCommand(const TempDir& dir, const std::string& extra) {
  return ToolPath("stream_files") + " --input " + dir.Sub("in") + " --checkpoint " + dir.Sub("ckpt") + " --output " +
         dir.Sub("out") + " --max-files-per-trigger 2 " + extra + " >>" + dir.Sub("log") + " 2>&1";
}

void WriteFiles(const TempDir& dir, int first_file, int count) {
  for (int f = first_file; f < first_file + count; ++f) {
    WriteInputFile(dir.Sub("in"), "part-" + std::to_string(f) + ".json", JsonRows(f * 10, 10));
  }
}

struct CrashCase {
  std::string name;
  std::string fault;
};

class CrashTest : public ::testing::TestWithParam<CrashCase> {};

TEST_P(CrashTest, RestartAfterCrashLosesNothingAndDuplicatesNothing) {
  TempDir dir;
  WriteFiles(dir, 0, 6);  // 3 batches of 2 files
  // The fault hits in the second batch (hits=2), so batch 0 is fully committed first.
  int rc = RunCommand(StreamCommand(dir, "--fault " + GetParam().fault));
  ASSERT_EQ(rc, 42) << "the child should have crashed at " << GetParam().fault;
  WriteFiles(dir, 6, 2);  // input arriving while the query is down
  rc = RunCommand(StreamCommand(dir, ""));
  ASSERT_EQ(rc, 0) << "restart failed; see " << dir.Sub("log");
  auto rows = ReadSinkDir(dir.Sub("out"));
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 80));
}

INSTANTIATE_TEST_SUITE_P(
    FaultPoints, CrashTest,
    ::testing::Values(CrashCase{"AfterOffsetsWrite", "point=after_offsets_write,hits=2"},
                      CrashCase{"MidSinkWrite", "write=/out/part-,hits=2"},
                      CrashCase{"AfterSinkCommitBeforeCommitLog", "point=after_sink_commit,hits=2"},
                      CrashCase{"AfterCommitLog", "point=after_commit_log,hits=2"},
                      CrashCase{"AfterSourceLogBeforeOffsets", "write=/offsets/,hits=2"},
                      // The deferred directory syncs (io::EntrySync): before offsets/1 (sources/0),
                      // before _spark_metadata/1 (out/), before commits/1 (_spark_metadata/).
                      CrashCase{"AtSourceLogDirectorySync", "sync=/sources/,hits=2"},
                      CrashCase{"AtPartFileDirectorySync", "sync=/out,hits=3"},
                      CrashCase{"AtSinkLogDirectorySync", "sync=_spark_metadata,hits=2"}),
    [](const ::testing::TestParamInfo<CrashCase>& info) { return info.param.name; });

TEST(CrashTest, KilledMidRunRestartsWithoutLossOrDuplicate) {
  TempDir dir;
  WriteFiles(dir, 0, 40);
  // SIGKILL at a moment we do not choose; then restart until done.
  std::string cmd = "timeout --foreground -s KILL 0.3 " + StreamCommand(dir, "");
  RunCommand(cmd);
  ASSERT_EQ(RunCommand(StreamCommand(dir, "")), 0) << "see " << dir.Sub("log");
  auto rows = ReadSinkDir(dir.Sub("out"));
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 400));
}

TEST(SeedExercise, StopAddInputRestartEqualsTheNeverStoppedRun) {
  TempDir stopped, never;
  WriteFiles(stopped, 0, 3);
  ASSERT_EQ(RunCommand(StreamCommand(stopped, "")), 0);
  WriteFiles(stopped, 3, 3);
  ASSERT_EQ(RunCommand(StreamCommand(stopped, "")), 0);

  WriteFiles(never, 0, 6);
  ASSERT_EQ(RunCommand(StreamCommand(never, "")), 0);

  auto a = ReadSinkDir(stopped.Sub("out"));
  auto b = ReadSinkDir(never.Sub("out"));
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(SortedInts(a, "id"), Range(0, 60));
  EXPECT_EQ(SortedInts(a, "id"), SortedInts(b, "id"));
  EXPECT_TRUE(a->schema()->Equals(*b->schema()));
}

TEST(SeedExercise, ANewCheckpointForAnExistingFileSinkIsRefused) {
  // The seeds' first wrong way: a new checkpoint directory on restart. The file sink knows
  // which query wrote it, so sluice refuses instead of ingesting everything again.
  TempDir dir;
  WriteFiles(dir, 0, 2);
  ASSERT_EQ(RunCommand(StreamCommand(dir, "")), 0);
  fs::rename(dir.Sub("ckpt"), dir.Sub("ckpt-old"));
  ASSERT_EQ(RunCommand(StreamCommand(dir, "")), 1);
  std::ifstream log(dir.Sub("log"));
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("was written by query"));
  auto rows = ReadSinkDir(dir.Sub("out"));
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 20));
}

TEST(SeedExercise, ANewCheckpointWithAnUnguardedSinkIngestsEveryRowTwice) {
  TempDir dir;
  WriteFiles(dir, 0, 2);
  fs::create_directories(dir.Sub("out"));
  ASSERT_EQ(RunCommand(StreamCommand(dir, "--sink naive")), 0);
  fs::rename(dir.Sub("ckpt"), dir.Sub("ckpt-old"));
  ASSERT_EQ(RunCommand(StreamCommand(dir, "--sink naive")), 0);
  std::ifstream in(dir.Sub("out/rows.jsonl"));
  int lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_EQ(lines, 40);  // 20 input rows, each twice
}

TEST(SeedExercise, AnAppendOnlySinkDuplicatesARedoneBatch) {
  TempDir dir;
  WriteFiles(dir, 0, 2);
  fs::create_directories(dir.Sub("out"));
  ASSERT_EQ(RunCommand(StreamCommand(dir, "--sink naive --fault point=after_sink_commit")), 42);
  ASSERT_EQ(RunCommand(StreamCommand(dir, "--sink naive")), 0);
  std::ifstream in(dir.Sub("out/rows.jsonl"));
  int lines = 0;
  for (std::string l; std::getline(in, l);) ++lines;
  EXPECT_EQ(lines, 40);  // 20 rows, written twice: the redo of batch 0 appended them again
}

}  // namespace
}  // namespace sluice::testing
