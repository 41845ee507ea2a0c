// The RocksDB state store provider's own properties (the contract it shares with the file
// provider is in state_store_test.cc): restart from checkpoint files alone, its local database
// and where that lives.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "state/state_store.h"
#include "support/status.h"
#include "support/temp_dir.h"
#include "unit/state_store_test_util.h"

namespace sluice::state {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;
using sluice::testing::TempDir;

std::unique_ptr<StateStoreProvider> OpenRocksDB(const StateStoreId& id, const std::string& local_dir,
                                                StateStoreOptions options = {}) {
  options.local_dir = local_dir;
  return OpenStateStoreProvider("rocksdb", io::LocalFileSystem(), id, options).ValueOrDie();
}

TEST(RocksDBStateStore, RestartLoadsTheLastVersionFromCheckpointFilesAlone) {
  TempDir d, local;
  std::vector<Contents> expected;
  {
    auto p = OpenRocksDB(IdIn(d), local.path(), SnapshotEvery(4));
    expected = RandomHistory(p.get(), 10, 29, [&](int64_t) { ASSERT_OK(p->DoMaintenance(3)); });
    // The live database is in the provider's own working directory, not in the checkpoint.
    auto work = NamesIn(local.path());
    ASSERT_EQ(work.size(), 1u);
    EXPECT_EQ(work.begin()->rfind("sluice-rocksdb-", 0), 0u) << *work.begin();
    EXPECT_TRUE(fs::exists(local.Sub(*work.begin() + "/db/CURRENT")));
    for (const auto& name : NamesIn(d.Sub("state/0/0"))) {
      EXPECT_TRUE(name.ends_with(".delta") || name.ends_with(".snapshot")) << name;
    }
  }
  EXPECT_TRUE(NamesIn(local.path()).empty()) << "the destroyed provider left its working directory";
  auto q = OpenRocksDB(IdIn(d), local.path(), SnapshotEvery(4));
  EXPECT_EQ(q->LatestVersion().ValueOrDie(), 10);
  EXPECT_EQ(Load(q.get(), 10), expected[10]);
  EXPECT_EQ(Load(q.get(), 7), expected[7]);
  CommitBatch(q.get(), 10, {{"after", "restart"}});
  expected[10]["after"] = "restart";
  EXPECT_EQ(Load(OpenRocksDB(IdIn(d), local.path()).get(), 11), expected[10]);
}

TEST(RocksDBStateStore, AbortLeavesTheLocalDatabaseAtTheLoadedVersion) {
  TempDir d, local;
  auto p = OpenRocksDB(IdIn(d), local.path());
  CommitBatch(p.get(), 0, {{"a", "1"}, {"b", "2"}});
  {
    auto s = p->Load(1).ValueOrDie();
    for (int i = 0; i < 1000; ++i) ASSERT_OK(s->Put("x" + std::to_string(i), "v"));
    ASSERT_OK(s->Remove("a"));
    EXPECT_EQ(s->metrics().num_keys, 1001);
    s->Abort();
  }
  auto again = p->Load(1).ValueOrDie();
  EXPECT_EQ(again->metrics().num_keys, 2);
  EXPECT_EQ(Read(*again), (Contents{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(p->LatestVersion().ValueOrDie(), 1);
}

TEST(RocksDBStateStore, StoreIsRefusedOnceItsProviderMovedToAnotherVersion) {
  TempDir d, local;
  auto p = OpenRocksDB(IdIn(d), local.path());
  CommitBatch(p.get(), 0, {{"a", "1"}});
  auto first = p->Load(1).ValueOrDie();
  ASSERT_OK(first->Put("b", "from first"));
  CommitBatch(p.get(), 1, {{"c", "from second"}});
  // The database now holds version 2: `first` would read and commit on the wrong version.
  auto read = first->Get("a");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("stale")) << read.status().ToString();
  EXPECT_FALSE(first->Commit().ok());
  EXPECT_EQ(Load(p.get(), 2), (Contents{{"a", "1"}, {"c", "from second"}}));
  EXPECT_EQ(Load(OpenRocksDB(IdIn(d), local.path()).get(), 2), (Contents{{"a", "1"}, {"c", "from second"}}));
}

TEST(RocksDBStateStore, LocalDatabaseAtTheRequestedVersionNeedsNoFiles) {
  TempDir d, local;
  auto p = OpenRocksDB(IdIn(d), local.path());
  CommitBatch(p.get(), 0, {{"a", "1"}});
  CommitBatch(p.get(), 1, {{"a", "2"}});
  fs::remove_all(d.Sub("state/0/0"));
  EXPECT_EQ(Load(p.get(), 2), (Contents{{"a", "2"}}));
  auto older = p->Load(1);
  ASSERT_FALSE(older.ok());
  EXPECT_THAT(older.status().message(), HasSubstr("1.delta' is missing")) << older.status().ToString();
}

TEST(RocksDBStateStore, DefaultWorkingDirectoryLivesInTheCheckpointAndGoesWithTheLastProvider) {
  TempDir d;
  const std::string base = d.Sub(kRocksDBLocalDirName);
  // A working directory of a run that crashed (another pid) is garbage the next run removes.
  const std::string crashed = base + "/sluice-rocksdb-999999999-0000/db";
  fs::create_directories(crashed);
  {
    auto a = OpenStateStoreProvider("rocksdb", io::LocalFileSystem(), IdIn(d, 0, 0)).ValueOrDie();
    auto b = OpenStateStoreProvider("rocksdb", io::LocalFileSystem(), IdIn(d, 0, 1)).ValueOrDie();
    CommitBatch(a.get(), 0, {{"k", "a"}});
    CommitBatch(b.get(), 0, {{"k", "b"}});
    EXPECT_FALSE(fs::exists(crashed));
    const auto work = NamesIn(base);
    ASSERT_EQ(work.size(), 2u);
    for (const auto& name : work) {
      EXPECT_TRUE(name.starts_with("sluice-rocksdb-" + std::to_string(::getpid()) + "-")) << name;
    }
    a.reset();
    EXPECT_EQ(NamesIn(base).size(), 1u) << "a closed provider leaves its working directory";
  }
  EXPECT_FALSE(fs::exists(base)) << "the last provider leaves " << base;
}

}  // namespace
}  // namespace sluice::state
