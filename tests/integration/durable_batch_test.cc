// What a small batch costs in syncs (counted by the local filesystem), end to end: files in,
// Parquet out, and the order the protocol needs when a deferred directory sync fails.
#include <gtest/gtest.h>

#include <filesystem>

#include "api/access.h"
#include "integration/test_util.h"
#include "io/fault_injection.h"
#include "io/file_system.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

// The query every test here runs: the JSON files of in/, one per batch, into Parquet at out/.
Result<StreamingQuery> StartFilesToParquet(const std::shared_ptr<Session>& s, const TempDir& dir,
                                           const std::string& clean_source = "off") {
  ARROW_ASSIGN_OR_RAISE(auto df, s->readStream().format("json").schema("id BIGINT, name STRING, price DOUBLE")
                                     .option("maxFilesPerTrigger", "1").option("cleanSource", clean_source)
                                     .load(dir.Sub("in")));
  return df.writeStream().format("parquet").option("path", dir.Sub("out"))
      .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start();
}

// Runs files -> Parquet, one file per batch, over `files` input files on fresh directories;
// returns the syncs the local filesystem made meanwhile.
io::SyncCounts RunFilesToParquet(const TempDir& dir, int files, const std::string& clean_source = "off") {
  for (int f = 0; f < files; ++f) WriteInputFile(dir.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 100, 100));
  auto s = Session::Make();
  EXPECT_OK(io::LocalFileSystem()->SyncDeferred());  // nothing owed from earlier tests
  const io::SyncCounts before = io::LocalSyncCounts();
  auto q = StartFilesToParquet(s, dir, clean_source);
  EXPECT_OK(q);
  EXPECT_OK(q->awaitTermination());
  const io::SyncCounts after = io::LocalSyncCounts();
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("out")), "id"), Range(0, files * 100));
  return io::SyncCounts{after.file_syncs - before.file_syncs, after.dir_syncs - before.dir_syncs};
}

TEST(DurableBatch, ASmallBatchCostsFourDataSyncsAndFourDirectorySyncs) {
  TempDir one, five;
  const io::SyncCounts a = RunFilesToParquet(one, 1);
  const io::SyncCounts b = RunFilesToParquet(five, 5);
  // Four more batches, the same start-up: per batch one data sync and one directory sync for
  // each of sources/0/N, offsets/N, the part file and _spark_metadata/N; commits/N is written
  // without a sync of its own (a power failure that loses it means the batch runs again).
  EXPECT_EQ((b.file_syncs - a.file_syncs) / 4.0, 4.0);
  EXPECT_EQ((b.dir_syncs - a.dir_syncs) / 4.0, 4.0);
  // Nothing is left to sync once a batch is done (commits/N made everything before it durable).
  EXPECT_EQ([] {
    const io::SyncCounts before = io::LocalSyncCounts();
    EXPECT_OK(io::LocalFileSystem()->SyncDeferred());
    return io::LocalSyncCounts().total() - before.total();
  }(), 0);
}

TEST(DurableBatch, CommitIsSyncedWhenTheSourceDeletesItsInputOnCommit) {
  TempDir one, five;
  const io::SyncCounts a = RunFilesToParquet(one, 1, "delete");
  const io::SyncCounts b = RunFilesToParquet(five, 5, "delete");
  // cleanSource deletes batch N's files once commits/N is written: commits/N must be durable
  // first, or running N again after a power failure would find no input.
  EXPECT_EQ((b.file_syncs - a.file_syncs) / 4.0, 5.0);
  EXPECT_EQ((b.dir_syncs - a.dir_syncs) / 4.0, 5.0);
  EXPECT_FALSE(fs::exists(five.Sub("in/f0.json")));
}

// What a power failure can leave of commits/N (written without a sync): nothing, or the start
// of its text. The restart runs batch N again; the sink recognises it, so every row is there
// once, and commits/N is whole again afterwards.
void CutTheNewestCommitThenRestart(size_t keep_bytes) {
  TempDir dir;
  for (int f = 0; f < 2; ++f) WriteInputFile(dir.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 10, 10));
  auto run = [&] {
    auto s = Session::Make();
    auto q = StartFilesToParquet(s, dir);
    EXPECT_OK(q);
    return q->awaitTermination();
  };
  ASSERT_OK(run());
  const std::string commit = dir.Sub("ckpt/commits/1");
  const std::string whole = ReadText(commit);
  ASSERT_GT(whole.size(), keep_bytes);
  fs::resize_file(commit, keep_bytes);
  const auto sink_log = fs::last_write_time(dir.Sub("out/_spark_metadata/1"));
  ASSERT_OK(run());
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("out")), "id"), Range(0, 20));
  EXPECT_EQ(ReadText(commit), whole);
  EXPECT_EQ(fs::last_write_time(dir.Sub("out/_spark_metadata/1")), sink_log);  // recognised, not rewritten
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/offsets/2")));                          // no batch past it
}

TEST(DurableBatch, AnEmptyNewestCommitRunsItsBatchAgain) { CutTheNewestCommitThenRestart(0); }

TEST(DurableBatch, ANewestCommitCutShortRunsItsBatchAgain) {
  CutTheNewestCommitThenRestart(3);   // "v1\n": the version line only
  CutTheNewestCommitThenRestart(10);  // inside the JSON object
}

// A failed sync of a deferred directory stops the entry that depends on it; a restart then
// ends with every row exactly once.
void FailAtDeferredSyncThenRestart(const std::string& fault, const std::string& must_not_exist) {
  TempDir dir;
  for (int f = 0; f < 2; ++f) WriteInputFile(dir.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 10, 10));
  auto run = [&](std::shared_ptr<io::FileSystem> fsys) {
    auto s = api::MakeSession(std::move(fsys));  // the query runs while its session lives
    auto q = StartFilesToParquet(s, dir);
    EXPECT_OK(q);
    return q->awaitTermination();
  };
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), *io::FaultSpec::Parse(fault));
  Status st = run(faulty);
  ASSERT_FALSE(st.ok()) << fault;
  EXPECT_TRUE(faulty->triggered());
  EXPECT_THAT(st.ToString(), HasSubstr("injected fault at sync of directory"));
  EXPECT_FALSE(fs::exists(dir.Sub(must_not_exist))) << must_not_exist;
  ASSERT_OK(run(io::LocalFileSystem()));
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("out")), "id"), Range(0, 20));
}

TEST(DurableBatch, FailedSyncOfTheSourceLogStopsTheOffsetsEntry) {
  FailAtDeferredSyncThenRestart("sync=/sources/,hits=2,action=fail", "ckpt/offsets/1");
}

TEST(DurableBatch, FailedSyncOfThePartFilesStopsTheSinkLogEntry) {
  FailAtDeferredSyncThenRestart("sync=/out,hits=3,action=fail", "out/_spark_metadata/1");
}

TEST(DurableBatch, FailedSyncOfTheSinkLogStopsTheCommit) {
  FailAtDeferredSyncThenRestart("sync=_spark_metadata,hits=2,action=fail", "ckpt/commits/1");
}

}  // namespace
}  // namespace sluice::testing
