// The default state store provider: each version's table in memory (compact_map.h), persisted as <V>.delta files
// (one per commit) and periodic <V>.snapshot files written by maintenance. Format and
// retention rules: docs/state-store.md.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "state/compact_map.h"
#include "state/state_file.h"
#include "state/state_store.h"
#include "state/store_files.h"

namespace sluice::state {
namespace {

// One version's content; shared read-only between the cache and nothing else. Its change
// marks are clear except in a store's own copy.
struct VersionData {
  CompactMap map;
};

class FileStateStoreProvider;

class FileStateStore final : public StateStore {
 public:
  // `stolen`: `data` was moved out of the provider's cache (no copy); after an abort that
  // version is rebuilt from its files when loaded again.
  FileStateStore(FileStateStoreProvider* provider, int64_t version, VersionData data, bool stolen)
      : provider_(provider), version_(version), data_(std::move(data)), stolen_(stolen) {}
  ~FileStateStore() override { Abort(); }

  int64_t version() const override { return version_; }

  Result<std::optional<std::string>> Get(std::string_view key) const override {
    ARROW_RETURN_NOT_OK(CheckReadable());
    auto value = data_.map.Find(key);
    if (!value) return std::optional<std::string>{};
    return std::optional<std::string>(std::string(*value));
  }

  Status Put(std::string_view key, std::string_view value) override {
    ARROW_RETURN_NOT_OK(CheckOpen("put"));
    data_.map.Put(key, value, /*mark_changed=*/true);
    NotePut();
    return Status::OK();
  }

  Status Update(std::string_view key, const UpdateFn& fn) override {
    ARROW_RETURN_NOT_OK(CheckOpen("put"));
    ARROW_RETURN_NOT_OK(data_.map.Upsert(key, /*mark_changed=*/true, &update_value_, fn));
    NotePut();
    return Status::OK();
  }

  Status Remove(std::string_view key) override {
    ARROW_RETURN_NOT_OK(CheckOpen("remove"));
    if (data_.map.Erase(key)) NoteRemoved(key);
    return Status::OK();
  }

  Status ForEachRemoving(
      const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn) override {
    return WalkRemoving(fn, std::nullopt, {});
  }

  Status ForEachRemovingInRange(
      std::string_view from, std::string_view up_to,
      const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn) override {
    return WalkRemoving(fn, up_to, from);
  }

  void ReserveForPuts(int64_t keys) override {
    if (phase_ == Phase::kOpen) data_.map.Reserve(data_.map.size() + keys);
  }

  Status ForEach(const std::function<Status(std::string_view, std::string_view)>& fn) const override {
    ARROW_RETURN_NOT_OK(CheckReadable());
    Status st;
    data_.map.ForEachSorted([&](std::string_view k, std::string_view v) {
      st = fn(k, v);
      return st.ok();
    });
    return st;
  }

  Status ForEachWithPrefix(std::string_view prefix,
                           const std::function<Status(std::string_view, std::string_view)>& fn) const override {
    ARROW_RETURN_NOT_OK(CheckReadable());
    Status st;
    data_.map.ForEachSortedWithPrefix(prefix, [&](std::string_view k, std::string_view v) {
      st = fn(k, v);
      return st.ok();
    });
    return st;
  }

  Result<int64_t> Commit() override;

  void Abort() override;
  bool committed() const override { return phase_ == Phase::kCommitted; }

  StateStoreMetrics metrics() const override {
    if (phase_ == Phase::kCommitted) return committed_metrics_;
    StateStoreMetrics m;
    m.num_keys = data_.map.size();
    m.memory_used_bytes = data_.map.memory_bytes() + static_cast<int64_t>(removed_keys_.capacity() +
                                                                          removed_ends_.capacity() * sizeof(size_t));
    m.num_rows_updated = data_.map.num_changed();
    m.num_rows_removed = static_cast<int64_t>(Removals().size());
    return m;
  }

 private:
  Status WalkRemoving(const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn,
                      std::optional<std::string_view> up_to, std::string_view from) {
    ARROW_RETURN_NOT_OK(CheckOpen("remove"));
    Status failed;
    data_.map.ForEachSortedErasing(
        [&](std::string_view k, std::string_view v) {
          Result<KeyAction> action = fn(k, v);
          if (!action.ok()) {
            failed = action.status();
            return CompactMap::Walk::kStop;
          }
          if (*action == KeyAction::kStop) return CompactMap::Walk::kStop;
          if (*action == KeyAction::kKeep) return CompactMap::Walk::kKeep;
          NoteRemoved(k);
          return CompactMap::Walk::kErase;
        },
        up_to, from);
    return failed;
  }

  enum class Phase { kOpen, kCommitted, kAborted };

  Status CheckOpen(const char* what) const;
  Status CheckReadable() const;
  void NotePut() {
    if (removed_ends_.empty()) return;
    put_after_removal_ = true;
    removals_.reset();
  }
  void NoteRemoved(std::string_view key) {
    const size_t end = removed_keys_.size();
    if (!removed_ends_.empty() && std::string_view(removed_keys_).substr(last_removed_, end - last_removed_) >= key) {
      removed_in_order_ = false;
    }
    last_removed_ = end;
    removed_keys_.append(key);
    removed_ends_.push_back(removed_keys_.size());
    removals_.reset();
  }
  // The keys whose last change in this version is a removal, in bytewise order.
  const std::vector<std::string_view>& Removals() const;
  void ClearRemovals() {
    removed_keys_ = std::string();
    removed_ends_ = std::vector<size_t>();
    removals_.reset();
    last_removed_ = 0;
    removed_in_order_ = true;
    put_after_removal_ = false;
  }

  FileStateStoreProvider* provider_;
  int64_t version_;
  // This version's changes, for its delta file: the keys whose last change is a put are the
  // map's changed entries; the keys removed while present are listed back to back in
  // removed_keys_ (key i ends at removed_ends_[i]), in the order of their removals: a key may
  // be there twice, or have been put again since (Removals() leaves those out).
  VersionData data_;
  std::string removed_keys_;
  std::vector<size_t> removed_ends_;
  size_t last_removed_ = 0;         // where the last removed key begins in removed_keys_
  bool removed_in_order_ = true;    // each removed key sorts after the one removed before it
  bool put_after_removal_ = false;  // a key was put after the first removal
  mutable std::optional<std::vector<std::string_view>> removals_;
  std::string update_value_;  // Update's buffer, reused
  Phase phase_ = Phase::kOpen;
  StateStoreMetrics committed_metrics_;
  bool stolen_ = false;
};

class FileStateStoreProvider final : public StateStoreProvider {
 public:
  FileStateStoreProvider(std::shared_ptr<io::FileSystem> fs, StateStoreId id, StateStoreOptions options)
      : fs_(std::move(fs)), id_(std::move(id)), options_(options), dir_(id_.Dir()) {}

  const StateStoreId& id() const override { return id_; }

  Result<std::unique_ptr<StateStore>> Load(int64_t version) override {
    if (version < 0) return Status::Invalid("Cannot load state version ", version, " of ", id_.Describe());
    ARROW_ASSIGN_OR_RAISE(auto data, LoadVersion(version));
    // The common cases, batch N+1 after batch N committed version N+1 here and the first batch
    // after a restart: take that map out of the cache instead of copying it (O(changes)
    // instead of O(state) per batch, and one copy of the state in memory). Aborts are rare (a
    // failed batch): then the version is read back from its files.
    if (auto it = cache_.find(version); it != cache_.end() && std::next(it) == cache_.end() && it->second.use_count() == 2) {
      data.reset();
      VersionData stolen = std::move(const_cast<VersionData&>(*it->second));
      cache_.erase(it);
      return std::make_unique<FileStateStore>(this, version, std::move(stolen), /*stolen=*/true);
    }
    return std::make_unique<FileStateStore>(this, version, *data, /*stolen=*/false);
  }


  Result<int64_t> LatestVersion() override {
    ARROW_ASSIGN_OR_RAISE(auto files, ListStoreFiles(fs_.get(), dir_));
    return files.Latest();
  }

  Status DoMaintenance(int64_t min_versions_to_retain) override;

  // Makes `version` durable from the store's delta bytes, then caches its content.
  // On error nothing in memory changes.
  Status CommitVersion(int64_t version, std::string delta, VersionData* data);

 private:
  Result<std::shared_ptr<const VersionData>> LoadVersion(int64_t version);
  Status ReadInto(const std::string& path, StateFileKind kind, int64_t version, VersionData* data);
  void Cache(int64_t version, std::shared_ptr<const VersionData> data);

  std::shared_ptr<io::FileSystem> fs_;
  StateStoreId id_;
  StateStoreOptions options_;
  std::string dir_;
  std::map<int64_t, std::shared_ptr<const VersionData>> cache_;  // the highest loaded/committed versions
};

Status FileStateStore::CheckOpen(const char* what) const {
  if (phase_ == Phase::kOpen) return Status::OK();
  return Status::Invalid("Cannot ", what, " in the state store of ", provider_->id().Describe(), " at version ",
                         version_, ": it is already ", phase_ == Phase::kCommitted ? "committed" : "aborted");
}

Status FileStateStore::CheckReadable() const {
  if (phase_ != Phase::kCommitted) return Status::OK();
  return Status::Invalid("The state store of ", provider_->id().Describe(), " at version ", version_,
                         " is committed; load version ", version_ + 1, " to read it");
}

void FileStateStore::Abort() {
  if (phase_ != Phase::kOpen) return;
  phase_ = Phase::kAborted;
  ClearRemovals();
  if (stolen_) data_ = VersionData{};  // the version's files still have it
}

const std::vector<std::string_view>& FileStateStore::Removals() const {
  if (removals_) return *removals_;
  std::vector<std::string_view> keys;
  keys.reserve(removed_ends_.size());
  size_t begin = 0;
  for (const size_t end : removed_ends_) {
    keys.push_back(std::string_view(removed_keys_).substr(begin, end - begin));
    begin = end;
  }
  // Removed in key order (an eviction walk) and never put again: already the answer.
  if (!removed_in_order_) {
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  }
  if (put_after_removal_) {
    keys.erase(std::remove_if(keys.begin(), keys.end(), [&](std::string_view k) { return data_.map.Find(k).has_value(); }),
               keys.end());
  }
  removals_ = std::move(keys);
  return *removals_;
}

Result<int64_t> FileStateStore::Commit() {
  ARROW_RETURN_NOT_OK(CheckOpen("commit"));
  // Records in key order, puts and removals merged: the delta bytes depend only on the changes.
  const std::vector<std::string_view>& removed = Removals();
  StateFileWriter writer(StateFileKind::kDelta, version_ + 1);
  auto next_removed = removed.begin();
  data_.map.ForEachChangedSorted([&](std::string_view k, std::string_view v) {
    for (; next_removed != removed.end() && *next_removed < k; ++next_removed) writer.Remove(*next_removed);
    writer.Put(k, v);
  });
  for (; next_removed != removed.end(); ++next_removed) writer.Remove(*next_removed);
  StateStoreMetrics m = metrics();
  ARROW_RETURN_NOT_OK(provider_->CommitVersion(version_ + 1, writer.Finish(), &data_));
  committed_metrics_ = m;
  ClearRemovals();
  phase_ = Phase::kCommitted;
  return version_ + 1;
}

Status FileStateStoreProvider::ReadInto(const std::string& path, StateFileKind kind, int64_t version,
                                        VersionData* data) {
  ARROW_ASSIGN_OR_RAISE(auto file, fs_->OpenInputFile(path));  // streamed: no copy of the file in memory
  return ReadStateFile(
      path, file.get(), kind, version,
      [data](std::string_view key, const std::string_view* value) {
        if (value == nullptr) {
          data->map.Erase(key);
        } else {
          data->map.Put(key, *value, /*mark_changed=*/false);
        }
      },
      // The first file into an empty map (a snapshot, or the oldest delta): room for all its
      // records at once, where growing by doubling rehashed every key loaded so far. Later
      // deltas mostly update keys already there, so they grow the table only as needed.
      [data](uint64_t records) {
        if (data->map.size() == 0) data->map.Reserve(static_cast<int64_t>(records));
      });
}

Result<std::shared_ptr<const VersionData>> FileStateStoreProvider::LoadVersion(int64_t version) {
  if (auto it = cache_.find(version); it != cache_.end()) return it->second;
  auto data = std::make_shared<VersionData>();
  if (version == 0) return data;

  // Start from the newest cached map or snapshot at or below `version`, then replay deltas.
  ARROW_ASSIGN_OR_RAISE(StoreFiles files, ListStoreFiles(fs_.get(), dir_));
  auto cached = cache_.upper_bound(version);
  const int64_t cached_base = cached == cache_.begin() ? 0 : std::prev(cached)->first;
  const int64_t snap_base = files.SnapshotAtOrBelow(version);
  const int64_t base = std::max(snap_base, cached_base);
  ARROW_RETURN_NOT_OK(CheckDeltasPresent(id_, files, base, version));
  if (snap_base > cached_base) {
    ARROW_RETURN_NOT_OK(ReadInto(SnapshotPath(dir_, base), StateFileKind::kSnapshot, base, data.get()));
  } else if (cached_base > 0) {
    *data = *std::prev(cached)->second;
  }
  for (int64_t v = base + 1; v <= version; ++v) {
    ARROW_RETURN_NOT_OK(ReadInto(DeltaPath(dir_, v), StateFileKind::kDelta, v, data.get()));
  }
  Cache(version, data);
  return data;
}

void FileStateStoreProvider::Cache(int64_t version, std::shared_ptr<const VersionData> data) {
  cache_[version] = std::move(data);
  while (static_cast<int>(cache_.size()) > std::max(options_.versions_in_memory, 0)) cache_.erase(cache_.begin());
}

Status FileStateStoreProvider::CommitVersion(int64_t version, std::string delta, VersionData* data) {
  ARROW_RETURN_NOT_OK(WriteDeltaFile(fs_.get(), dir_, version, delta));
  data->map.ClearChanges();
  // Versions above this one (from an attempt that went further) no longer follow from it.
  cache_.erase(cache_.lower_bound(version), cache_.end());
  Cache(version, std::make_shared<const VersionData>(std::move(*data)));
  return Status::OK();
}

Status FileStateStoreProvider::DoMaintenance(int64_t min_versions_to_retain) {
  return MaintainStoreFiles(fs_.get(), id_, options_, min_versions_to_retain, [&](int64_t latest) -> Result<bool> {
    auto cached = cache_.find(latest);
    if (cached == cache_.end()) return false;
    const CompactMap& map = cached->second->map;
    ARROW_RETURN_NOT_OK(WriteSnapshotFile(fs_.get(), dir_, latest, [&](const SnapshotPutFn& put) {
      Status st;
      map.ForEachSorted([&](std::string_view k, std::string_view v) {
        st = put(k, v);
        return st.ok();
      });
      return st;
    }));
    return true;
  });
}

}  // namespace

Result<std::unique_ptr<StateStoreProvider>> OpenFileStateStoreProvider(std::shared_ptr<io::FileSystem> fs,
                                                                       StateStoreId id,
                                                                       StateStoreOptions options) {
  ARROW_RETURN_NOT_OK(CheckProviderArgs("OpenFileStateStoreProvider", fs.get(), id));
  return std::make_unique<FileStateStoreProvider>(std::move(fs), std::move(id), options);
}

}  // namespace sluice::state
