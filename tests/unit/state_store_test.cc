// The versioned state store: versions, reload from disk, redo, snapshots, retention, and
// detection of missing, corrupt and half-written files. The contract tests run for every
// provider ("file", "rocksdb"); the file provider's own properties follow them (the RocksDB
// provider's: rocksdb_state_store_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>

#include "io/fault_injection.h"
#include "state/state_store.h"
#include "support/status.h"
#include "support/temp_dir.h"
#include "unit/state_store_test_util.h"

namespace sluice::state {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;
using sluice::testing::TempDir;

// Runs each contract test once per provider kind, through OpenStateStoreProvider.
class StateStoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<StateStoreProvider> Open(const StateStoreId& id, StateStoreOptions options = {},
                                           std::shared_ptr<io::FileSystem> fs = io::LocalFileSystem()) {
    if (options.local_dir.empty()) options.local_dir = local_.path();
    return OpenStateStoreProvider(GetParam(), std::move(fs), id, options).ValueOrDie();
  }
  std::string OtherKind() const { return GetParam() == "file" ? "rocksdb" : "file"; }

  TempDir local_;  // the RocksDB provider's working directories
};
using StateStoreContractDeathTest = StateStoreContract;

TEST_P(StateStoreContract, PutGetRemoveAcrossVersions) {
  TempDir d;
  auto p = Open(IdIn(d));
  EXPECT_TRUE(Load(p.get(), 0).empty());
  CommitBatch(p.get(), 0, {{"a", "1"}, {"b", "2"}});

  auto s1 = p->Load(1).ValueOrDie();
  EXPECT_EQ(s1->version(), 1);
  EXPECT_EQ(*s1->Get("a").ValueOrDie(), "1");
  ASSERT_OK(s1->Put("a", "10"));
  ASSERT_OK(s1->Remove("b"));
  ASSERT_OK(s1->Remove("never-there"));
  ASSERT_OK(s1->Put("c", "3"));
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

TEST_P(StateStoreContract, IteratesInBytewiseKeyOrder) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"b", "x"}, {"\xff", "x"}, {"a", "x"}, {std::string("\x01", 1), "x"}, {"ab", "x"}});
  std::vector<std::string> keys;
  ASSERT_OK(p->Load(1).ValueOrDie()->ForEach([&](std::string_view k, std::string_view) {
    keys.emplace_back(k);
    return Status::OK();
  }));
  EXPECT_EQ(keys, (std::vector<std::string>{"\x01", "a", "ab", "b", "\xff"}));
}

TEST_P(StateStoreContract, CommittedOrAbortedStoreRefusesWritesAndAbortDropsChanges) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"a", "1"}});
  auto s = p->Load(1).ValueOrDie();
  ASSERT_OK(s->Put("a", "2"));
  s->Abort();
  Status after_abort = s->Put("b", "1");
  ASSERT_FALSE(after_abort.ok());
  EXPECT_THAT(after_abort.message(), HasSubstr("operator 0 partition 0")) << after_abort.ToString();
  EXPECT_FALSE(s->Commit().ok());
  EXPECT_EQ(Load(p.get(), 1), (Contents{{"a", "1"}}));
  EXPECT_FALSE(fs::exists(d.Sub("state/0/0/2.delta")));

  auto s2 = p->Load(1).ValueOrDie();
  ASSERT_OK(s2->Commit());
  EXPECT_TRUE(s2->committed());
  EXPECT_FALSE(s2->Put("x", "y").ok());
  EXPECT_FALSE(s2->Commit().ok());
}

TEST_P(StateStoreContract, FreshProviderReloadsExactlyWhatWasCommitted) {
  TempDir d;
  auto p = Open(IdIn(d, 3, 1));
  auto expected = RandomHistory(p.get(), 12, 7);
  auto fresh = Open(IdIn(d, 3, 1));
  for (int64_t v = 0; v <= 12; ++v) EXPECT_EQ(Load(fresh.get(), v), expected[v]) << "version " << v;
  EXPECT_EQ(fresh->LatestVersion().ValueOrDie(), 12);
  EXPECT_TRUE(fs::exists(d.Sub("state/3/1/12.delta")));
}

TEST_P(StateStoreContract, NamedStoreLivesInItsOwnDirectory) {
  TempDir d;
  StateStoreId id{d.path(), 2, 0, "left"};
  auto p = Open(id);
  CommitBatch(p.get(), 0, {{"k", "v"}});
  EXPECT_TRUE(fs::exists(d.Sub("state/2/0/left/1.delta")));
  EXPECT_TRUE(Load(Open(IdIn(d, 2, 0)).get(), 0).empty());
}

TEST_P(StateStoreContract, RedoOfAVersionOverwritesItsDelta) {
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

TEST_P(StateStoreContract, LoadsFromTheNewestSnapshotPlusLaterDeltas) {
  TempDir d;
  StateStoreOptions options = SnapshotEvery(3);
  auto p = Open(IdIn(d), options);
  auto expected = RandomHistory(p.get(), 10, 11, [&](int64_t) { ASSERT_OK(p->DoMaintenance(100)); });
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

TEST_P(StateStoreContract, MaintenanceDeletesOldFilesButKeepsEveryRetainedVersionLoadable) {
  TempDir d;
  StateStoreOptions options = SnapshotEvery(4);
  auto p = Open(IdIn(d), options);
  auto expected = RandomHistory(p.get(), 20, 5, [&](int64_t) { ASSERT_OK(p->DoMaintenance(5)); });
  // latest 20, retain 5 -> versions 15..20 must load; the newest snapshot <= 15 is 12.
  EXPECT_EQ(NamesIn(d.Sub("state/0/0")), (std::set<std::string>{"12.snapshot", "13.delta", "14.delta", "15.delta", "16.delta",
                                          "16.snapshot", "17.delta", "18.delta", "19.delta", "20.delta",
                                          "20.snapshot"}));
  for (int64_t v = 15; v <= 20; ++v) EXPECT_EQ(Load(Open(IdIn(d), options).get(), v), expected[v]) << v;
  auto old = Open(IdIn(d), options)->Load(3);
  ASSERT_FALSE(old.ok());
  EXPECT_THAT(old.status().message(), HasSubstr("1.delta' is missing")) << old.status().ToString();
  EXPECT_FALSE(p->DoMaintenance(-1).ok());
}

TEST_P(StateStoreContract, MissingDeltaIsReportedWithTheFileAndTheVersion) {
  TempDir d;
  auto p = Open(IdIn(d, 4, 2));
  RandomHistory(p.get(), 3, 1);
  auto beyond = Open(IdIn(d, 4, 2))->Load(5);
  ASSERT_FALSE(beyond.ok());
  EXPECT_THAT(beyond.status().message(), HasSubstr("4.delta' is missing")) << beyond.status().ToString();
  EXPECT_THAT(beyond.status().message(), HasSubstr("latest version on disk is 3"));
  fs::remove(d.Sub("state/4/2/2.delta"));
  auto r = Open(IdIn(d, 4, 2))->Load(3);
  ASSERT_FALSE(r.ok());
  const std::string& msg = r.status().message();
  EXPECT_THAT(msg, HasSubstr("version 3"));
  EXPECT_THAT(msg, HasSubstr("operator 4 partition 2"));
  EXPECT_THAT(msg, HasSubstr(d.Sub("state/4/2/2.delta")));
}

TEST_P(StateStoreContract, CorruptOrTruncatedDeltaIsDetectedNamingTheFile) {
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
  EXPECT_THAT(flipped.status().message(), HasSubstr(two)) << flipped.status().ToString();
  EXPECT_THAT(flipped.status().message(), HasSubstr("corrupt"));

  const std::string one = d.Sub("state/0/0/1.delta");
  fs::resize_file(one, fs::file_size(one) - 3);
  auto torn = Open(IdIn(d))->Load(1);
  ASSERT_FALSE(torn.ok());
  EXPECT_THAT(torn.status().message(), HasSubstr(one)) << torn.status().ToString();
  fs::resize_file(one, 0);
  EXPECT_FALSE(Open(IdIn(d))->Load(1).ok());
}

TEST_P(StateStoreContract, SwappedDeltaFilesAreRefused) {
  TempDir d;
  auto p = Open(IdIn(d));
  RandomHistory(p.get(), 2, 3);
  fs::copy_file(d.Sub("state/0/0/1.delta"), d.Sub("state/0/0/2.delta"), fs::copy_options::overwrite_existing);
  auto r = Open(IdIn(d))->Load(2);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("holds version 1, expected 2")) << r.status().ToString();
}

TEST_P(StateStoreContract, FailedCommitLeavesThePreviousVersionLoadable) {
  TempDir d;
  io::FaultSpec spec = io::FaultSpec::Parse("write=.delta,hits=3,action=fail").ValueOrDie();
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), spec);
  auto p = Open(IdIn(d), {}, faulty);
  CommitBatch(p.get(), 0, {{"a", "1"}});
  CommitBatch(p.get(), 1, {{"b", "2"}});
  auto s = p->Load(2).ValueOrDie();
  ASSERT_OK(s->Put("c", "3"));
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

TEST_P(StateStoreContractDeathTest, CrashDuringCommitLeavesThePreviousVersionLoadable) {
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

TEST_P(StateStoreContract, ReadsSeeTheStoresOwnChangesInKeyOrder) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"b", "1"}, {"d", "1"}, {"f", "1"}});
  auto s = p->Load(1).ValueOrDie();
  ASSERT_OK(s->Put("a", "new"));
  ASSERT_OK(s->Put("d", "changed"));
  ASSERT_OK(s->Remove("f"));
  ASSERT_OK(s->Put("g", "new"));
  ASSERT_OK(s->Remove("g"));
  EXPECT_EQ(*s->Get("d").ValueOrDie(), "changed");
  EXPECT_FALSE(s->Get("f").ValueOrDie().has_value());
  EXPECT_FALSE(s->Get("g").ValueOrDie().has_value());
  EXPECT_EQ(Read(*s), (Contents{{"a", "new"}, {"b", "1"}, {"d", "changed"}}));
  StateStoreMetrics m = s->metrics();
  EXPECT_EQ(m.num_keys, 3);
  EXPECT_EQ(m.num_rows_updated, 2);  // a, d
  EXPECT_EQ(m.num_rows_removed, 2);  // f, and g whose last change is a removal
  // Nothing reaches version 1 before the commit.
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 1), (Contents{{"b", "1"}, {"d", "1"}, {"f", "1"}}));
}

TEST_P(StateStoreContract, UpdateComputesTheValueFromTheStoredOneInOneStep) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"a", "1"}, {"b", "22"}});
  auto s = p->Load(1).ValueOrDie();
  std::vector<std::string> olds;
  auto append_x = [&](std::optional<std::string_view> old, std::string* value) -> Status {
    olds.push_back(old ? std::string(*old) : "<none>");
    EXPECT_EQ(*value, "") << "fn starts from an empty value";  // appends need no clear first
    *value = (old ? std::string(*old) : std::string()) + "x";
    return Status::OK();
  };
  ASSERT_OK(s->Update("a", append_x));  // a value of another length
  ASSERT_OK(s->Update("c", append_x));  // absent
  ASSERT_OK(s->Update("c", append_x));
  ASSERT_OK(s->Update("b", [](std::optional<std::string_view> old, std::string* value) -> Status {
    *value = std::string(old->rbegin(), old->rend()) == "22" ? "33" : "??";  // the same length
    return Status::OK();
  }));
  EXPECT_EQ(olds, (std::vector<std::string>{"1", "<none>", "x"}));
  // A failing fn puts nothing.
  const Status failed = s->Update("d", [](std::optional<std::string_view>, std::string* value) -> Status {
    *value = "half-made";
    return Status::Invalid("cannot merge d");
  });
  EXPECT_THAT(failed.message(), HasSubstr("cannot merge d"));
  ASSERT_OK(s->Remove("a"));
  ASSERT_OK(s->Update("a", append_x));  // removed, then updated again in the same version
  const Contents want{{"a", "x"}, {"b", "33"}, {"c", "xx"}};
  EXPECT_EQ(Read(*s), want);
  EXPECT_EQ(s->metrics().num_rows_updated, 3);
  EXPECT_EQ(s->metrics().num_rows_removed, 0);
  ASSERT_EQ(s->Commit().ValueOrDie(), 2);
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 2), want);
}

TEST_P(StateStoreContract, ForEachRemovingWalksInKeyOrderAndRemovesLikeRemove) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"a", "1"}, {"b", "1"}, {"c", "1"}, {"d", "1"}, {"e", "1"}, {"f", "1"}, {"g", "1"}, {"h", "1"}});
  auto s = p->Load(1).ValueOrDie();
  ASSERT_OK(s->Put("c", "changed"));
  using Action = StateStore::KeyAction;
  Contents seen;
  ASSERT_OK(s->ForEachRemoving([&](std::string_view k, std::string_view v) -> Result<Action> {
    seen.emplace(k, v);
    if (k == "b") return Action::kKeep;
    if (k == "e") return Action::kStop;
    return Action::kRemove;
  }));
  EXPECT_EQ(seen, (Contents{{"a", "1"}, {"b", "1"}, {"c", "changed"}, {"d", "1"}, {"e", "1"}}));
  ASSERT_OK(s->Put("a", "back"));  // removed, then put again: its last change is the put
  ASSERT_OK(s->Remove("h"));
  ASSERT_OK(s->Remove("b"));  // after "h": the removals are no longer in key order
  EXPECT_EQ(Read(*s), (Contents{{"a", "back"}, {"e", "1"}, {"f", "1"}, {"g", "1"}}));
  const StateStoreMetrics m = s->metrics();
  EXPECT_EQ(m.num_keys, 4);
  EXPECT_EQ(m.num_rows_updated, 1);  // a (c's last change is its removal)
  EXPECT_EQ(m.num_rows_removed, 4);  // b, c, d, h
  ASSERT_EQ(s->Commit().ValueOrDie(), 2);
  const Contents want{{"a", "back"}, {"e", "1"}, {"f", "1"}, {"g", "1"}};
  EXPECT_EQ(Load(p.get(), 2), want);
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 2), want);  // from the files

  // An error ends the walk and is returned; the keys removed before it stay removed.
  auto s2 = p->Load(2).ValueOrDie();
  const Status st = s2->ForEachRemoving([&](std::string_view k, std::string_view) -> Result<Action> {
    if (k == "f") return Status::IOError("undecodable key f");
    return Action::kRemove;
  });
  EXPECT_THAT(st.message(), HasSubstr("undecodable key f"));
  EXPECT_EQ(Read(*s2), (Contents{{"f", "1"}, {"g", "1"}}));
}

TEST_P(StateStoreContract, ForEachRemovingMatchesAModelOverManyKeysAndVersions) {
  TempDir d;
  auto p = Open(IdIn(d));
  std::mt19937 rng(7);
  Contents model;
  for (int64_t v = 0; v < 4; ++v) {
    auto s = p->Load(v).ValueOrDie();
    s->ReserveForPuts(3000);
    for (int i = 0; i < 3000; ++i) {
      const std::string k = "k" + std::to_string(rng() % 20000);
      const std::string val = std::to_string(rng() % 1000);
      ASSERT_OK(s->Put(k, val));
      model[k] = val;
    }
    // Remove the keys with an odd value up to the first key starting "k15".
    using Action = StateStore::KeyAction;
    ASSERT_OK(s->ForEachRemoving([&](std::string_view k, std::string_view val) -> Result<Action> {
      if (k.substr(0, 3) == "k15") return Action::kStop;
      return (val.back() - '0') % 2 == 1 ? Action::kRemove : Action::kKeep;
    }));
    for (auto it = model.begin(); it != model.end() && it->first.substr(0, 3) != "k15";) {
      it = (it->second.back() - '0') % 2 == 1 ? model.erase(it) : std::next(it);
    }
    EXPECT_EQ(Read(*s), model) << v;
    ASSERT_EQ(s->Commit().ValueOrDie(), v + 1);
    EXPECT_EQ(Load(Open(IdIn(d)).get(), v + 1), model) << v;
  }
}

// The walk over a range shows exactly the keys from its start whose first bytes are at most its
// bound, in key order (a bound shorter than a key, one longer than 8 bytes, the empty bound; a
// start of 0, 2, 3 and 13 bytes, one sharing its first 8 bytes with keys before it), and removes
// what it is told to.
TEST_P(StateStoreContract, ForEachRemovingInRangeShowsOnlyTheKeysWithinTheRange) {
  TempDir d;
  auto p = Open(IdIn(d));
  std::mt19937 rng(11);
  Contents model;
  int64_t version = 0;
  const std::vector<std::pair<std::string, std::string>> ranges = {
      {"", "k15"}, {"k1", "k2"}, {"k3", "k31234567891"}, {"k31234567x", "k4"}, {"k5", ""}, {"", ""}};
  for (const auto& [from, up_to] : ranges) {
    auto s = p->Load(version).ValueOrDie();
    for (int i = 0; i < 2000; ++i) {
      const std::string k = "k" + std::to_string(rng() % 50000) + (i % 3 == 0 ? "" : "x");
      const std::string val = std::to_string(rng() % 1000);
      ASSERT_OK(s->Put(k, val));
      model[k] = val;
    }
    using Action = StateStore::KeyAction;
    std::vector<std::string> seen, want;
    ASSERT_OK(s->ForEachRemovingInRange(from, up_to, [&](std::string_view k, std::string_view val) -> Result<Action> {
      seen.emplace_back(k);
      return (val.back() - '0') % 2 == 1 ? Action::kRemove : Action::kKeep;
    }));
    for (auto it = model.lower_bound(from); it != model.end() && it->first.substr(0, up_to.size()) <= up_to;) {
      want.push_back(it->first);
      it = (it->second.back() - '0') % 2 == 1 ? model.erase(it) : std::next(it);
    }
    EXPECT_EQ(seen, want) << "from '" << from << "' up to '" << up_to << "'";
    EXPECT_EQ(Read(*s), model) << up_to;
    ASSERT_EQ(s->Commit().ValueOrDie(), ++version);
    EXPECT_EQ(Load(Open(IdIn(d)).get(), version), model) << up_to;
  }
}

// The prefix walk shows exactly the keys that begin with the prefix, in key order: prefixes of
// 0, 1, 2 and 10 bytes, with bytes 0x00 and 0xff, next to keys shorter than the prefix, keys
// equal to it and keys just before and after its range; changes of the open version included.
TEST_P(StateStoreContract, ForEachWithPrefixShowsExactlyTheKeysWithThePrefix) {
  TempDir d;
  auto p = Open(IdIn(d));
  std::mt19937 rng(5);
  const std::string alphabet("\x00\x01lr\xfe\xff", 6);
  Contents model;
  auto s = p->Load(0).ValueOrDie();
  for (int i = 0; i < 3000; ++i) {
    std::string k;
    for (size_t n = 1 + rng() % 12; k.size() < n;) k += alphabet[rng() % alphabet.size()];
    ASSERT_OK(s->Put(k, std::to_string(i)));
    model[k] = std::to_string(i);
  }
  ASSERT_EQ(s->Commit().ValueOrDie(), 1);
  s = p->Load(1).ValueOrDie();
  ASSERT_OK(s->Put(std::string("l\x01", 2), "new"));  // in the open version only
  model[std::string("l\x01", 2)] = "new";
  ASSERT_OK(s->Remove(model.begin()->first));
  model.erase(model.begin());
  for (const std::string& prefix : {std::string(), std::string("l"), std::string("l\x01", 2), std::string("\xff\xff", 2),
                                   std::string("\x00", 1), std::string("lr\x00\x01lr\xfe\xfflr", 10)}) {
    Contents seen;
    std::vector<std::string> order;
    ASSERT_OK(s->ForEachWithPrefix(prefix, [&](std::string_view k, std::string_view v) {
      seen.emplace(k, v);
      order.emplace_back(k);
      return Status::OK();
    }));
    Contents want;
    for (const auto& [k, v] : model) {
      if (k.compare(0, prefix.size(), prefix) == 0) want.emplace(k, v);
    }
    EXPECT_EQ(seen, want) << "prefix of " << prefix.size() << " bytes";
    EXPECT_TRUE(std::is_sorted(order.begin(), order.end()));
  }
  // An error from fn ends the walk and is returned.
  int calls = 0;
  auto failed = s->ForEachWithPrefix("l", [&](std::string_view, std::string_view) {
    ++calls;
    return Status::IOError("enough");
  });
  EXPECT_TRUE(failed.IsIOError());
  EXPECT_EQ(calls, 1);
}

TEST_P(StateStoreContract, KeyCountIsExactAfterReloadingFromFiles) {
  TempDir d;
  auto p = Open(IdIn(d), SnapshotEvery(2));
  auto expected = RandomHistory(p.get(), 9, 13, [&](int64_t) { ASSERT_OK(p->DoMaintenance(3)); });
  auto fresh = Open(IdIn(d), SnapshotEvery(2));
  for (int64_t v : {6, 9, 7}) {
    EXPECT_EQ(fresh->Load(v).ValueOrDie()->metrics().num_keys, static_cast<int64_t>(expected[v].size())) << v;
  }
}

TEST_P(StateStoreContract, RedoInTheSameProviderReplacesTheVersion) {
  TempDir d;
  auto p = Open(IdIn(d));
  CommitBatch(p.get(), 0, {{"a", "1"}, {"b", "1"}});
  CommitBatch(p.get(), 1, {{"a", "first attempt"}, {"b", std::nullopt}});
  // The batch fails after its state commit and is re-run in the same process.
  CommitBatch(p.get(), 1, {{"c", "second attempt"}});
  const Contents redone{{"a", "1"}, {"b", "1"}, {"c", "second attempt"}};
  EXPECT_EQ(Load(p.get(), 2), redone);
  EXPECT_EQ(Load(p.get(), 1), (Contents{{"a", "1"}, {"b", "1"}}));
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 2), redone);
  EXPECT_EQ(p->LatestVersion().ValueOrDie(), 2);
}

TEST_P(StateStoreContract, CheckpointIsReadableByTheOtherProvider) {
  TempDir d;
  auto p = Open(IdIn(d), SnapshotEvery(3));
  auto expected = RandomHistory(p.get(), 8, 17, [&](int64_t) { ASSERT_OK(p->DoMaintenance(10)); });
  ASSERT_TRUE(fs::exists(d.Sub("state/0/0/6.snapshot")));
  StateStoreOptions options;
  options.local_dir = local_.path();
  auto other = OpenStateStoreProvider(OtherKind(), io::LocalFileSystem(), IdIn(d), options).ValueOrDie();
  for (int64_t v = 0; v <= 8; ++v) EXPECT_EQ(Load(other.get(), v), expected[v]) << OtherKind() << " version " << v;
  // And the other provider's commit continues the history for this one.
  CommitBatch(other.get(), 8, {{"k1", "from the other provider"}});
  expected[8]["k1"] = "from the other provider";
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 9), expected[8]);
}

TEST_P(StateStoreContract, FailedSnapshotLeavesNoFileAndLosesNothing) {
  TempDir d;
  io::FaultSpec spec = io::FaultSpec::Parse("write=.snapshot,action=fail").ValueOrDie();
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), spec);
  auto p = Open(IdIn(d), SnapshotEvery(2), faulty);
  auto expected = RandomHistory(p.get(), 2, 19);
  ASSERT_FALSE(p->DoMaintenance(0).ok());
  EXPECT_TRUE(faulty->triggered());
  // No snapshot and no temp file; the deltas still give every version.
  EXPECT_EQ(NamesIn(d.Sub("state/0/0")), (std::set<std::string>{"1.delta", "2.delta"}));
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 2), expected[2]);
  ASSERT_OK(p->DoMaintenance(0));  // the fault fires once
  EXPECT_EQ(NamesIn(d.Sub("state/0/0")), (std::set<std::string>{"2.snapshot"}));
  EXPECT_EQ(Load(Open(IdIn(d)).get(), 2), expected[2]);
}

TEST_P(StateStoreContract, LargeStoreIteratesInBytewiseOrderAfterReloadFromSnapshot) {
  // 200k keys of varying length, written in random order over 4 batches: the snapshot spans
  // many read chunks and records straddle chunk boundaries.
  constexpr int kKeys = 200000;
  TempDir d;
  std::vector<int> ids(kKeys);
  for (int i = 0; i < kKeys; ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), std::mt19937(23));
  auto key = [](int i) { return "key-" + std::to_string(i); };
  auto value = [](int i) { return std::string(static_cast<size_t>(i % 50), 'v') + std::to_string(i); };
  auto p = Open(IdIn(d), SnapshotEvery(3));
  for (int64_t batch = 0; batch < 4; ++batch) {
    auto s = p->Load(batch).ValueOrDie();
    for (int j = 0; j < kKeys / 4; ++j) {
      int i = ids[static_cast<size_t>(batch * (kKeys / 4) + j)];
      ASSERT_OK(s->Put(key(i), value(i)));
    }
    ASSERT_EQ(s->Commit().ValueOrDie(), batch + 1);
    ASSERT_OK(p->DoMaintenance(1));
  }
  ASSERT_TRUE(fs::exists(d.Sub("state/0/0/3.snapshot")));
  EXPECT_GT(fs::file_size(d.Sub("state/0/0/3.snapshot")), 4u << 20);
  ASSERT_FALSE(fs::exists(d.Sub("state/0/0/3.delta")));  // so version 4 needs the snapshot

  std::vector<std::string> sorted;
  for (int i = 0; i < kKeys; ++i) sorted.push_back(key(i));
  std::sort(sorted.begin(), sorted.end());
  auto fresh = Open(IdIn(d));
  auto s = fresh->Load(4).ValueOrDie();
  EXPECT_EQ(s->metrics().num_keys, kKeys);
  size_t n = 0;
  bool in_order = true, values_right = true;
  ASSERT_TRUE(s->ForEach([&](std::string_view k, std::string_view v) {
                 in_order = in_order && n < sorted.size() && k == sorted[n];
                 values_right = values_right && v == value(std::stoi(std::string(k.substr(4))));
                 ++n;
                 return Status::OK();
               }).ok());
  EXPECT_EQ(n, sorted.size());
  EXPECT_TRUE(in_order);
  EXPECT_TRUE(values_right);
}

INSTANTIATE_TEST_SUITE_P(Providers, StateStoreContract, ::testing::Values("file", "rocksdb"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Providers, StateStoreContractDeathTest, ::testing::Values("file", "rocksdb"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// ----- file provider -----

TEST(FileStateStore, TheLatestVersionIsServedFromMemoryWithoutACopy) {
  TempDir d;
  auto p = OpenFileStateStoreProvider(io::LocalFileSystem(), IdIn(d)).ValueOrDie();
  CommitBatch(p.get(), 0, {{"a", "1"}});
  CommitBatch(p.get(), 1, {{"a", "2"}});
  CommitBatch(p.get(), 2, {{"a", "3"}, {"b", "1"}});
  // An aborted store's changes are gone: the version is rebuilt from its files.
  {
    auto store = p->Load(3).ValueOrDie();
    ASSERT_OK(store->Put("a", "changed"));
    ASSERT_OK(store->Remove("b"));
    ASSERT_OK(store->Put("c", "new"));
    store->Abort();
  }
  EXPECT_EQ(Load(p.get(), 3), (Contents{{"a", "3"}, {"b", "1"}}));
  CommitBatch(p.get(), 3, {{"a", "4"}});
  fs::remove_all(d.Sub("state/0/0"));
  // The latest version needs no file: the next batch takes its map over (no copy of the state).
  EXPECT_EQ(Load(p.get(), 4), (Contents{{"a", "4"}, {"b", "1"}}));
  EXPECT_FALSE(p->Load(3).ok());
}

TEST(StateStoreProviderKind, NamesAndSparkClassNamesSelectAProvider) {
  EXPECT_EQ(NormalizeStateStoreProvider("file").ValueOrDie(), "file");
  EXPECT_EQ(NormalizeStateStoreProvider("RocksDB").ValueOrDie(), "rocksdb");
  EXPECT_EQ(NormalizeStateStoreProvider("FILE").ValueOrDie(), "file");
  EXPECT_EQ(
      NormalizeStateStoreProvider("org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider")
          .ValueOrDie(),
      "file");
  EXPECT_EQ(
      NormalizeStateStoreProvider("org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
          .ValueOrDie(),
      "rocksdb");
  TempDir d;
  auto p = OpenStateStoreProvider("ROCKSDB", io::LocalFileSystem(), IdIn(d)).ValueOrDie();
  CommitBatch(p.get(), 0, {{"k", "v"}});
  EXPECT_EQ(Load(p.get(), 1), (Contents{{"k", "v"}}));
}

TEST(StateStoreProviderKind, UnknownKindIsRefusedNamingItTheValidOnesAndTheConf) {
  TempDir d;
  for (const std::string bad : {"hdfs", "", "rocks db", "org.apache.spark.sql.execution.streaming.state.Other"}) {
    auto r = OpenStateStoreProvider(bad, io::LocalFileSystem(), IdIn(d));
    ASSERT_FALSE(r.ok()) << bad;
    ASSERT_TRUE(r.status().IsInvalid());
    const std::string& msg = r.status().message();
    EXPECT_THAT(msg, HasSubstr("'" + bad + "'"));
    EXPECT_THAT(msg, HasSubstr("spark.sql.streaming.stateStore.providerClass"));
    EXPECT_THAT(msg, HasSubstr("'file'"));
    EXPECT_THAT(msg, HasSubstr("'rocksdb'"));
    EXPECT_THAT(msg, HasSubstr("RocksDBStateStoreProvider"));
    EXPECT_EQ(NormalizeStateStoreProvider(bad).status().message(), msg);
  }
  EXPECT_FALSE(fs::exists(d.Sub("state")));
}

}  // namespace
}  // namespace sluice::state
