// Both providers against a std::map model over a long random sequence of batches (puts,
// removals, reads, aborts, redone versions, maintenance, restarts), checking every answer, the
// metrics and the exact bytes of every delta; and the RocksDB provider's bulk-loaded restore
// against the file provider's key-by-key replay of the same checkpoint.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>

#include "state/state_file.h"
#include "state/state_store.h"
#include "support/status.h"
#include "support/temp_dir.h"
#include "unit/state_store_test_util.h"

namespace sluice::state {
namespace {

namespace fs = std::filesystem;
using sluice::testing::TempDir;

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class StateStoreModel : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<StateStoreProvider> Open(const StateStoreId& id, int snapshot_every) {
    StateStoreOptions options = SnapshotEvery(snapshot_every);
    options.local_dir = local_.path();
    return OpenStateStoreProvider(GetParam(), io::LocalFileSystem(), id, options).ValueOrDie();
  }
  TempDir local_;
};

TEST_P(StateStoreModel, EveryAnswerMetricAndDeltaMatchesAMapModel) {
  TempDir d;
  std::mt19937 rng(11);
  auto p = Open(IdIn(d), 4);
  std::vector<Contents> versions(1);  // the model of every committed version
  int64_t version = 0;
  for (int batch = 0; batch < 60; ++batch) {
    if (batch % 13 == 12) p = Open(IdIn(d), 4);  // a restart: everything from the files
    // Sometimes redo an earlier version (a batch re-run after a failure).
    if (batch % 9 == 8 && version > 2) version -= 1 + static_cast<int64_t>(rng() % 2);
    auto store = p->Load(version).ValueOrDie();
    Contents model = versions[static_cast<size_t>(version)];
    std::map<std::string, std::optional<std::string>> changes;  // last change per key
    const int ops = batch % 7 == 3 ? 3000 : 150;
    for (int i = 0; i < ops; ++i) {
      const std::string key = "key-" + std::to_string(rng() % 700) + std::string(rng() % 3, '\xF0');
      switch (rng() % 6) {
        case 0:
        case 1:
        case 2: {
          const std::string value = std::string(rng() % 4 == 0 ? 9 : rng() % 30, static_cast<char>('a' + rng() % 26));
          ASSERT_OK(store->Put(key, value));
          model[key] = value;
          changes[key] = value;
          break;
        }
        case 3:
          ASSERT_OK(store->Remove(key));
          if (model.erase(key) > 0) changes[key] = std::nullopt;
          break;
        default: {
          auto got = store->Get(key).ValueOrDie();
          auto it = model.find(key);
          ASSERT_EQ(got.has_value(), it != model.end()) << key;
          if (got) {
            ASSERT_EQ(*got, it->second);
          }
        }
      }
    }
    ASSERT_EQ(Read(*store), model) << "batch " << batch;
    const StateStoreMetrics m = store->metrics();
    EXPECT_EQ(m.num_keys, static_cast<int64_t>(model.size()));
    int64_t puts = 0;
    for (const auto& [k, v] : changes) puts += v ? 1 : 0;
    EXPECT_EQ(m.num_rows_updated, puts);
    EXPECT_EQ(m.num_rows_removed, static_cast<int64_t>(changes.size()) - puts);
    if (batch % 5 == 2) {
      store->Abort();  // dropped: the next batch loads the same version again
      continue;
    }
    ASSERT_EQ(store->Commit().ValueOrDie(), version + 1);
    // The delta holds the last change per key in key order, byte for byte.
    StateFileWriter expected_delta(StateFileKind::kDelta, version + 1);
    for (const auto& [k, v] : changes) v ? expected_delta.Put(k, *v) : expected_delta.Remove(k);
    EXPECT_EQ(FileBytes(d.Sub("state/0/0/" + std::to_string(version + 1) + ".delta")), expected_delta.Finish());
    ++version;
    versions.resize(static_cast<size_t>(version));
    versions.push_back(model);
    ASSERT_OK(p->DoMaintenance(3));
  }
  // Every retained version loads as the model says, in a fresh provider too.
  auto fresh = Open(IdIn(d), 4);
  for (int64_t v = version - 3; v <= version; ++v) {
    EXPECT_EQ(Load(fresh.get(), v), versions[static_cast<size_t>(v)]) << "version " << v;
  }
}

INSTANTIATE_TEST_SUITE_P(Providers, StateStoreModel, ::testing::Values("file", "rocksdb"),
                         [](const auto& info) { return info.param; });

std::unique_ptr<StateStoreProvider> OpenKind(const std::string& kind, const StateStoreId& id,
                                             const std::string& local_dir, int snapshot_every = 1000) {
  StateStoreOptions options = SnapshotEvery(snapshot_every);
  options.local_dir = local_dir;
  return OpenStateStoreProvider(kind, io::LocalFileSystem(), id, options).ValueOrDie();
}

// The restored state as ForEach sees it plus the key count the store reports.
std::pair<Contents, int64_t> Restored(StateStoreProvider* p, int64_t version) {
  auto store = p->Load(version).ValueOrDie();
  return {Read(*store), store->metrics().num_keys};
}

TEST(RocksDBBulkRestore, GivesTheStateOfAKeyByKeyReplayFromSnapshotsAndManyDeltas) {
  TempDir d, local;
  std::vector<Contents> expected;
  {
    // Snapshots at 6, 12, 18; at 30 there are 12 deltas after the last snapshot, at 40 more
    // than one merge takes (the rest is applied key by key).
    auto p = OpenKind("rocksdb", IdIn(d), local.path(), 6);
    expected = RandomHistory(p.get(), 18, 5, [&](int64_t) { ASSERT_OK(p->DoMaintenance(100)); });
    for (int64_t v = 18; v < 40; ++v) {
      CommitBatch(p.get(), v, {{"k" + std::to_string(v % 40), "v" + std::to_string(v)}, {"k" + std::to_string((v * 7) % 40), std::nullopt}});
      Contents next = expected.back();
      next["k" + std::to_string(v % 40)] = "v" + std::to_string(v);
      next.erase("k" + std::to_string((v * 7) % 40));
      expected.push_back(std::move(next));
    }
  }
  ASSERT_TRUE(fs::exists(d.Sub("state/0/0/18.snapshot")));
  for (int64_t v : {0, 3, 6, 7, 18, 30, 40}) {
    auto replay = OpenKind("file", IdIn(d), local.path());
    auto bulk = OpenKind("rocksdb", IdIn(d), local.path());
    const auto want = Restored(replay.get(), v);
    EXPECT_EQ(want.first, expected[static_cast<size_t>(v)]) << "version " << v;
    EXPECT_EQ(Restored(bulk.get(), v), want) << "version " << v;
  }
  // A restored database keeps working: a batch on top, then a restart, still agree.
  auto bulk = OpenKind("rocksdb", IdIn(d), local.path());
  CommitBatch(bulk.get(), 40, {{"new", "1"}, {"k1", std::nullopt}});
  auto replay = OpenKind("file", IdIn(d), local.path());
  EXPECT_EQ(Restored(OpenKind("rocksdb", IdIn(d), local.path()).get(), 41), Restored(replay.get(), 41));
}

TEST(RocksDBBulkRestore, FilesNotInKeyOrderAreReplayedKeyByKey) {
  // Files of another writer whose records are not sorted (the format allows any order): the
  // merge notices and the restore falls back to applying records one by one, in file order.
  TempDir d, local;
  fs::create_directories(d.Sub("state/0/0"));
  auto write = [&](int64_t v, const std::function<void(StateFileWriter*)>& fill) {
    StateFileWriter w(StateFileKind::kDelta, v);
    fill(&w);
    std::ofstream(d.Sub("state/0/0/" + std::to_string(v) + ".delta"), std::ios::binary) << w.Finish();
  };
  write(1, [](StateFileWriter* w) {
    w->Put("b", "1");
    w->Put("a", "1");
    w->Put("c", "1");
  });
  write(2, [](StateFileWriter* w) {
    w->Remove("c");
    w->Put("a", "2");
    w->Remove("a");
    w->Put("d", "2");
  });
  const Contents want{{"b", "1"}, {"d", "2"}};
  auto bulk = OpenKind("rocksdb", IdIn(d), local.path());
  EXPECT_EQ(Restored(bulk.get(), 2), std::make_pair(want, int64_t{2}));
  EXPECT_EQ(Restored(OpenKind("file", IdIn(d), local.path()).get(), 2), std::make_pair(want, int64_t{2}));
}

}  // namespace
}  // namespace sluice::state
