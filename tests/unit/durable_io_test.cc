// The durability steps of the filesystem seam: how many syncs a log entry, a sink batch and a
// run of entries cost (counted by the local filesystem itself), deferred directory syncs kept
// in the order the entries were made, the fault-injecting wrapper failing them, new files named
// only once synced (a large one's write-back started as it is written), the unnamed files made between batches, and the file sink log's compaction
// served from memory.
#include <arrow/api.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "checkpoint/file_sink_log.h"
#include "io/fault_injection.h"
#include "io/file_system.h"
#include "sink/file_sink.h"
#include "source/file_source_log.h"
#include "support/counting_file_system.h"
#include "support/rows.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;
using testing::CountingFileSystem;
using testing::TempDir;
namespace fs = std::filesystem;

// Syncs made by the local filesystem while `fn` runs.
template <typename Fn>
io::SyncCounts SyncsDuring(Fn&& fn) {
  const io::SyncCounts before = io::LocalSyncCounts();
  fn();
  const io::SyncCounts after = io::LocalSyncCounts();
  return io::SyncCounts{after.file_syncs - before.file_syncs, after.dir_syncs - before.dir_syncs};
}

std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(DurableIo, ALargeNewFilesWriteBackIsStartedAsItIsWrittenAndTheSyncStillComesAtClose) {
  TempDir tmp;
  auto local = io::LocalFileSystem();
  ASSERT_OK(local->SyncDeferred());
  const std::string piece(64 << 10, 'x');
  // Writes `pieces` pieces to a new file; `started` gets the write-backs started while writing.
  const auto write = [&](const std::string& name, int pieces, int64_t* started) {
    const io::SyncCounts before = io::LocalSyncCounts();
    ASSERT_OK_AND_ASSIGN(auto out, local->OpenNewFile(tmp.Sub(name), io::EntrySync::kNow));
    for (int i = 0; i < pieces; ++i) ASSERT_OK(out->Write(piece.data(), static_cast<int64_t>(piece.size())));
    const io::SyncCounts written = io::LocalSyncCounts();
    EXPECT_EQ(written.file_syncs, before.file_syncs);  // a write-back makes nothing durable
    ASSERT_OK(out->Close());
    const io::SyncCounts closed = io::LocalSyncCounts();
    EXPECT_EQ(closed.file_syncs - before.file_syncs, 1);  // the data sync, at Close as always
    EXPECT_EQ(closed.write_backs, written.write_backs);
    EXPECT_EQ(fs::file_size(tmp.Sub(name)), piece.size() * pieces);
    *started = written.write_backs - before.write_backs;
  };
  int64_t started = -1;
  write("small", 16, &started);  // 1 MiB
  EXPECT_EQ(started, 0);
  write("large", 160, &started);  // 10 MiB: one every 4 MiB written
  EXPECT_EQ(started, 2);
}

// The share of `path`'s pages in the page cache (mapping a file faults nothing in).
double CachedShare(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size == 0) return -1;
  void* map = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((static_cast<size_t>(st.st_size) + page - 1) / page);
  const bool ok = ::mincore(map, static_cast<size_t>(st.st_size), in.data()) == 0;
  ::munmap(map, static_cast<size_t>(st.st_size));
  if (!ok) return -1;
  return static_cast<double>(std::count_if(in.begin(), in.end(), [](unsigned char c) { return c & 1; })) /
         static_cast<double>(in.size());
}

TEST(DurableIo, WillReadStartsReadingTheFilePagesTheCacheLacks) {
  TempDir tmp;
  const std::string path = tmp.Sub("input.json");
  {
    std::ofstream out(path, std::ios::binary);
    const std::string line = "{\"a\": 1, \"b\": \"" + std::string(100, 'x') + "\"}\n";
    for (int i = 0; i < 80000; ++i) out << line;  // ~9 MB
  }
  // Out of the cache: written back first (only clean pages can be dropped), then dropped.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::fdatasync(fd), 0);
  ASSERT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
  ::close(fd);
  const double before = CachedShare(path);
  ASSERT_GE(before, 0);
  if (before > 0.5) GTEST_SKIP() << "the temp directory's filesystem keeps a file's pages (tmpfs?): " << before;
  auto local = io::LocalFileSystem();
  local->WillRead(tmp.Sub("missing.json"), 1 << 20);  // a hint only: nothing to report
  local->WillRead(path, int64_t{2} << 20);
  // The reads were started, not waited for: the first 2 MiB (~22 %) arrive soon; the rest was not
  // asked for.
  double share = 0;
  for (int i = 0; i < 500 && share < 0.15; ++i) {
    share = CachedShare(path);
    if (share < 0.15) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(share, 0.15);
  EXPECT_LT(CachedShare(path), 0.6);
}

TEST(DurableIo, CreateOnlyWriteIsOneDataSyncAndOneDirectorySyncAndLeavesNoTempName) {
  TempDir tmp;
  auto local = io::LocalFileSystem();
  ASSERT_OK(local->SyncDeferred());  // nothing owed from earlier tests
  auto syncs = SyncsDuring([&] { ASSERT_OK(local->WriteAtomic(tmp.Sub("0"), "v1\nbody", /*overwrite=*/false)); });
  EXPECT_EQ(syncs.file_syncs, 1);
  EXPECT_EQ(syncs.dir_syncs, 1);
  EXPECT_EQ(*local->ReadFile(tmp.Sub("0")), "v1\nbody");
  EXPECT_EQ(Names(tmp.path()), std::vector<std::string>{"0"});
  Status again = local->WriteAtomic(tmp.Sub("0"), "other", /*overwrite=*/false);
  EXPECT_TRUE(again.IsAlreadyExists()) << again.ToString();
  EXPECT_EQ(*local->ReadFile(tmp.Sub("0")), "v1\nbody");
  EXPECT_EQ(Names(tmp.path()), std::vector<std::string>{"0"});  // the refused write left nothing behind
  ASSERT_OK(local->WriteAtomic(tmp.Sub("0"), "replaced", /*overwrite=*/true));
  EXPECT_EQ(*local->ReadFile(tmp.Sub("0")), "replaced");
  EXPECT_EQ(Names(tmp.path()), std::vector<std::string>{"0"});
}

// The local filesystem with directories a/ and b/ in `tmp`, and no sync owed from earlier tests.
std::shared_ptr<io::FileSystem> LocalOverTwoDirs(const TempDir& tmp) {
  fs::create_directories(tmp.Sub("a"));
  fs::create_directories(tmp.Sub("b"));
  auto local = io::LocalFileSystem();
  EXPECT_OK(local->SyncDeferred());
  return local;
}

TEST(DurableIo, DeferredDirectorySyncIsPaidByTheNextEntryOrSyncDeferred) {
  TempDir tmp;
  auto local = LocalOverTwoDirs(tmp);
  auto deferred = SyncsDuring([&] {
    ASSERT_OK(local->WriteAtomic(tmp.Sub("a/0"), "x", /*overwrite=*/false, io::EntrySync::kDeferred));
  });
  EXPECT_EQ(deferred.file_syncs, 1);
  EXPECT_EQ(deferred.dir_syncs, 0);
  // The next entry waits for a/ (in parallel with its own data sync), then syncs b/.
  auto next = SyncsDuring([&] { ASSERT_OK(local->WriteAtomic(tmp.Sub("b/0"), "y", /*overwrite=*/false)); });
  EXPECT_EQ(next.file_syncs, 1);
  EXPECT_EQ(next.dir_syncs, 2);
  EXPECT_EQ(SyncsDuring([&] { ASSERT_OK(local->SyncDeferred()); }).total(), 0);

  // Three renames into one directory: one directory sync for all of them.
  for (int i = 0; i < 3; ++i) std::ofstream(tmp.Sub("a/.t" + std::to_string(i))) << i;
  auto renames = SyncsDuring([&] {
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK(local->Rename(tmp.Sub("a/.t" + std::to_string(i)), tmp.Sub("a/f" + std::to_string(i)),
                              io::EntrySync::kDeferred));
    }
    ASSERT_OK(local->SyncDeferred());
  });
  EXPECT_EQ(renames.dir_syncs, 1);
  EXPECT_EQ(renames.file_syncs, 0);
}

TEST(DurableIo, UnsyncedEntryPaysTheDeferredSyncsOfOthersButNoneOfItsOwn) {
  TempDir tmp;
  auto local = LocalOverTwoDirs(tmp);
  ASSERT_OK(local->WriteAtomic(tmp.Sub("a/0"), "x", /*overwrite=*/false, io::EntrySync::kDeferred));
  // a/0 becomes durable before b/0 is named; b/0 itself is neither data- nor directory-synced.
  auto unsynced = SyncsDuring([&] {
    ASSERT_OK(local->WriteAtomic(tmp.Sub("b/0"), "y", /*overwrite=*/false, io::EntrySync::kNone));
  });
  EXPECT_EQ(unsynced.file_syncs, 0);
  EXPECT_EQ(unsynced.dir_syncs, 1);
  EXPECT_EQ(SyncsDuring([&] { ASSERT_OK(local->SyncDeferred()); }).total(), 0);
  EXPECT_EQ(local->ReadFile(tmp.Sub("b/0")).ValueOrDie(), "y");
  // Still create-only.
  EXPECT_TRUE(local->WriteAtomic(tmp.Sub("b/0"), "z", /*overwrite=*/false, io::EntrySync::kNone).IsAlreadyExists());
  // An unsynced entry does not pay for deferred entries of its own directory: they stay owed.
  ASSERT_OK(local->WriteAtomic(tmp.Sub("a/1"), "x", /*overwrite=*/false, io::EntrySync::kDeferred));
  EXPECT_EQ(SyncsDuring([&] {
    ASSERT_OK(local->WriteAtomic(tmp.Sub("a/2"), "y", /*overwrite=*/false, io::EntrySync::kNone));
  }).total(), 0);
  EXPECT_EQ(SyncsDuring([&] { ASSERT_OK(local->SyncDeferred()); }).dir_syncs, 1);
}

TEST(DurableIo, FaultSpecParsesSyncAndListKinds) {
  ASSERT_OK_AND_ASSIGN(auto sync, io::FaultSpec::Parse("sync=/out,hits=3,action=fail"));
  EXPECT_EQ(sync.sync_substring, "/out");
  EXPECT_EQ(sync.hits, 3);
  ASSERT_OK_AND_ASSIGN(auto list, io::FaultSpec::Parse("list=/in"));
  EXPECT_EQ(list.list_substring, "/in");
  EXPECT_THAT(io::FaultSpec::Parse("sync=a,write=b").status().message(), HasSubstr("exactly one of"));
}

TEST(DurableIo, InjectedFaultAtADeferredSyncStopsTheNextEntryFromBeingMade) {
  TempDir tmp;
  fs::create_directories(tmp.Sub("out"));
  fs::create_directories(tmp.Sub("log"));
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(),
                                                               *io::FaultSpec::Parse("sync=/out,action=fail"));
  std::ofstream(tmp.Sub("out/.part.tmp")) << "data";
  ASSERT_OK(faulty->Rename(tmp.Sub("out/.part.tmp"), tmp.Sub("out/part"), io::EntrySync::kDeferred));
  EXPECT_FALSE(faulty->triggered());
  // The log entry that must not become durable before out/ is synced: refused, not written.
  Status st = faulty->WriteAtomic(tmp.Sub("log/0"), "entry", /*overwrite=*/false);
  EXPECT_TRUE(faulty->triggered());
  EXPECT_THAT(st.ToString(), HasSubstr("injected fault at sync of directory " + tmp.Sub("out")));
  EXPECT_FALSE(fs::exists(tmp.Sub("log/0")));
  // The sync is still owed; the fault fired once, so the retry makes it and then the entry.
  ASSERT_OK(faulty->WriteAtomic(tmp.Sub("log/0"), "entry", /*overwrite=*/false));
  EXPECT_TRUE(fs::exists(tmp.Sub("log/0")));

  auto failing_sync = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(),
                                                                     *io::FaultSpec::Parse("sync=/log,action=fail"));
  ASSERT_OK(failing_sync->WriteAtomic(tmp.Sub("log/1"), "e", /*overwrite=*/false, io::EntrySync::kDeferred));
  EXPECT_FALSE(failing_sync->SyncDeferred().ok());
}

TEST(DurableIo, InjectedFaultFailsListNames) {
  TempDir tmp;
  std::ofstream(tmp.Sub("a.json")) << "{}";
  fs::create_directories(tmp.Sub("sub"));
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(),
                                                               *io::FaultSpec::Parse("list=sluice-test,hits=2,action=fail"));
  ASSERT_OK_AND_ASSIGN(auto names, faulty->ListNames(tmp.path()));
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].name, "a.json");
  EXPECT_FALSE(names[0].is_dir);
  EXPECT_EQ(names[1].name, "sub");
  EXPECT_TRUE(names[1].is_dir);
  Status st = faulty->ListNames(tmp.path()).status();
  EXPECT_THAT(st.ToString(), HasSubstr("injected fault at listing of"));
}

TEST(DurableIo, SinkBatchSyncsEachPartFileOnceAndItsDirectoryOnce) {
  TempDir tmp;
  sink::SinkSpec spec;
  spec.format = "parquet";
  spec.options.Set("path", tmp.Sub("out"));
  spec.options.Set("maxRecordsPerFile", "1");
  sink::SinkContext ctx;
  ctx.fs = io::LocalFileSystem();
  ASSERT_OK_AND_ASSIGN(auto sink, sink::MakeFileSink(spec, ctx));
  ASSERT_OK(io::LocalFileSystem()->SyncDeferred());
  auto batch = SyncsDuring([&] { ASSERT_OK(sink->AddBatch(0, testing::IdNameRows(0, 3))); });
  EXPECT_EQ(batch.file_syncs, 4);  // three part files and the log entry
  EXPECT_EQ(batch.dir_syncs, 1);   // out/ once for the three files, before the log entry exists
  // The log entry's own directory is owed to whatever entry comes next (commits/N in a query).
  auto owed = SyncsDuring([&] { ASSERT_OK(io::LocalFileSystem()->SyncDeferred()); });
  EXPECT_EQ(owed.dir_syncs, 1);
  ASSERT_OK_AND_ASSIGN(auto committed, checkpoint::ReadCommittedFiles(io::LocalFileSystem(), tmp.Sub("out")));
  EXPECT_EQ(committed->size(), 3u);
}

// What this process's open descriptors point at (readlink of /proc/self/fd/*).
std::vector<std::string> OpenFileTargets() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    auto target = fs::read_symlink(e.path(), ec);
    if (!ec) out.push_back(target.string());
  }
  return out;
}

int OpenFilesUnder(const std::string& dir) {
  int n = 0;
  for (const auto& t : OpenFileTargets()) n += t.rfind(dir + "/", 0) == 0;
  return n;
}

TEST(DurableIo, NewFileGetsItsNameOnlyWhenCloseHasSyncedIt) {
  TempDir tmp;
  auto local = io::LocalFileSystem();
  ASSERT_OK(local->SyncDeferred());
  ASSERT_OK_AND_ASSIGN(auto out, local->OpenNewFile(tmp.Sub("part"), io::EntrySync::kDeferred));
  ASSERT_OK(out->Write("abc", 3));
  ASSERT_OK(out->Flush());
  EXPECT_TRUE(Names(tmp.path()).empty());  // written, not yet named
  auto close = SyncsDuring([&] { ASSERT_OK(out->Close()); });
  EXPECT_EQ(close.file_syncs, 1);
  EXPECT_EQ(close.dir_syncs, 0);  // deferred: owed to the next entry
  EXPECT_EQ(*local->ReadFile(tmp.Sub("part")), "abc");
  EXPECT_EQ(SyncsDuring([&] { ASSERT_OK(local->SyncDeferred()); }).dir_syncs, 1);

  // Create-only: a second file under the name is refused at Close, the first one kept.
  ASSERT_OK_AND_ASSIGN(auto again, local->OpenNewFile(tmp.Sub("part"), io::EntrySync::kNow));
  ASSERT_OK(again->Write("other", 5));
  Status st = again->Close();
  EXPECT_TRUE(st.IsAlreadyExists()) << st.ToString();
  EXPECT_EQ(*local->ReadFile(tmp.Sub("part")), "abc");
  // Given up: nothing is named.
  ASSERT_OK_AND_ASSIGN(auto dropped, local->OpenNewFile(tmp.Sub("dropped"), io::EntrySync::kNow));
  ASSERT_OK(dropped->Write("xyz", 3));
  ASSERT_OK(dropped->Abort());
  EXPECT_EQ(Names(tmp.path()), std::vector<std::string>{"part"});
  EXPECT_EQ(OpenFilesUnder(tmp.path()), 0);

  // Through the fault-injecting wrapper the naming is an entry like any other: its deferred
  // directory sync is met by a sync= fault at the next entry.
  fs::create_directories(tmp.Sub("out"));
  fs::create_directories(tmp.Sub("log"));
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(local, *io::FaultSpec::Parse("sync=/out,action=fail"));
  ASSERT_OK_AND_ASSIGN(auto part, faulty->OpenNewFile(tmp.Sub("out/part"), io::EntrySync::kDeferred));
  ASSERT_OK(part->Write("p", 1));
  ASSERT_OK(part->Close());
  EXPECT_FALSE(faulty->triggered());
  EXPECT_FALSE(faulty->WriteAtomic(tmp.Sub("log/0"), "entry", /*overwrite=*/false).ok());
  EXPECT_TRUE(faulty->triggered());
  EXPECT_FALSE(fs::exists(tmp.Sub("log/0")));
}

TEST(DurableIo, EntriesFillTheFilesMadeForThemBetweenBatches) {
  TempDir tmp;
  auto local = io::LocalFileSystem();
  local->PrepareEntries();  // whatever earlier writes in this process asked for
  local->PrepareEntries();
  fs::create_directories(tmp.Sub("log"));
  ASSERT_OK(local->WriteAtomic(tmp.Sub("log/0"), "zero", /*overwrite=*/false));
  local->PrepareEntries();  // one batch wrote there: no file made (a directory used once gets none)
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 0);
  ASSERT_OK(local->WriteAtomic(tmp.Sub("log/1"), "one", /*overwrite=*/false));
  local->PrepareEntries();  // two batches in a row did: one unnamed file there
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 1);
  EXPECT_EQ(Names(tmp.Sub("log")), (std::vector<std::string>{"0", "1"}));  // it has no name
  // The next entry there fills it (syncs as ever: its data, its directory).
  auto syncs = SyncsDuring([&] { ASSERT_OK(local->WriteAtomic(tmp.Sub("log/2"), "two", /*overwrite=*/false)); });
  EXPECT_EQ(syncs.file_syncs, 1);
  EXPECT_EQ(syncs.dir_syncs, 1);
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 0);
  EXPECT_EQ(*local->ReadFile(tmp.Sub("log/2")), "two");
  EXPECT_EQ(Names(tmp.Sub("log")), (std::vector<std::string>{"0", "1", "2"}));

  // A refused entry (the name exists) uses the file up and leaves nothing behind.
  local->PrepareEntries();
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 1);
  EXPECT_TRUE(local->WriteAtomic(tmp.Sub("log/2"), "again", /*overwrite=*/false).IsAlreadyExists());
  EXPECT_EQ(*local->ReadFile(tmp.Sub("log/2")), "two");
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 0);

  // The directory deleted and made again between batches: the entry lands in the new one.
  ASSERT_OK(local->WriteAtomic(tmp.Sub("log/3"), "three", /*overwrite=*/false));
  local->PrepareEntries();
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 1);
  fs::remove_all(tmp.Sub("log"));
  fs::create_directories(tmp.Sub("log"));
  ASSERT_OK(local->WriteAtomic(tmp.Sub("log/4"), "four", /*overwrite=*/false));
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 0);
  EXPECT_EQ(Names(tmp.Sub("log")), std::vector<std::string>{"4"});
  EXPECT_EQ(*local->ReadFile(tmp.Sub("log/4")), "four");
  // A write that replaces an entry (a state store's delta of a batch run again) fills one too.
  local->PrepareEntries();
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 1);
  ASSERT_OK(local->WriteAtomic(tmp.Sub("log/4"), "FOUR", /*overwrite=*/true));
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("log")), 0);
  EXPECT_EQ(*local->ReadFile(tmp.Sub("log/4")), "FOUR");
  EXPECT_EQ(Names(tmp.Sub("log")), std::vector<std::string>{"4"});

  // A sink's part file fills one too.
  fs::create_directories(tmp.Sub("out"));
  for (const char* name : {"x", "y"}) {
    ASSERT_OK(local->WriteAtomic(tmp.Sub("out/") + name, name, /*overwrite=*/false));
    local->PrepareEntries();
  }
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("out")), 1);
  ASSERT_OK_AND_ASSIGN(auto part, local->OpenNewFile(tmp.Sub("out/part"), io::EntrySync::kNow));
  ASSERT_OK(part->Write("data", 4));
  ASSERT_OK(part->Close());
  EXPECT_EQ(OpenFilesUnder(tmp.Sub("out")), 0);
  EXPECT_EQ(*local->ReadFile(tmp.Sub("out/part")), "data");
}

TEST(DurableIo, FilesMadeAheadAreBounded) {
  TempDir tmp;
  auto local = io::LocalFileSystem();
  local->PrepareEntries();
  local->PrepareEntries();
  for (int round = 0; round < 2; ++round) {  // two batches, each writing in 40 directories
    for (int i = 0; i < 40; ++i) {
      const std::string dir = tmp.Sub("d" + std::to_string(i));
      fs::create_directories(dir);
      ASSERT_OK(local->WriteAtomic(dir + "/" + std::to_string(round), "e", /*overwrite=*/false, io::EntrySync::kNone));
    }
    local->PrepareEntries();
  }
  EXPECT_EQ(OpenFilesUnder(tmp.path()), 32);  // one per directory, at most 32 in a process
  local->PrepareEntries();                    // no entry since: nothing more
  EXPECT_EQ(OpenFilesUnder(tmp.path()), 32);
}

std::vector<checkpoint::SinkFileStatus> OneFile(int64_t batch) {
  checkpoint::SinkFileStatus s;
  s.path = "file:///data/part-" + std::to_string(batch) + ".parquet";
  s.size = 100 + batch;
  s.modification_time = 1'700'000'000'000 + batch;
  return {s};
}

TEST(DurableIo, SinkLogCompactionReadsNoLogFileOnceLoaded) {
  TempDir tmp;
  auto counting = std::make_shared<CountingFileSystem>();
  checkpoint::FileSinkLog log(counting, tmp.path());
  ASSERT_OK(log.Create());
  for (int64_t b = 0; b < 30; ++b) {
    counting->Reset();
    ASSERT_OK(log.Add(b, OneFile(b)));
    // Batch 9 was the first compaction: nothing was loaded yet, the log is read once (entries
    // 0..8). Every later compaction (19, 29) comes from memory.
    if (b == 9) {
      EXPECT_EQ(counting->Calls("ReadFile"), 9) << b;
    }
    if (b == 19 || b == 29) {
      EXPECT_EQ(counting->Calls("ReadFile"), 0) << b;
    }
  }
  ASSERT_OK_AND_ASSIGN(auto all, log.AllFiles());
  EXPECT_EQ(all.size(), 30u);
}

TEST(DurableIo, SinkLogCompactionAfterRestartEqualsCompactionWithout) {
  TempDir tmp;
  auto local = io::LocalFileSystem();
  checkpoint::FileSinkLog steady(local, tmp.Sub("steady"));
  ASSERT_OK(steady.Create());
  auto counting = std::make_shared<CountingFileSystem>();
  std::unique_ptr<checkpoint::FileSinkLog> writer;
  for (int64_t b = 0; b < 30; ++b) {
    // A new writer object (a restart) at batches 0, 13 and 24; the steady one never restarts.
    if (b == 0 || b == 13 || b == 24) {
      writer = std::make_unique<checkpoint::FileSinkLog>(counting, tmp.Sub("restarted"));
      ASSERT_OK(writer->Create());
    }
    ASSERT_OK(steady.Add(b, OneFile(b)));
    counting->Reset();
    ASSERT_OK(writer->Add(b, OneFile(b)));
    if (b == 19 || b == 29) {
      // The restarted writer read the log once, at its first compaction: 19.compact reads
      // 9.compact and entries 10..18; 29.compact reads 19.compact and 20..28.
      EXPECT_EQ(counting->Calls("ReadFile"), 10) << b;
      const std::string name = std::to_string(b) + ".compact";
      EXPECT_EQ(*local->ReadFile(tmp.Sub("steady/_spark_metadata/" + name)),
                *local->ReadFile(tmp.Sub("restarted/_spark_metadata/" + name)))
          << name;
    }
  }
  checkpoint::FileSinkLog reader(local, tmp.Sub("restarted"));
  ASSERT_OK_AND_ASSIGN(auto all, reader.AllFiles());
  ASSERT_EQ(all.size(), 30u);
  EXPECT_EQ(all[29].path, OneFile(29)[0].path);
}

// A compaction entry is written ahead, in the background, from the text the writer keeps and
// extends: when that write fails the batch writes the entry whole; when the batch's own naming
// of it fails, the redone batch does. Either way the entry and the compactions after it hold
// each file exactly once, as a writer without faults writes them.
struct CompactionFault {
  const char* spec;
  bool batch_fails;  // the compaction batch reports the fault (else the write ahead absorbs it)
};
constexpr CompactionFault kCompactionFaults[] = {
    {"write=19.compact,action=fail", false},
    {"point=before_log_entry_naming,action=fail", true},
};

TEST(DurableIo, SinkLogCompactionThatFailedIsWrittenWholeWhenRetried) {
  for (const auto& fault : kCompactionFaults) {
    SCOPED_TRACE(fault.spec);
    TempDir tmp;
    auto local = io::LocalFileSystem();
    checkpoint::FileSinkLog steady(local, tmp.Sub("steady"));
    ASSERT_OK(steady.Create());
    auto faulty = std::make_shared<io::FaultInjectingFileSystem>(local, *io::FaultSpec::Parse(fault.spec));
    checkpoint::FileSinkLog writer(faulty, tmp.Sub("faulty"));
    ASSERT_OK(writer.Create());
    for (int64_t b = 0; b < 30; ++b) {
      ASSERT_OK(steady.Add(b, OneFile(b)));
      Status st = writer.Add(b, OneFile(b));
      if (b == 19 && fault.batch_fails) {
        ASSERT_TRUE(st.IsIOError()) << st.ToString();
        EXPECT_FALSE(fs::exists(tmp.Sub("faulty/_spark_metadata/19.compact")));
        ASSERT_OK(writer.Add(b, OneFile(b)));  // the batch redone
      } else {
        ASSERT_OK(st);
      }
      if (!checkpoint::FileSinkLog::IsCompactionBatch(b)) continue;  // (older entries are deleted)
      const std::string name = "_spark_metadata/" + checkpoint::FileSinkLog::EntryName(b);
      EXPECT_EQ(*local->ReadFile(tmp.Sub("steady/" + name)), *local->ReadFile(tmp.Sub("faulty/" + name))) << name;
    }
    EXPECT_TRUE(faulty->triggered());
    checkpoint::FileSinkLog reader(local, tmp.Sub("faulty"));
    ASSERT_OK_AND_ASSIGN(auto all, reader.AllFiles());
    EXPECT_EQ(all.size(), 30u);
  }
}

// The same for the file source's log.
TEST(DurableIo, SourceLogCompactionThatFailedIsWrittenWholeWhenRetried) {
  for (const auto& fault : kCompactionFaults) {
    SCOPED_TRACE(fault.spec);
    TempDir tmp;
    auto local = io::LocalFileSystem();
    auto faulty = std::make_shared<io::FaultInjectingFileSystem>(local, *io::FaultSpec::Parse(fault.spec));
    source::FileSourceLog steady(local, tmp.Sub("steady"), /*min_batches_to_retain=*/2);
    source::FileSourceLog writer(faulty, tmp.Sub("faulty"), /*min_batches_to_retain=*/2);
    auto files = [](int64_t b) {
      source::FileEntry e;
      e.path = "/data/in-" + std::to_string(b) + ".json";
      e.timestamp = 1'700'000'000'000 + b;
      return std::vector<source::FileEntry>{e};
    };
    for (int64_t b = 0; b < 30; ++b) {
      if (b == 5) ASSERT_OK(writer.Load());  // a restart: the text is made again from the log
      ASSERT_OK(steady.Add(b, files(b)));
      Status st = writer.Add(b, files(b));
      if (b == 19 && fault.batch_fails) {
        ASSERT_TRUE(st.IsIOError()) << st.ToString();
        ASSERT_OK(writer.Add(b, files(b)));
      } else {
        ASSERT_OK(st);
      }
      if ((b + 1) % 10 != 0) continue;
      const std::string name = std::to_string(b) + ".compact";
      EXPECT_EQ(*local->ReadFile(tmp.Sub("steady/" + name)), *local->ReadFile(tmp.Sub("faulty/" + name))) << name;
    }
    EXPECT_TRUE(faulty->triggered());
    source::FileSourceLog reader(local, tmp.Sub("faulty"), 2);
    ASSERT_OK(reader.Load());
    ASSERT_OK_AND_ASSIGN(auto all, reader.FilesIn(-1, 29));
    ASSERT_EQ(all.size(), 30u);
    for (int64_t b = 0; b < 30; ++b) EXPECT_EQ(all[static_cast<size_t>(b)].path, files(b)[0].path);
  }
}

TEST(DurableIo, SinkLogCompactionKeepsDeletesOfTheCachedSet) {
  TempDir tmp;
  checkpoint::FileSinkLog log(io::LocalFileSystem(), tmp.path());
  ASSERT_OK(log.Create());
  for (int64_t b = 0; b < 20; ++b) {
    auto files = OneFile(b);
    if (b == 12) {  // drops batch 3's file
      files[0] = OneFile(3)[0];
      files[0].action = "delete";
    }
    ASSERT_OK(log.Add(b, files));
  }
  checkpoint::FileSinkLog reader(io::LocalFileSystem(), tmp.path());
  ASSERT_OK_AND_ASSIGN(auto all, reader.AllFiles());
  EXPECT_EQ(all.size(), 18u);  // 20 adds, batch 12's line is a delete of batch 3's file
  for (const auto& f : all) EXPECT_NE(f.path, OneFile(3)[0].path);
}

}  // namespace
}  // namespace sluice
