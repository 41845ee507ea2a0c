// Incremental listing of a streaming file source's directory: a batch touches only the files
// that are new (counted through a counting filesystem), an unchanged directory is not read,
// removals are seen, and a restarted source rebuilds what it skips from its log.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>

#include "file_source_test_util.h"
#include "source/file_listing.h"
#include "source/file_source.h"
#include "support/counting_file_system.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using sluice::testing::CountingFileSystem;
using testing::TempDir;
using testing::WriteFile;

constexpr int64_t kT = 1'700'000'000'000;

std::string Name(int i) { return "f" + std::to_string(10000 + i) + ".json"; }

// Dates `dir` back by a minute, as a directory nobody wrote to lately (so its unchanged time
// can be trusted: see IncrementalListing).
void AgeDirectory(const std::string& dir) {
  const auto now = std::chrono::system_clock::now() - std::chrono::minutes(1);
  const int64_t s = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  struct timespec times[2] = {{s, 0}, {s, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, dir.c_str(), times, 0), 0);
}

TEST(IncrementalListing, SecondListingStatsOnlyTheNewFiles) {
  TempDir tmp;
  const std::string in = tmp.Sub("in");
  for (int i = 0; i < 300; ++i) WriteFile(in + "/" + Name(i), "{}\n", kT + i);
  WriteFile(in + "/.hidden.json", "{}\n", kT);
  auto counting = std::make_shared<CountingFileSystem>();
  IncrementalListing listing(counting, in, FileListingOptions{"*.json", false});
  auto none = [](const std::string&) { return false; };
  std::vector<io::FileInfo> added;
  std::vector<std::string> removed;
  ASSERT_OK(listing.Update(none, &added, &removed));
  EXPECT_EQ(added.size(), 300u);
  EXPECT_EQ(counting->Calls("Stat", ".json"), 300);

  for (int i = 300; i < 305; ++i) WriteFile(in + "/" + Name(i), "{}\n", kT + i);
  counting->Reset();
  added.clear();
  ASSERT_OK(listing.Update(none, &added, &removed));
  ASSERT_EQ(added.size(), 5u);
  EXPECT_EQ(counting->Calls("Stat", ".json"), 5);  // only the new files, not the 300 seen before
  EXPECT_EQ(counting->Calls("ListNames"), 1);
  EXPECT_EQ(added[0].path, in + "/" + Name(300));
  EXPECT_EQ(added[0].mtime_ms, kT + 300);
  EXPECT_TRUE(removed.empty());

  // Unchanged (and old enough to trust): the directory is not read at all.
  AgeDirectory(in);
  ASSERT_OK(listing.Update(none, &added, &removed));  // reads it once more: the time changed
  counting->Reset();
  added.clear();
  ASSERT_OK(listing.Update(none, &added, &removed));
  EXPECT_TRUE(added.empty());
  EXPECT_EQ(counting->Calls("ListNames"), 0);
  EXPECT_EQ(counting->Calls("Stat"), 1);  // the directory's own time

  // A removal changes the directory: it is read again and the name is reported gone.
  std::filesystem::remove(in + "/" + Name(7));
  ASSERT_OK(listing.Update(none, &added, &removed));
  EXPECT_TRUE(added.empty());
  EXPECT_EQ(removed, std::vector<std::string>{in + "/" + Name(7)});
}

TEST(IncrementalListing, SkippedFilesAreNeverStatted) {
  TempDir tmp;
  const std::string in = tmp.Sub("in");
  for (int i = 0; i < 50; ++i) WriteFile(in + "/" + Name(i), "{}\n", kT + i);
  auto counting = std::make_shared<CountingFileSystem>();
  IncrementalListing listing(counting, in, FileListingOptions{});
  std::vector<io::FileInfo> added;
  std::vector<std::string> removed;
  ASSERT_OK(listing.Update([&](const std::string& p) { return p < in + "/" + Name(40); }, &added, &removed));
  EXPECT_EQ(added.size(), 10u);
  EXPECT_EQ(counting->Calls("Stat", ".json"), 10);
}

TEST(IncrementalListing, NewFilesInSubdirectoriesOfARecursiveListing) {
  TempDir tmp;
  const std::string in = tmp.Sub("in");
  WriteFile(in + "/a/x.json", "{}\n", kT);
  WriteFile(in + "/b/y.json", "{}\n", kT);
  auto counting = std::make_shared<CountingFileSystem>();
  IncrementalListing listing(counting, in, FileListingOptions{"", true});
  std::vector<io::FileInfo> added;
  std::vector<std::string> removed;
  ASSERT_OK(listing.Update([](const std::string&) { return false; }, &added, &removed));
  EXPECT_EQ(added.size(), 2u);
  WriteFile(in + "/b/z.json", "{}\n", kT);
  WriteFile(in + "/c/w.json", "{}\n", kT);
  added.clear();
  counting->Reset();
  ASSERT_OK(listing.Update([](const std::string&) { return false; }, &added, &removed));
  std::vector<std::string> paths;
  for (const auto& f : added) paths.push_back(f.path);
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{in + "/b/z.json", in + "/c/w.json"}));
  std::filesystem::remove_all(in + "/a");
  ASSERT_OK(listing.Update([](const std::string&) { return false; }, &added, &removed));
  EXPECT_NE(std::find(removed.begin(), removed.end(), in + "/a/x.json"), removed.end());
}

class IncrementalSource : public ::testing::Test {
 protected:
  std::unique_ptr<Source> Open(std::shared_ptr<io::FileSystem> fs,
                               std::vector<std::pair<std::string, std::string>> options = {}) {
    SourceContext ctx{std::move(fs), dir_.Sub("ckpt/sources/0"), 100, {}};
    auto source = MakeFileStreamSource(
        testing::Spec("json", dir_.Sub("in"), arrow::schema({arrow::field("v", arrow::utf8())}), options), ctx);
    EXPECT_OK(source);
    return source.ok() ? std::move(*source) : nullptr;
  }
  static int64_t Next(Source& s, std::optional<int64_t> start) {
    std::optional<Offset> from;
    if (start) from = Offset{{"logOffset", *start}};
    auto r = s.LatestOffset(from, /*limited=*/true);
    EXPECT_OK(r);
    return r.ok() && *r ? (**r)["logOffset"].get<int64_t>() : -1;
  }
  TempDir dir_;
};

TEST_F(IncrementalSource, EachBatchStatsOnlyNewFilesAndARestartOnlyUnloggedOnes) {
  const std::string in = dir_.Sub("in");
  for (int i = 0; i < 100; ++i) WriteFile(in + "/" + Name(i), "{\"v\":\"x\"}\n", kT + i);
  auto counting = std::make_shared<CountingFileSystem>();
  auto s = Open(counting, {{"maxFilesPerTrigger", "30"}});
  EXPECT_EQ(Next(*s, std::nullopt), 0);
  EXPECT_EQ(counting->Calls("Stat", ".json"), 100);
  counting->Reset();
  EXPECT_EQ(Next(*s, 0), 1);  // 30 more from the 70 listed before: no file is statted again
  EXPECT_EQ(counting->Calls("Stat", ".json"), 0);
  WriteFile(in + "/" + Name(100), "{\"v\":\"x\"}\n", kT + 1000);
  counting->Reset();
  EXPECT_EQ(Next(*s, 1), 2);
  EXPECT_EQ(counting->Calls("Stat", ".json"), 1);

  // Restart: the 90 logged files are skipped by name; only the 11 not logged are statted.
  s.reset();
  counting->Reset();
  auto again = Open(counting, {{"maxFilesPerTrigger", "100"}});
  EXPECT_EQ(Next(*again, 2), 3);
  EXPECT_EQ(counting->Calls("Stat", ".json"), 11);
  auto batch = again->GetBatch(Offset{{"logOffset", 2}}, Offset{{"logOffset", 3}});
  ASSERT_OK(batch);
  EXPECT_EQ((*batch)->num_rows(), 11);
  EXPECT_EQ(Next(*again, 3), 3);  // nothing left
}

TEST_F(IncrementalSource, AFileDeletedBeforeItsBatchIsNotTaken) {
  const std::string in = dir_.Sub("in");
  for (int i = 0; i < 3; ++i) WriteFile(in + "/" + Name(i), "{\"v\":\"x\"}\n", kT + i);
  auto s = Open(io::LocalFileSystem(), {{"maxFilesPerTrigger", "1"}});
  EXPECT_EQ(Next(*s, std::nullopt), 0);
  std::filesystem::remove(in + "/" + Name(1));  // listed, pending, then gone
  EXPECT_EQ(Next(*s, 0), 1);
  auto batch = s->GetBatch(Offset{{"logOffset", 0}}, Offset{{"logOffset", 1}});
  ASSERT_OK(batch);  // Name(2), not the deleted Name(1) (which would fail as missing)
  EXPECT_EQ((*batch)->num_rows(), 1);
  EXPECT_EQ(Next(*s, 1), 1);
}

}  // namespace
}  // namespace sluice::source
