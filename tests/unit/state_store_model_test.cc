// Both providers against a std::map model over a long random sequence of batches (puts,
// removals, reads, aborts, redone versions, maintenance, restarts), checking every answer, the
// metrics and the exact bytes of every delta.
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

}  // namespace
}  // namespace sluice::state
