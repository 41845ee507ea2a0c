// Helpers shared by the state store tests (state_store_test.cc, rocksdb_state_store_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "state/state_store.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::state {

using Contents = std::map<std::string, std::string>;

inline StateStoreId IdIn(const sluice::testing::TempDir& d, int64_t op = 0, int part = 0) {
  return StateStoreId{d.path(), op, part};
}

// The names in a directory.
inline std::set<std::string> NamesIn(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

inline Contents Read(const StateStore& store) {
  Contents out;
  EXPECT_OK(store.ForEach([&](std::string_view k, std::string_view v) {
    out.emplace(std::string(k), std::string(v));
    return Status::OK();
  }));
  return out;
}

inline Contents Load(StateStoreProvider* p, int64_t version) { return Read(*p->Load(version).ValueOrDie()); }

inline StateStoreOptions SnapshotEvery(int deltas) {
  StateStoreOptions options;
  options.snapshot_interval = deltas;
  return options;
}

// Applies `changes` (nullopt = remove) to version `version` and commits it.
inline void CommitBatch(StateStoreProvider* p, int64_t version,
                        const std::vector<std::pair<std::string, std::optional<std::string>>>& changes) {
  auto store = p->Load(version).ValueOrDie();
  for (const auto& [k, v] : changes) ASSERT_OK((v ? store->Put(k, *v) : store->Remove(k)));
  ASSERT_EQ(store->Commit().ValueOrDie(), version + 1);
}

// Seeded random batches; returns the expected content of every version 0..n.
inline std::vector<Contents> RandomHistory(StateStoreProvider* p, int n, uint32_t seed,
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

}  // namespace sluice::state
