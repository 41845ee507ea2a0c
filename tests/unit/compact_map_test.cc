// The file state store's compact table (state/compact_map.h) against a std::map model: the same
// answers over random operations, the changed-key record a delta is written from, copies, and
// its memory per key.
#include "state/compact_map.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace sluice::state {
namespace {

using Model = std::map<std::string, std::string>;

Model Contents(const CompactMap& m) {
  Model out;
  std::string last;
  bool first = true;
  m.ForEachSorted([&](std::string_view k, std::string_view v) {
    EXPECT_TRUE(first || last < k) << "not in bytewise order: '" << last << "' then '" << k << "'";
    first = false;
    last.assign(k);
    out.emplace(std::string(k), std::string(v));
    return true;
  });
  return out;
}

Model Changed(const CompactMap& m) {
  Model out;
  std::string last;
  m.ForEachChangedSorted([&](std::string_view k, std::string_view v) {
    EXPECT_TRUE(out.empty() || last < k);
    last.assign(k);
    out.emplace(std::string(k), std::string(v));
  });
  return out;
}

// Keys with bytes that sort differently signed and unsigned, shared prefixes longer than 8
// bytes, empty keys and values, and values of changing lengths (so entries move and the arena
// is compacted).
std::string RandomKey(std::mt19937& rng, int space) {
  const int n = static_cast<int>(rng() % static_cast<unsigned>(space));
  switch (n % 4) {
    case 0:
      return std::to_string(n);
    case 1:
      return "shared-prefix-" + std::to_string(n);
    case 2:
      return std::string(1, static_cast<char>(0x80 + n % 100)) + std::string(n % 3, '\0');
    default:
      return n % 8 == 3 ? std::string() : std::string(static_cast<size_t>(n % 40), 'k') + std::to_string(n);
  }
}

std::string RandomValue(std::mt19937& rng) {
  return std::string(rng() % 5 == 0 ? 0 : rng() % 60, static_cast<char>('a' + rng() % 26));
}

TEST(CompactMap, AnswersAsAStdMapOverRandomOperationsWithChangesCopiesAndCompaction) {
  std::mt19937 rng(7);
  CompactMap map;
  Model model, changed;  // changed: keys put since the last ClearChanges and still present
  for (int round = 0; round < 40; ++round) {
    for (int i = 0; i < 3000; ++i) {
      const std::string key = RandomKey(rng, round % 2 ? 200 : 5000);
      const unsigned op = rng() % 10;
      if (op < 6) {
        const std::string value = RandomValue(rng);
        const bool mark = round % 5 != 4;  // some rounds replay files: no change marks
        EXPECT_EQ(map.Put(key, value, mark), model.count(key) == 0);
        model[key] = value;
        if (mark) {
          changed[key] = value;
        } else if (changed.count(key)) {
          changed[key] = value;  // still changed: its latest value is what the delta holds
        }
      } else if (op < 9) {
        EXPECT_EQ(map.Erase(key), model.erase(key) > 0);
        changed.erase(key);
      } else {
        auto found = map.Find(key);
        auto it = model.find(key);
        ASSERT_EQ(found.has_value(), it != model.end()) << key;
        if (found) {
          EXPECT_EQ(*found, it->second);
        }
      }
    }
    if (round % 3 == 2) {
      // An erasing walk: drop the keys with a value of odd length, up to a random key.
      const std::string stop = RandomKey(rng, 5000);
      map.ForEachSortedErasing([&](std::string_view k, std::string_view v) {
        if (k >= stop) return CompactMap::Walk::kStop;
        return v.size() % 2 == 1 ? CompactMap::Walk::kErase : CompactMap::Walk::kKeep;
      });
      for (auto it = model.begin(); it != model.end() && it->first < stop;) {
        if (it->second.size() % 2 == 1) {
          changed.erase(it->first);
          it = model.erase(it);
        } else {
          ++it;
        }
      }
    }
    if (round % 3 != 0) {
      // A ranged erasing walk (eviction's): keys from `from` whose first bytes are at most
      // `up_to`; it erases those whose value has a length divisible by 3, and must visit
      // exactly the model's keys in the range, in order, whatever walks came before.
      const std::string up_to = RandomKey(rng, 5000).substr(0, 1 + rng() % 9);
      const std::string from = rng() % 2 ? std::string() : RandomKey(rng, 5000).substr(0, rng() % 4);
      auto in_range = [&](const std::string& k) { return k >= from && k.substr(0, up_to.size()) <= up_to; };
      std::vector<std::string> visited, want;
      map.ForEachSortedErasing(
          [&](std::string_view k, std::string_view v) {
            visited.emplace_back(k);
            return v.size() % 3 == 0 ? CompactMap::Walk::kErase : CompactMap::Walk::kKeep;
          },
          up_to, from);
      for (auto it = model.begin(); it != model.end();) {
        if (!in_range(it->first)) {
          ++it;
          continue;
        }
        want.push_back(it->first);
        if (it->second.size() % 3 == 0) {
          changed.erase(it->first);
          it = model.erase(it);
        } else {
          ++it;
        }
      }
      ASSERT_EQ(visited, want) << "up_to '" << up_to << "' from '" << from << "'";
    }
    if (round % 8 == 5) map.Reserve(map.size() + static_cast<int64_t>(rng() % 20000));
    ASSERT_EQ(map.size(), static_cast<int64_t>(model.size()));
    ASSERT_EQ(Contents(map), model);
    ASSERT_EQ(map.num_changed(), static_cast<int64_t>(changed.size()));
    ASSERT_EQ(Changed(map), changed);
    if (round % 3 == 0) {
      CompactMap copy(map);
      map = CompactMap();  // the copy owns its own bytes
      EXPECT_EQ(Contents(copy), model);
      EXPECT_EQ(Changed(copy), changed);
      map = std::move(copy);
    }
    if (round % 4 == 1) {
      map.ClearChanges();
      changed.clear();
      EXPECT_EQ(map.num_changed(), 0);
      EXPECT_TRUE(Changed(map).empty());
    }
  }
}

TEST(CompactMap, AWalkBelowEveryKeyVisitsNoneAndFindsAKeyPutBelowThemLater) {
  // Eviction whose bound no key has reached skips the table; the bound it skips by follows
  // every key written since (a new key, a value of a new length, an entry moved by compaction)
  // and the keys a walk erased.
  CompactMap map;
  auto be = [](uint64_t v) {
    std::string k(8, '\0');
    for (int i = 7; i >= 0; --i, v >>= 8) k[static_cast<size_t>(i)] = static_cast<char>(v & 0xFF);
    return k;
  };
  for (uint64_t t = 1000; t < 3000; ++t) map.Put(be(t) + "g", "v", true);
  auto walk = [&](uint64_t up_to, CompactMap::Walk action) {
    std::vector<std::string> seen;
    map.ForEachSortedErasing(
        [&](std::string_view k, std::string_view) {
          seen.emplace_back(k);
          return action;
        },
        be(up_to));
    return seen;
  };
  EXPECT_TRUE(walk(999, CompactMap::Walk::kErase).empty());
  EXPECT_EQ(walk(1499, CompactMap::Walk::kErase).size(), 500u);  // 1000..1499 erased
  EXPECT_TRUE(walk(1499, CompactMap::Walk::kErase).empty());
  map.Put(be(5) + "late", "v", true);  // below every key the walks left
  EXPECT_EQ(walk(1499, CompactMap::Walk::kKeep), std::vector<std::string>{be(5) + "late"});
  EXPECT_EQ(walk(1600, CompactMap::Walk::kKeep).size(), 102u);  // kept: still visited
  EXPECT_EQ(walk(1499, CompactMap::Walk::kErase).size(), 1u);
  // Values of a new length move their entries; churn compacts the arena.
  for (int round = 0; round < 20; ++round) {
    for (uint64_t t = 1500; t < 3000; ++t) map.Put(be(t) + "g", std::string(static_cast<size_t>(round % 7), 'x'), true);
  }
  EXPECT_EQ(walk(1509, CompactMap::Walk::kErase).size(), 10u);
  EXPECT_EQ(map.size(), 1490);
  EXPECT_TRUE(map.Find(be(1510) + "g").has_value());
}

TEST(CompactMap, LargeEntriesAndEarlyStopOfIteration) {
  CompactMap map;
  const std::string big(3 << 20, 'x');  // larger than an arena block
  map.Put("b", big, true);
  map.Put("a", "1", true);
  map.Put("c", "3", true);
  EXPECT_EQ(*map.Find("b"), big);
  map.Put("b", "small", true);
  EXPECT_EQ(*map.Find("b"), "small");
  std::vector<std::string> seen;
  map.ForEachSorted([&](std::string_view k, std::string_view) {
    seen.emplace_back(k);
    return k != "b";
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Changed(map), (Model{{"a", "1"}, {"b", "small"}, {"c", "3"}}));
}

TEST(CompactMap, ErasingWalkOverLargeEntriesAndAReservedTable) {
  CompactMap map;
  map.Reserve(100000);
  const std::string big(3 << 20, 'x');  // a block of its own
  for (const char* k : {"d", "a", "c", "e", "b"}) map.Put(k, std::string(k) == "c" ? big : k, true);
  std::vector<std::string> seen;
  map.ForEachSortedErasing([&](std::string_view k, std::string_view) {
    seen.emplace_back(k);
    if (k == "d") return CompactMap::Walk::kStop;
    return k == "a" ? CompactMap::Walk::kKeep : CompactMap::Walk::kErase;
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(Contents(map), (Model{{"a", "a"}, {"d", "d"}, {"e", "e"}}));
  EXPECT_EQ(Changed(map), (Model{{"a", "a"}, {"d", "d"}, {"e", "e"}}));
  EXPECT_FALSE(map.Find("c").has_value());
  map.Put("c", "again", true);
  EXPECT_EQ(*map.Find("c"), "again");
  EXPECT_EQ(map.size(), 4);
}

// Window-like keys (window end, window start, a group id: 24 bytes, big-endian) and longer
// keys that share their first 32 bytes or differ only in trailing zeros, in key order; then
// erasing walks that remove a few keys (each slot freed alone) and most of the table (the
// slots rebuilt from the survivors): lookups, new puts and a later walk still agree.
TEST(CompactMap, WindowKeysSortAndAnErasingWalkThatEmptiesMostOfTheTable) {
  auto be = [](uint64_t v) {
    std::string out(8, '\0');
    for (int i = 7; i >= 0; --i, v >>= 8) out[static_cast<size_t>(i)] = static_cast<char>(v & 0xFF);
    return out;
  };
  std::mt19937 rng(11);
  CompactMap map;
  Model model;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t end = 1000 + rng() % 50, group = rng() % 3000;
    std::string key = be(end) + be(end - 10) + be(group);
    if (i % 7 == 0) key += std::string(rng() % 3, '\0');         // differs only in trailing zeros
    if (i % 11 == 0) key += "shared-tail-" + std::to_string(rng() % 50);  // shares its first 32 bytes
    const std::string value = RandomValue(rng);
    map.Put(key, value, true);
    model[key] = value;
  }
  ASSERT_EQ(Contents(map), model);
  ASSERT_EQ(Changed(map), model);
  const Model all = model;
  // A few keys go: windows ending at 1003 with an even group.
  auto walk = [&](auto erase, const std::string& stop) {
    map.ForEachSortedErasing([&](std::string_view k, std::string_view) {
      if (k >= stop) return CompactMap::Walk::kStop;
      return erase(k) ? CompactMap::Walk::kErase : CompactMap::Walk::kKeep;
    });
    for (auto it = model.begin(); it != model.end() && it->first < stop;) it = erase(it->first) ? model.erase(it) : std::next(it);
  };
  auto even_1003 = [&](std::string_view k) { return k.substr(0, 8) == be(1003) && static_cast<uint8_t>(k[23]) % 2 == 0; };
  walk(even_1003, be(1004));
  ASSERT_EQ(map.size(), static_cast<int64_t>(model.size()));
  ASSERT_EQ(Contents(map), model);
  // Then every window before 1045 but one key in 500.
  auto most = [&](std::string_view k) { return std::hash<std::string_view>{}(k) % 500 != 0; };
  walk(most, be(1045));
  ASSERT_EQ(map.size(), static_cast<int64_t>(model.size()));
  ASSERT_EQ(Contents(map), model);
  ASSERT_EQ(Changed(map), model);
  for (const auto& [k, v] : all) {
    const auto it = model.find(k);
    ASSERT_EQ(map.Find(k), it == model.end() ? std::nullopt : std::optional<std::string_view>(it->second)) << k;
  }
  for (int i = 0; i < 5000; ++i) {
    const std::string key = be(900) + be(890) + be(static_cast<uint64_t>(i));
    map.Put(key, "new", true);
    model[key] = "new";
  }
  ASSERT_EQ(map.size(), static_cast<int64_t>(model.size()));
  ASSERT_EQ(Contents(map), model);
  for (const auto& [k, v] : model) ASSERT_EQ(map.Find(k), std::optional<std::string_view>(v)) << k;
}

TEST(CompactMap, ChurnOfRemovedKeysKeepsMemoryBounded) {
  CompactMap map;
  for (int i = 0; i < 200000; ++i) {
    map.Put("key" + std::to_string(i), std::string(static_cast<size_t>(i % 7), 'v'), true);
    if (i >= 1000) {
      ASSERT_TRUE(map.Erase("key" + std::to_string(i - 1000)));
    }
    if (i % 50000 == 0) map.ClearChanges();
  }
  EXPECT_EQ(map.size(), 1000);
  // 1,000 live entries of ~20 bytes: tombstones and dead entries are reclaimed, so the table
  // does not keep the 200,000 keys' worth of memory.
  EXPECT_LT(map.memory_bytes(), 4 << 20);
}

// Count state of 10^6 integer keys as the aggregation writes it: a key of a non-null bigint
// (1 + 8 bytes) and a value of one count (1 + 8 bytes).
TEST(CompactMap, CountStateOfAMillionKeysTakesAtMost40BytesAKey) {
  CompactMap map;
  constexpr int kKeys = 1'000'000;
  std::string key(9, '\x01'), value(9, '\x01');
  for (int i = 0; i < kKeys; ++i) {
    std::memcpy(&key[1], &i, sizeof(i));
    std::memcpy(&value[1], &i, sizeof(i));
    map.Put(key, value, /*mark_changed=*/true);
  }
  map.ClearChanges();
  ASSERT_EQ(map.size(), kKeys);
  const double per_key = static_cast<double>(map.memory_bytes()) / kKeys;
  std::cout << "compact map: " << per_key << " bytes per key (18 bytes of key and value)\n";
  EXPECT_LE(per_key, 40.0);
}

}  // namespace
}  // namespace sluice::state
