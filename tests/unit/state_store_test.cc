// The versioned state store: versions, reload from disk, redo, snapshots, retention, and
// detection of missing, corrupt and half-written files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "io/fault_injection.h"
#include "state/state_store.h"
#include "support/temp_dir.h"

namespace sluice::state {
namespace {

namespace fs = std::filesystem;
using sluice::testing::TempDir;
using Contents = std::map<std::string, std::string>;

StateStoreId IdIn(const TempDir& d, int64_t op = 0, int part = 0) { return StateStoreId{d.path(), op, part}; }

std::unique_ptr<StateStoreProvider> Open(const StateStoreId& id, StateStoreOptions options = {},
                                         std::shared_ptr<io::FileSystem> fs = io::LocalFileSystem()) {
  return OpenFileStateStoreProvider(std::move(fs), id, options).ValueOrDie();
}

Contents Read(const StateStore& store) {
  Contents out;
  EXPECT_TRUE(store.ForEach([&](std::string_view k, std::string_view v) {
                     out.emplace(std::string(k), std::string(v));
                     return Status::OK();
                   }).ok());
  return out;
}

Contents Load(StateStoreProvider* p, int64_t version) { return Read(*p->Load(version).ValueOrDie()); }

StateStoreOptions SnapshotEvery(int deltas) {
  StateStoreOptions options;
  options.snapshot_interval = deltas;
  return options;
}

// Applies `changes` (nullopt = remove) to version `version` and commits it.
void CommitBatch(StateStoreProvider* p, int64_t version,
                 const std::vector<std::pair<std::string, std::optional<std::string>>>& changes) {
  auto store = p->Load(version).ValueOrDie();
  for (const auto& [k, v] : changes) ASSERT_TRUE((v ? store->Put(k, *v) : store->Remove(k)).ok());
  ASSERT_EQ(store->Commit().ValueOrDie(), version + 1);
}

// Seeded random batches; returns the expected content of every version 0..n.
std::vector<Contents> RandomHistory(StateStoreProvider* p, int n, uint32_t seed,
                                    const std::function<void(int64_t)>& after_commit = nullptr) {
  std::mt19937 rng(seed);
  std::vector<Contents> expected(1);
  for (int64_t v = 0; v < n; ++v) {
    Contents next = expected.back();
    std::vector<std::pair<std::string, std::optional<std::string>>> changes;
    for (int i = 0; i < 20; ++i) {
      std::string key = "k" + std::to_string(rng() % 40);
      if (rng() % 4 == 0) {
        changes.emplace_back(key, std::nullopt);
        next.erase(key);
      } else {
        std::string value = "v" + std::to_string(v) + "." + std::to_string(rng() % 1000);
        changes.emplace_back(key, value);
        next[key] = value;
      }
    }
    CommitBatch(p, v, changes);
    expected.push_back(std::move(next));
    if (after_commit) after_commit(v + 1);
  }
  return expected;
}

TEST(StateStore, PutGetRemoveAcrossVersions) {
  TempDir d;
  auto p = Open(IdIn(d));
  EXPECT_TRUE(Load(p.get(), 0).empty());
  CommitBatch(p.get(), 0, {{"a", "1"}, {"b", "2"}});

  auto s1 = p->Load(1).ValueOrDie();
  EXPECT_EQ(s1->version(), 1);
  EXPECT_EQ(*s1->Get("a").ValueOrDie(), "1");
  ASSERT_TRUE(s1->Put("a", "10").ok());
  ASSERT_TRUE(s1->Remove("b").ok());
  ASSERT_TRUE(s1->Remove("never-there").ok());
  ASSERT_TRUE(s1->Put("c", "3").ok());
  EXPECT_FALSE(s1->Get("b").ValueOrDie().has_value());
  StateStoreMetrics m = s1->metrics();
  EXPECT_EQ(m.num_keys, 2);
  EXPECT_EQ(m.num_rows_updated, 2);  // a, c
  EXPECT_EQ(m.num_rows_removed, 1);  // b; the absent key is not counted
  EXPECT_GT(m.memory_used_bytes, 4);
  ASSERT_EQ(s1->Commit().ValueOrDie(), 2);
  EXPECT_EQ(s1->metrics().num_keys, 2);

  EXPECT_EQ(Load(p.get(), 1), (Contents{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(Load(p.get(), 2), (Contents{{"a", "10"}, {"c", "3"}}));
  EXPECT_TRUE(fs::exists(d.Sub("state/0/0/1.delta")));
  EXPECT_TRUE(fs::exists(d.Sub("state/0/0/2.delta")));
}

TEST(StateStore, IteratesInBytewiseKeyOrder) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"b", "x"}, {"\xff", "x"}, {"a", "x"}, {std::string("\x01", 1), "x"}, {"ab", "x"}});
  std::vector<std::string> keys;
  ASSERT_TRUE(p->Load(1).ValueOrDie()->ForEach([&](std::string_view k, std::string_view) {
                 keys.emplace_back(k);
                 return Status::OK();
               }).ok());
  EXPECT_EQ(keys, (std::vector<std::string>{"\x01", "a", "ab", "b", "\xff"}));
}

TEST(StateStore, CommittedOrAbortedStoreRefusesWritesAndAbortDropsChanges) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"a", "1"}});
  auto s = p->Load(1).ValueOrDie();
  ASSERT_TRUE(s->Put("a", "2").ok());
  s->Abort();
  Status after_abort = s->Put("b", "1");
  ASSERT_FALSE(after_abort.ok());
  EXPECT_NE(after_abort.message().find("operator 0 partition 0"), std::string::npos) << after_abort.ToString();
  EXPECT_FALSE(s->Commit().ok());
  EXPECT_EQ(Load(p.get(), 1), (Contents{{"a", "1"}}));
  EXPECT_FALSE(fs::exists(d.Sub("state/0/0/2.delta")));

  auto s2 = p->Load(1).ValueOrDie();
  ASSERT_TRUE(s2->Commit().ok());
  EXPECT_TRUE(s2->committed());
  EXPECT_FALSE(s2->Put("x", "y").ok());
  EXPECT_FALSE(s2->Commit().ok());
}

TEST(StateStore, FreshProviderReloadsExactlyWhatWasCommitted) {
  TempDir d;
  auto p = Open(IdIn(d, 3, 1));
  auto expected = RandomHistory(p.get(), 12, 7);
  auto fresh = Open(IdIn(d, 3, 1));
  for (int64_t v = 0; v <= 12; ++v) EXPECT_EQ(Load(fresh.get(), v), expected[v]) << "version " << v;
  EXPECT_EQ(fresh->LatestVersion().ValueOrDie(), 12);
  EXPECT_TRUE(fs::exists(d.Sub("state/3/1/12.delta")));
}

TEST(StateStore, NamedStoreLivesInItsOwnDirectory) {
  TempDir d;
  StateStoreId id{d.path(), 2, 0, "left"};
  auto p = Open(id);
  CommitBatch(p.get(), 0, {{"k", "v"}});
  EXPECT_TRUE(fs::exists(d.Sub("state/2/0/left/1.delta")));
  EXPECT_TRUE(Load(Open(IdIn(d, 2, 0)).get(), 0).empty());
}

TEST(StateStore, RedoOfAVersionOverwritesItsDelta) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"a", "1"}});
  CommitBatch(p.get(), 1, {{"x", "first attempt"}, {"a", "gone"}});
  // The batch is re-run after a crash before the commit log: version 1 again, new changes.
  auto restarted = Open(IdIn(d));
  CommitBatch(restarted.get(), 1, {{"x", "second attempt"}});
  EXPECT_EQ(Load(restarted.get(), 2), (Contents{{"a", "1"}, {"x", "second attempt"}}));
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 2), (Contents{{"a", "1"}, {"x", "second attempt"}}));
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.Sub("state/0/0"))) files += e.path().filename() == "2.delta";
  EXPECT_EQ(files, 1);
}

TEST(StateStore, RecentVersionsAreServedFromMemory) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"a", "1"}});
  CommitBatch(p.get(), 1, {{"a", "2"}});
  CommitBatch(p.get(), 2, {{"a", "3"}});
  fs::remove_all(d.Sub("state/0/0"));
  // The last two versions (2 and 3) need no file; version 1 does.
  EXPECT_EQ(Load(p.get(), 3), (Contents{{"a", "3"}}));
  EXPECT_EQ(Load(p.get(), 2), (Contents{{"a", "2"}}));
  EXPECT_FALSE(p->Load(1).ok());
}

TEST(StateStore, LoadsFromTheNewestSnapshotPlusLaterDeltas) {
  TempDir d;
  StateStoreOptions options = SnapshotEvery(3);
  auto p = Open(IdIn(d), options);
  auto expected = RandomHistory(p.get(), 10, 11, [&](int64_t) { ASSERT_TRUE(p->DoMaintenance(100).ok()); });
  for (int v : {3, 6, 9}) EXPECT_TRUE(fs::exists(d.Sub("state/0/0/" + std::to_string(v) + ".snapshot"))) << v;
  EXPECT_FALSE(fs::exists(d.Sub("state/0/0/10.snapshot")));
  // With the deltas before each snapshot gone, only snapshot + replay can give the right answer.
  for (int v = 1; v <= 6; ++v) fs::remove(d.Sub("state/0/0/" + std::to_string(v) + ".delta"));
  auto fresh = Open(IdIn(d), options);
  EXPECT_EQ(Load(fresh.get(), 7), expected[7]);
  EXPECT_EQ(Load(fresh.get(), 6), expected[6]);
  EXPECT_EQ(Load(Open(IdIn(d), options).get(), 10), expected[10]);
  EXPECT_FALSE(Open(IdIn(d), options)->Load(5).ok());
}

TEST(StateStore, MaintenanceDeletesOldFilesButKeepsEveryRetainedVersionLoadable) {
  TempDir d;
  StateStoreOptions options = SnapshotEvery(4);
  auto p = Open(IdIn(d), options);
  auto expected = RandomHistory(p.get(), 20, 5, [&](int64_t) { ASSERT_TRUE(p->DoMaintenance(5).ok()); });
  // latest 20, retain 5 -> versions 15..20 must load; the newest snapshot <= 15 is 12.
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(d.Sub("state/0/0"))) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"12.snapshot", "13.delta", "14.delta", "15.delta", "16.delta",
                                          "16.snapshot", "17.delta", "18.delta", "19.delta", "20.delta",
                                          "20.snapshot"}));
  for (int64_t v = 15; v <= 20; ++v) EXPECT_EQ(Load(Open(IdIn(d), options).get(), v), expected[v]) << v;
  auto old = Open(IdIn(d), options)->Load(3);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.status().message().find("1.delta' is missing"), std::string::npos) << old.status().ToString();
  EXPECT_FALSE(p->DoMaintenance(-1).ok());
}

TEST(StateStore, MissingDeltaIsReportedWithTheFileAndTheVersion) {
  TempDir d;
  auto p = Open(IdIn(d, 4, 2));
  RandomHistory(p.get(), 3, 1);
  auto beyond = Open(IdIn(d, 4, 2))->Load(5);
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.status().message().find("4.delta' is missing"), std::string::npos) << beyond.status().ToString();
  EXPECT_NE(beyond.status().message().find("latest version on disk is 3"), std::string::npos);
  fs::remove(d.Sub("state/4/2/2.delta"));
  auto r = Open(IdIn(d, 4, 2))->Load(3);
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("version 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("operator 4 partition 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find(d.Sub("state/4/2/2.delta")), std::string::npos) << msg;
}

TEST(StateStore, CorruptOrTruncatedDeltaIsDetectedNamingTheFile) {
  TempDir d;
  auto p = Open(IdIn(d));
  RandomHistory(p.get(), 3, 2);
  const std::string two = d.Sub("state/0/0/2.delta");
  {
    std::fstream f(two, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(30);
    f.put('\x7f');
  }
  auto flipped = Open(IdIn(d))->Load(3);
  ASSERT_FALSE(flipped.ok());
  EXPECT_NE(flipped.status().message().find(two), std::string::npos) << flipped.status().ToString();
  EXPECT_NE(flipped.status().message().find("corrupt"), std::string::npos);

  const std::string one = d.Sub("state/0/0/1.delta");
  fs::resize_file(one, fs::file_size(one) - 3);
  auto torn = Open(IdIn(d))->Load(1);
  ASSERT_FALSE(torn.ok());
  EXPECT_NE(torn.status().message().find(one), std::string::npos) << torn.status().ToString();
  fs::resize_file(one, 0);
  EXPECT_FALSE(Open(IdIn(d))->Load(1).ok());
}

TEST(StateStore, SwappedDeltaFilesAreRefused) {
  TempDir d;
  auto p = Open(IdIn(d));
  RandomHistory(p.get(), 2, 3);
  fs::copy_file(d.Sub("state/0/0/1.delta"), d.Sub("state/0/0/2.delta"), fs::copy_options::overwrite_existing);
  auto r = Open(IdIn(d))->Load(2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("holds version 1, expected 2"), std::string::npos) << r.status().ToString();
}

TEST(StateStore, FailedCommitLeavesThePreviousVersionLoadable) {
  TempDir d;
  io::FaultSpec spec = io::FaultSpec::Parse("write=.delta,hits=3,action=fail").ValueOrDie();
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), spec);
  auto p = Open(IdIn(d), {}, faulty);
  CommitBatch(p.get(), 0, {{"a", "1"}});
  CommitBatch(p.get(), 1, {{"b", "2"}});
  auto s = p->Load(2).ValueOrDie();
  ASSERT_TRUE(s->Put("c", "3").ok());
  ASSERT_FALSE(s->Commit().ok());
  EXPECT_TRUE(faulty->triggered());
  EXPECT_FALSE(s->committed());
  s->Abort();

  const Contents v2{{"a", "1"}, {"b", "2"}};
  EXPECT_EQ(Load(p.get(), 2), v2);
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 2), v2);
  EXPECT_FALSE(Open(IdIn(d))->Load(3).ok());
  // The redo succeeds once the filesystem works again.
  CommitBatch(p.get(), 2, {{"c", "3"}});
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 3), (Contents{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
}

TEST(StateStoreDeathTest, CrashDuringCommitLeavesThePreviousVersionLoadable) {
  TempDir d;
  CommitBatch(Open(IdIn(d)).get(), 0, {{"a", "1"}});
  EXPECT_EXIT(
      {
        io::FaultSpec spec = io::FaultSpec::Parse("write=2.delta,action=exit").ValueOrDie();
        auto p = Open(IdIn(d), {}, std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), spec));
        CommitBatch(p.get(), 1, {{"b", "2"}});
      },
      ::testing::ExitedWithCode(42), "");
  auto fresh = Open(IdIn(d));
  EXPECT_EQ(Load(fresh.get(), 1), (Contents{{"a", "1"}}));
  EXPECT_FALSE(fresh->Load(2).ok());
  for (const auto& e : fs::directory_iterator(d.Sub("state/0/0"))) {
    EXPECT_NE(e.path().filename(), "2.delta");
  }
}

}  // namespace
}  // namespace sluice::state
