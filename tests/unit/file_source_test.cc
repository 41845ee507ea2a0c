// The streaming file source: its log, offsets, read limits, redo, restart and cleanSource.
#include <gtest/gtest.h>

#include <arrow/util/thread_pool.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <filesystem>

#include "file_source_test_util.h"
#include "source/file_source.h"
#include "source/read_ahead.h"
#include "support/log_capture.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using ::testing::HasSubstr;

using testing::Rows;
using testing::Spec;
using testing::TempDir;
using testing::WriteFile;
using Strings = std::vector<std::string>;

constexpr int64_t kT = 1'700'000'000'000;  // a base mtime (ms)
constexpr int64_t kDay = 24LL * 3600 * 1000;

class FileSourceStream : public ::testing::Test {
 protected:
  std::string In() const { return dir_.Sub("in"); }
  std::string Meta() const { return dir_.Sub("ckpt/sources/0"); }
  // Writes in/<name> holding {"v":"<name>"} with the given mtime.
  void Add(const std::string& name, int64_t mtime, const std::string& pad = "") {
    WriteFile(In() + "/" + name, "{\"v\":\"" + name + "\"}" + pad + "\n", mtime);
  }
  std::unique_ptr<Source> Open(std::vector<std::pair<std::string, std::string>> options = {}, int retain = 100) {
    std::filesystem::create_directories(In());
    SourceContext ctx{io::LocalFileSystem(), Meta(), retain, {}};
    auto source = MakeFileStreamSource(Spec("json", In(), arrow::schema({arrow::field("v", arrow::utf8())}), options), ctx);
    EXPECT_OK(source);
    return source.ok() ? std::move(*source) : nullptr;
  }
  // LatestOffset's logOffset, or -1 when it returned nullopt.
  static int64_t Next(Source& s, std::optional<int64_t> start, bool limited = true) {
    std::optional<Offset> from;
    if (start) from = Offset{{"logOffset", *start}};
    auto r = s.LatestOffset(from, limited);
    EXPECT_OK(r);
    return r.ok() && *r ? (**r)["logOffset"].get<int64_t>() : -1;
  }
  static Strings Batch(Source& s, std::optional<int64_t> start, int64_t end) {
    std::optional<Offset> from;
    if (start) from = Offset{{"logOffset", *start}};
    auto t = s.GetBatch(from, Offset{{"logOffset", end}});
    EXPECT_OK(t);
    return t.ok() ? Rows(*t) : Strings{"<error>"};
  }

  TempDir dir_;
};

TEST_F(FileSourceStream, ReadsEachFileOnceInMtimeOrder) {
  Add("a.json", kT + 3);
  Add("b.json", kT + 1);
  Add("c.json", kT + 1);  // same mtime as b: ordered by path
  auto s = Open();
  EXPECT_EQ(s->Description(), "FileStreamSource[" + io::PathToUri(In()) + "]");
  EXPECT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"b.json", "c.json", "a.json"}));
  EXPECT_EQ(Next(*s, 0), 0);  // nothing new: start returned unchanged
  Add("d.json", kT + 2);      // older than a.json, but new
  EXPECT_EQ(Next(*s, 0), 1);
  EXPECT_EQ(Batch(*s, 0, 1), (Strings{"d.json"}));
  auto bare = s->GetBatch(Offset(0), Offset(1));  // bare numbers are accepted
  ASSERT_OK(bare);
  EXPECT_EQ(Rows(*bare), (Strings{"d.json"}));
}

TEST_F(FileSourceStream, LogEntryIsSparkFormat) {
  Add("a.json", kT + 5);
  auto s = Open();
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  auto text = io::LocalFileSystem()->ReadFile(Meta() + "/0");
  ASSERT_OK(text);
  EXPECT_EQ(*text, "v1\n{\"path\":\"" + io::PathToUri(In() + "/a.json") + "\",\"timestamp\":" +
                       std::to_string(kT + 5) + ",\"batchId\":0}");
}

TEST_F(FileSourceStream, MaxFilesPerTriggerCutsBatchesUnlessUnlimited) {
  for (int i = 0; i < 5; ++i) Add("f" + std::to_string(i) + ".json", kT + i);
  auto s = Open({{"maxFilesPerTrigger", "2"}});
  EXPECT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"f0.json", "f1.json"}));
  EXPECT_EQ(Next(*s, 0), 1);
  EXPECT_EQ(Batch(*s, 0, 1), (Strings{"f2.json", "f3.json"}));
  Add("f5.json", kT + 5);
  EXPECT_EQ(Next(*s, 1, /*limited=*/false), 2);
  EXPECT_EQ(Batch(*s, 1, 2), (Strings{"f4.json", "f5.json"}));
}

TEST_F(FileSourceStream, MaxBytesPerTriggerTakesAtLeastOneFile) {
  Add("a.json", kT + 1);                     // 15 bytes each
  Add("b.json", kT + 2);
  Add("c.json", kT + 3, std::string(100, ' '));  // larger than the limit alone
  Add("d.json", kT + 4);
  auto s = Open({{"maxBytesPerTrigger", "40"}});
  EXPECT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"a.json", "b.json"}));
  EXPECT_EQ(Next(*s, 0), 1);
  EXPECT_EQ(Batch(*s, 0, 1), (Strings{"c.json"}));
  EXPECT_EQ(Next(*s, 1), 2);
  EXPECT_EQ(Batch(*s, 1, 2), (Strings{"d.json"}));
}

TEST_F(FileSourceStream, LatestFirstTakesNewestFirst) {
  for (int i = 0; i < 3; ++i) Add("f" + std::to_string(i) + ".json", kT + i);
  auto s = Open({{"latestFirst", "true"}, {"maxFilesPerTrigger", "1"}});
  EXPECT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"f2.json"}));
  EXPECT_EQ(Next(*s, 0), 1);
  EXPECT_EQ(Batch(*s, 0, 1), (Strings{"f1.json"}));
}

TEST_F(FileSourceStream, GlobFilterHiddenFilesAndRecursion) {
  Add("a.json", kT);
  Add("b.txt", kT);
  Add(".c.json", kT);
  Add("_d.json", kT);
  Add("sub/e.json", kT);
  Add("_tmp/f.json", kT);
  auto flat = Open({{"pathGlobFilter", "*.json"}});
  EXPECT_EQ(Next(*flat, std::nullopt), 0);
  EXPECT_EQ(Batch(*flat, std::nullopt, 0), (Strings{"a.json"}));
  flat.reset();
  std::filesystem::remove_all(Meta());
  auto deep = Open({{"pathGlobFilter", "*.json"}, {"recursiveFileLookup", "true"}});
  EXPECT_EQ(Next(*deep, std::nullopt), 0);
  EXPECT_EQ(Batch(*deep, std::nullopt, 0), (Strings{"a.json", "sub/e.json"}));
}

TEST_F(FileSourceStream, GlobFilterTakesSparksBraceAlternatives) {
  Add("a.csv", kT);
  Add("b.txt", kT);
  Add("c.json", kT);
  Add("d.tsv", kT);
  auto s = Open({{"pathGlobFilter", "*.{csv,t{x,s}t}"}});
  EXPECT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"a.csv", "b.txt"}));
}

TEST_F(FileSourceStream, RedoReadsTheLoggedFilesNotTheDirectory) {
  Add("a.json", kT);
  auto s = Open();
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"a.json"}));
  Add("b.json", kT + 1);  // arrives after the batch was planned
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"a.json"}));
  std::filesystem::remove(In() + "/a.json");
  auto gone = s->GetBatch(std::nullopt, Offset{{"logOffset", 0}});
  ASSERT_FALSE(gone.ok());
  EXPECT_THAT(gone.status().message(), HasSubstr(io::PathToUri(In() + "/a.json")));
  EXPECT_THAT(gone.status().message(), HasSubstr("source log entry 0"));
}

TEST_F(FileSourceStream, RestartDoesNotRereadSeenFiles) {
  Add("a.json", kT);
  ASSERT_EQ(Next(*Open(), std::nullopt), 0);
  auto restarted = Open();
  EXPECT_EQ(Next(*restarted, 0), 0);
  Add("b.json", kT - 1);
  EXPECT_EQ(Next(*restarted, 0), 1);
  EXPECT_EQ(Batch(*restarted, 0, 1), (Strings{"b.json"}));
}

TEST_F(FileSourceStream, CrashAfterLogWriteBeforeOffsetsIsCovered) {
  Add("a.json", kT);
  ASSERT_EQ(Next(*Open(), std::nullopt), 0);  // log entry 0 written; offsets never were
  Add("b.json", kT + 1);
  auto restarted = Open();
  EXPECT_EQ(Next(*restarted, std::nullopt), 0);  // covers entry 0 before listing again
  EXPECT_EQ(Batch(*restarted, std::nullopt, 0), (Strings{"a.json"}));
  EXPECT_EQ(Next(*restarted, 0), 1);
  EXPECT_EQ(Batch(*restarted, 0, 1), (Strings{"b.json"}));
}

TEST_F(FileSourceStream, CompactionKeepsTheSeenSetAfterPurge) {
  auto s = Open({}, /*retain=*/2);
  for (int i = 0; i < 12; ++i) {
    Add("f" + std::to_string(i) + ".json", kT + i);
    ASSERT_EQ(Next(*s, i == 0 ? std::nullopt : std::optional<int64_t>(i - 1)), i);
  }
  s.reset();  // old entries are purged in the background; a source's end waits for it
  auto fs = io::LocalFileSystem();
  EXPECT_TRUE(*fs->Stat(Meta() + "/9.compact"));
  EXPECT_FALSE(*fs->Stat(Meta() + "/9"));
  EXPECT_FALSE(*fs->Stat(Meta() + "/6"));  // below 9 - 2
  EXPECT_TRUE(*fs->Stat(Meta() + "/7"));
  EXPECT_TRUE(*fs->Stat(Meta() + "/11"));
  auto restarted = Open({}, 2);
  EXPECT_EQ(Next(*restarted, 11), 11);  // nothing re-read
  EXPECT_EQ(Batch(*restarted, 2, 4), (Strings{"f3.json", "f4.json"}));  // purged entries, from the compaction
  EXPECT_EQ(Batch(*restarted, std::nullopt, 11).size(), 12u);
}

TEST_F(FileSourceStream, MaxFileAgeIsRelativeToNewestSeenFile) {
  Add("new.json", kT);
  auto s = Open({{"maxFileAge", "7d"}});
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  Add("ancient.json", kT - 8 * kDay);
  Add("recent.json", kT - 1 * kDay);
  EXPECT_EQ(Next(*s, 0), 1);
  EXPECT_EQ(Batch(*s, 0, 1), (Strings{"recent.json"}));
  EXPECT_EQ(Next(*s, 1), 1);
}

TEST_F(FileSourceStream, AFutureDatedFileDoesNotMakeLaterFilesTooOld) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  Add("future.json", now + 30 * kDay);
  auto s = Open({{"maxFileAge", "7d"}});
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  Add("today.json", now - 1 * kDay);
  Add("old.json", now - 8 * kDay);
  EXPECT_EQ(Next(*s, 0), 1);
  EXPECT_EQ(Batch(*s, 0, 1), (Strings{"today.json"}));
}

TEST_F(FileSourceStream, AvailableNowTakesOnlyTheSnapshot) {
  Add("a.json", kT);
  Add("b.json", kT + 1);
  auto s = Open({{"maxFilesPerTrigger", "1"}});
  ASSERT_OK(s->PrepareForAvailableNow());
  Add("late.json", kT + 2);
  EXPECT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Next(*s, 0), 1);
  EXPECT_EQ(Next(*s, 1), 1);  // late.json waits for the next run
  EXPECT_EQ(Batch(*s, std::nullopt, 1), (Strings{"a.json", "b.json"}));
}

TEST_F(FileSourceStream, AvailableNowTakesTheSnapshotInOrderAndReadsAhead) {
  Add("c.json", kT + 2);
  Add("a.json", kT);
  Add("b.json", kT + 1);
  {  // a file of an earlier run is not taken again
    auto first = Open({{"maxFilesPerTrigger", "1"}});
    ASSERT_EQ(Next(*first, std::nullopt), 0);
  }
  auto s = Open({{"maxFilesPerTrigger", "1"}});
  ASSERT_OK(s->PrepareForAvailableNow());
  Add("late.json", kT + 3);
  ASSERT_EQ(Next(*s, 0), 1);
  EXPECT_EQ(Batch(*s, 0, 1), (Strings{"b.json"}));
  ASSERT_EQ(Next(*s, 1), 2);
  EXPECT_EQ(Batch(*s, 1, 2), (Strings{"c.json"}));
  EXPECT_EQ(Next(*s, 2), 2);  // the snapshot is done; late.json waits for the next run
  EXPECT_EQ(s->metrics().custom.at("readAheadHits"), "1");
}

TEST_F(FileSourceStream, MissingInputDirectoryFailsAtStart) {
  SourceContext ctx{io::LocalFileSystem(), Meta(), 100, {}};
  auto s = MakeFileStreamSource(Spec("text", dir_.Sub("absent"), nullptr), ctx);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "Path does not exist: " + io::PathToUri(dir_.Sub("absent")));
}

TEST_F(FileSourceStream, CleanSourceDeleteRemovesCommittedFilesOnly) {
  Add("a.json", kT);
  auto s = Open({{"cleanSource", "delete"}});
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  Add("b.json", kT + 1);
  ASSERT_EQ(Next(*s, 0), 1);
  ASSERT_OK(s->Commit(Offset{{"logOffset", 0}}));
  EXPECT_FALSE(std::filesystem::exists(In() + "/a.json"));
  EXPECT_TRUE(std::filesystem::exists(In() + "/b.json"));
}

TEST_F(FileSourceStream, CleanSourceArchiveMovesUnderArchiveDir) {
  Add("a.json", kT);
  auto s = Open({{"cleanSource", "archive"}, {"sourceArchiveDir", dir_.Sub("archive")}});
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  ASSERT_OK(s->Commit(Offset{{"logOffset", 0}}));
  EXPECT_FALSE(std::filesystem::exists(In() + "/a.json"));
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("archive") + In() + "/a.json"));
  EXPECT_OK(s->Commit(Offset{{"logOffset", 0}}));  // again: nothing to do, no error
}

// A file that cannot be archived is a warning in the log; the batch stays committed.
TEST_F(FileSourceStream, CleanSourceFailureIsLoggedAndNotFatal) {
  Add("a.json", kT);
  WriteFile(dir_.Sub("archive"), "a file where the archive directory should be", kT);
  auto s = Open({{"cleanSource", "archive"}, {"sourceArchiveDir", dir_.Sub("archive")}});
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  sluice::testing::LogCapture log;
  EXPECT_OK(s->Commit(Offset{{"logOffset", 0}}));
  EXPECT_TRUE(std::filesystem::exists(In() + "/a.json"));
  EXPECT_THAT(log.Text(), HasSubstr("warning: cleanSource could not clean " + io::PathToUri(In() + "/a.json")));
}

TEST_F(FileSourceStream, MalformedRowsAreCountedInMetrics) {
  WriteFile(In() + "/a.json", "{\"v\":\"ok\"}\nnot json\n", kT);
  auto s = Open({{"mode", "DROPMALFORMED"}});
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"ok"}));
  EXPECT_EQ(s->metrics().malformed_rows, 1);
}

TEST_F(FileSourceStream, ReadAheadDecodesTheNextBatchEarlyAndGivesTheSameRows) {
  for (int i = 0; i < 4; ++i) Add("f" + std::to_string(i) + ".json", kT + i);
  for (const char* read_ahead : {"true", "false"}) {
    SCOPED_TRACE(read_ahead);
    std::filesystem::remove_all(Meta());
    auto s = Open({{"maxFilesPerTrigger", "1"}, {"readAhead", read_ahead}});
    std::optional<int64_t> start;
    for (int b = 0; b < 4; ++b) {
      ASSERT_EQ(Next(*s, start), b);
      EXPECT_EQ(Batch(*s, start, b), (Strings{"f" + std::to_string(b) + ".json"}));
      start = b;
    }
    // Batches 1..3 each took the files the batch before had read ahead; the last read none.
    EXPECT_EQ(s->metrics().custom.at("readAheadHits"), std::string(read_ahead) == "true" ? "3" : "0");
  }
}

TEST_F(FileSourceStream, AFileChangedOrDeletedAfterItWasReadAheadIsReadAgain) {
  Add("a.json", kT + 1);
  Add("b.json", kT + 2);
  Add("c.json", kT + 3);
  auto s = Open({{"maxFilesPerTrigger", "1"}});
  ASSERT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(Batch(*s, std::nullopt, 0), (Strings{"a.json"}));  // and reads b.json ahead
  ASSERT_EQ(Next(*s, 0), 1);
  // Whether the read-ahead decoded b.json before or after this rewrite, the batch has the new rows
  // (ReadAheadTest below orders the two steps).
  WriteFile(In() + "/b.json", "{\"v\":\"b, rewritten\"}\n", kT + 5);
  EXPECT_EQ(Batch(*s, 0, 1), (Strings{"b, rewritten"}));
  ASSERT_EQ(Next(*s, 1), 2);
  std::filesystem::remove(In() + "/c.json");  // read ahead after batch 1, then deleted
  auto gone = s->GetBatch(Offset{{"logOffset", 1}}, Offset{{"logOffset", 2}});
  ASSERT_FALSE(gone.ok());
  EXPECT_THAT(gone.status().message(), HasSubstr("no longer exists"));
}

// The read-ahead itself, with the read's end in the test's hands.
class ReadAheadTest : public FileSourceStream {
 protected:
  // Starts reading `paths`; the returned future is ready once the read has finished.
  std::future<void> Start(ReadAhead& ra, std::vector<std::string> paths,
                          arrow::internal::Executor* executor = nullptr) {
    auto done = std::make_shared<std::promise<void>>();
    std::future<void> finished = done->get_future();
    auto schema = arrow::schema({arrow::field("v", arrow::utf8())});
    ra.Start(fs_.get(), std::move(paths), [this, schema, done, executor](const std::vector<std::string>& p) {
      FileFormatOptions format;
      format.format = "json";
      auto r = ReadDataFiles(fs_.get(), p, schema, format, executor);
      done->set_value();
      return r;
    });
    return finished;
  }
  std::vector<io::FileInfo> Stats(const std::vector<std::string>& paths) {
    std::vector<io::FileInfo> out;
    for (const auto& p : paths) {
      auto info = fs_->Stat(p);
      EXPECT_TRUE(info.ok() && *info);
      out.push_back(**info);
      out.back().path = p;
    }
    return out;
  }
  std::shared_ptr<io::FileSystem> fs_ = io::LocalFileSystem();
};

TEST_F(ReadAheadTest, GivesItsResultOnlyForTheSameUnchangedFiles) {
  Add("a.json", kT + 1);
  Add("b.json", kT + 2);
  const std::string a = In() + "/a.json", b = In() + "/b.json";
  ReadAhead ra;
  EXPECT_FALSE(ra.Take(Stats({a})));  // nothing started

  Start(ra, {a, b}).wait();
  auto hit = ra.Take(Stats({a, b}));
  ASSERT_TRUE(hit);
  EXPECT_EQ(Rows(hit->table), (Strings{"a.json", "b.json"}));
  EXPECT_FALSE(ra.Take(Stats({a, b})));  // taken once

  Start(ra, {a, b}).wait();
  EXPECT_FALSE(ra.Take(Stats({a})));  // other files
  Start(ra, {a, b}).wait();
  EXPECT_FALSE(ra.Take(Stats({b, a})));  // another order

  Start(ra, {a, b}).wait();
  WriteFile(b, "{\"v\":\"b, rewritten\"}\n", kT + 2);  // same mtime, other size
  EXPECT_FALSE(ra.Take(Stats({a, b})));
  Start(ra, {a}).wait();
  WriteFile(a, "{\"v\":\"A.json\"}\n", kT + 9);  // same size, other mtime
  EXPECT_FALSE(ra.Take(Stats({a})));

  Start(ra, {a, In() + "/missing.json"});  // a failed read is dropped (Take waits for it)
  EXPECT_FALSE(ra.Take(Stats({a})));
  EXPECT_EQ(ra.hits(), 1);
  EXPECT_EQ(ra.misses(), 5);
}

// A read-ahead decodes its files on threads of its own: with every thread of Arrow's CPU pool
// busy (as the batch in progress keeps it, encoding its sink's files), it still finishes.
TEST_F(ReadAheadTest, DecodesWhileEveryThreadOfTheCpuPoolIsBusy) {
  Add("a.json", kT + 1);
  Add("b.json", kT + 2);
  const std::string a = In() + "/a.json", b = In() + "/b.json";
  auto* cpu = arrow::internal::GetCpuThreadPool();
  ASSERT_NE(ReadAheadExecutor(), cpu);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto busy = std::make_shared<std::atomic<int>>(0);
  const int threads = cpu->GetCapacity();
  for (int i = 0; i < threads; ++i) {
    ASSERT_OK(cpu->Spawn([busy, released] {
      ++*busy;
      released.wait_for(std::chrono::seconds(60));
    }));
  }
  for (int i = 0; i < 6000 && busy->load() < threads; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(busy->load(), threads);

  ReadAhead ra;
  const auto finished = Start(ra, {a, b}, ReadAheadExecutor()).wait_for(std::chrono::seconds(30));
  release.set_value();
  ASSERT_EQ(finished, std::future_status::ready) << "the read-ahead waited for the CPU pool";
  auto hit = ra.Take(Stats({a, b}));
  ASSERT_TRUE(hit);
  EXPECT_EQ(Rows(hit->table), (Strings{"a.json", "b.json"}));
}

}  // namespace
}  // namespace sluice::source
