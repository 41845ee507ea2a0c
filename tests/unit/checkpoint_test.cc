// The checkpoint's on-disk pieces: log entries, offsets/commit formats, metadata refusal.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "checkpoint/checkpoint.h"
#include "checkpoint/metadata_log.h"
#include "io/fault_injection.h"
#include "support/counting_file_system.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::checkpoint {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

using sluice::testing::TempDir;

std::string Slurp(const std::string& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(MetadataLog, EntriesAreCreateOnlyVersionedAndWithoutTrailingNewline) {
  TempDir d;
  MetadataLog log(io::LocalFileSystem(), d.path() + "/offsets");
  ASSERT_OK(log.Add(0, "{\"a\":1}\n2"));
  EXPECT_EQ(Slurp(d.path() + "/offsets/0"), "v1\n{\"a\":1}\n2");
  Status again = log.Add(0, "x");
  ASSERT_TRUE(again.IsAlreadyExists());
  EXPECT_THAT(again.message(), HasSubstr("Concurrent update"));
  EXPECT_EQ(*log.Get(0).ValueOrDie(), "{\"a\":1}\n2");
  EXPECT_FALSE(log.Get(1).ValueOrDie().has_value());
}

TEST(MetadataLog, ListsOnlyNumericEntriesAndIgnoresTempFiles) {
  TempDir d;
  MetadataLog log(io::LocalFileSystem(), d.path());
  ASSERT_OK(log.Add(2, "b"));
  ASSERT_OK(log.Add(10, "c"));
  ASSERT_OK(log.Add(9, "c", /*compact=*/true));
  std::ofstream(d.path() + "/.3.abc.tmp") << "partial";
  std::ofstream(d.path() + "/notes") << "x";
  auto ids = log.List().ValueOrDie();
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0].id, 2);
  EXPECT_TRUE(ids[1].compact);
  EXPECT_EQ(*log.LatestId().ValueOrDie(), 10);
  ASSERT_OK(log.PurgeBefore(10));
  EXPECT_EQ(log.List().ValueOrDie().size(), 1u);
}

std::vector<int64_t> Ids(const MetadataLog& log) {
  std::vector<int64_t> ids;
  for (const auto& e : log.List().ValueOrDie()) ids.push_back(e.id);
  return ids;
}

TEST(MetadataLog, APurgeInTheBackgroundReturnsAtOnceAndIsWaitedForBeforeTheLogGoes) {
  TempDir d;
  auto counting = std::make_shared<testing::CountingFileSystem>();
  {
    MetadataLog log(counting, d.path() + "/log");
    for (int i = 0; i < 5; ++i) ASSERT_OK(log.Add(i, "x"));
    counting->HoldDeletes(true);
    log.PurgeBeforeInBackground(3);  // returns while its deletes wait
    EXPECT_EQ(Ids(log), (std::vector<int64_t>{0, 1, 2, 3, 4}));
    ASSERT_OK(log.Add(5, "x"));  // the writer goes on meanwhile
    counting->HoldDeletes(false);
    log.WaitForPurge();
    EXPECT_EQ(Ids(log), (std::vector<int64_t>{3, 4, 5}));
    EXPECT_EQ(counting->Calls("Delete"), 3);

    counting->HoldDeletes(true);
    log.PurgeBeforeInBackground(5);
    std::thread release([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      counting->HoldDeletes(false);
    });
    release.detach();
  }  // the log's end waits for its purge
  EXPECT_FALSE(fs::exists(d.path() + "/log/3"));
  EXPECT_FALSE(fs::exists(d.path() + "/log/4"));
  EXPECT_TRUE(fs::exists(d.path() + "/log/5"));
}

TEST(MetadataLog, RefusesANewerVersionAndACorruptEntry) {
  TempDir d;
  MetadataLog log(io::LocalFileSystem(), d.path());
  std::ofstream(d.path() + "/0") << "v7\n{}";
  std::ofstream(d.path() + "/1") << "garbage";
  auto newer = log.Get(0);
  ASSERT_FALSE(newer.ok());
  EXPECT_THAT(newer.status().message(), HasSubstr("newer sluice"));
  auto corrupt = log.Get(1);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_THAT(corrupt.status().message(), HasSubstr(d.path() + "/1"));
}

TEST(OffsetSeq, RoundTripsInSparksLayout) {
  OffsetSeq seq;
  seq.batch_watermark_ms = 5;
  seq.batch_timestamp_ms = 1700000000000;
  seq.conf["k"] = "v";
  seq.offsets = {Offset({{"logOffset", 3}}), std::nullopt, Offset(12)};
  std::string text = seq.Serialize();
  EXPECT_EQ(text, "{\"batchTimestampMs\":1700000000000,\"batchWatermarkMs\":5,\"conf\":{\"k\":\"v\"}}\n{\"logOffset\":3}\n-\n12");
  auto back = OffsetSeq::Parse(text, "x").ValueOrDie();
  EXPECT_EQ(back.batch_watermark_ms, 5);
  EXPECT_EQ(back.conf["k"], "v");
  ASSERT_EQ(back.offsets.size(), 3u);
  EXPECT_FALSE(back.offsets[1].has_value());
  EXPECT_EQ(*back.offsets[2], 12);
}

// Found by fuzzing: a fraction or an out-of-range number where Spark writes whole milliseconds
// was converted unchecked (undefined behaviour); the entry is corrupt, and the message says which.
TEST(OffsetSeq, RefusesTimesThatAreNotWholeMilliseconds) {
  for (const std::string first : {R"({"batchWatermarkMs":0,"batchTimestampMs":170000000066666666666.000})",
                                  R"({"batchWatermarkMs":1.5})", R"({"batchWatermarkMs":18446744073709551615})",
                                  R"({"batchTimestampMs":"12"})", "[1]"}) {
    auto parsed = OffsetSeq::Parse(first + "\n{\"logOffset\":3}", "/ckpt/offsets/7");
    ASSERT_FALSE(parsed.ok()) << first;
    EXPECT_THAT(parsed.status().message(), HasSubstr("Offsets log entry '/ckpt/offsets/7' is corrupt")) << first;
  }
  auto commit = CommitEntry::Parse(R"({"nextBatchWatermarkMs":-1e300})", "/ckpt/commits/7");
  ASSERT_FALSE(commit.ok());
  EXPECT_THAT(commit.status().message(), HasSubstr("nextBatchWatermarkMs is not a whole number"));
  EXPECT_EQ(OffsetSeq::Parse(R"({"batchWatermarkMs":-5})", "x").ValueOrDie().batch_watermark_ms, -5);
}

TEST(Checkpoint, RefusesMetadataOfAnotherQueryNamingTheDifference) {
  TempDir d;
  Checkpoint ckpt(io::LocalFileSystem(), d.path());
  QueryFingerprint fp{{"src-a"}, "sink-a", "plan-a"};
  auto md = ckpt.LoadOrCreateMetadata(fp).ValueOrDie();
  EXPECT_EQ(ckpt.LoadOrCreateMetadata(fp).ValueOrDie().id, md.id);
  QueryFingerprint other = fp;
  other.sink = "sink-b";
  auto refused = ckpt.LoadOrCreateMetadata(other);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("sink-a"));
  EXPECT_THAT(refused.status().message(), HasSubstr("sink-b"));
  EXPECT_THAT(refused.status().message(), HasSubstr(d.path()));
}

TEST(FaultSpec, ParsesPointsWritesAndActions) {
  auto a = io::FaultSpec::Parse("point=after_sink_commit,hits=2").ValueOrDie();
  EXPECT_EQ(a.point, "after_sink_commit");
  EXPECT_EQ(a.hits, 2);
  auto b = io::FaultSpec::Parse("write=/out/part-,action=fail").ValueOrDie();
  EXPECT_EQ(b.path_substring, "/out/part-");
  EXPECT_EQ(b.action, io::FaultSpec::Action::kFail);
  EXPECT_FALSE(io::FaultSpec::Parse("hits=2").ok());
  EXPECT_FALSE(io::FaultSpec::Parse("point=x,colour=red").ok());
}

TEST(FaultInjection, FailsTheKthMatchingWriteAndOnlyThatOne) {
  TempDir d;
  io::FaultSpec spec = io::FaultSpec::Parse("write=/commits/,hits=2,action=fail").ValueOrDie();
  io::FaultInjectingFileSystem fs(io::LocalFileSystem(), spec);
  ASSERT_OK(fs.MakeDirs(d.path() + "/commits"));
  EXPECT_OK(fs.WriteAtomic(d.path() + "/commits/0", "a", false));
  EXPECT_OK(fs.WriteAtomic(d.path() + "/other", "a", false));
  Status st = fs.WriteAtomic(d.path() + "/commits/1", "a", false);
  EXPECT_TRUE(st.IsIOError());
  EXPECT_FALSE(fs::exists(d.path() + "/commits/1"));
  EXPECT_TRUE(fs.triggered());
}

TEST(LocalFileSystem, AtomicCreateOnlyLeavesNoTempFiles) {
  TempDir d;
  auto fs = io::LocalFileSystem();
  ASSERT_OK(fs->WriteAtomic(d.path() + "/x", "1", false));
  EXPECT_TRUE(fs->WriteAtomic(d.path() + "/x", "2", false).IsAlreadyExists());
  ASSERT_OK(fs->WriteAtomic(d.path() + "/x", "3", true));
  EXPECT_EQ(Slurp(d.path() + "/x"), "3");
  int entries = 0;
  for (auto it = fs::directory_iterator(d.path()); it != fs::directory_iterator(); ++it) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(LocalFileSystem, UrisRoundTripWithEscapes) {
  EXPECT_EQ(io::PathToUri("/a b/c%d.json"), "file:///a%20b/c%25d.json");
  EXPECT_EQ(io::UriToPath("file:///a%20b/c%25d.json"), "/a b/c%d.json");
  EXPECT_EQ(io::UriToPath("file:/x/y"), "/x/y");
}

}  // namespace
}  // namespace sluice::checkpoint
