// The default state store provider: each version's map in memory, persisted as <V>.delta files
// (one per commit) and periodic <V>.snapshot files written by maintenance. Format and
// retention rules: docs/state-store.md.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "state/state_file.h"
#include "state/state_store.h"
#include "state/store_files.h"

namespace sluice::state {
namespace {

using StateMap = std::map<std::string, std::string, std::less<>>;

// Rough per-entry cost of a std::map node holding two std::strings.
constexpr int64_t kEntryOverhead = 32 + 2 * static_cast<int64_t>(sizeof(std::string));

int64_t EntryBytes(size_t key, size_t value) { return static_cast<int64_t>(key + value) + kEntryOverhead; }

// One version's content; shared read-only between the cache and nothing else.
struct VersionData {
  StateMap map;
  int64_t bytes = 0;
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
    auto it = data_.map.find(key);
    if (it == data_.map.end()) return std::optional<std::string>{};
    return std::optional<std::string>(it->second);
  }

  Status Put(std::string_view key, std::string_view value) override {
    ARROW_RETURN_NOT_OK(CheckOpen("put"));
    auto it = data_.map.find(key);
    if (it == data_.map.end()) {
      it = data_.map.emplace(std::string(key), std::string(value)).first;
      data_.bytes += EntryBytes(key.size(), value.size());
    } else {
      data_.bytes += static_cast<int64_t>(value.size()) - static_cast<int64_t>(it->second.size());
      it->second.assign(value);
    }
    if (!removed_.empty()) {
      if (auto r = removed_.find(key); r != removed_.end()) removed_.erase(r);
    }
    // The map node outlives this version's changes unless removed (then it leaves puts_ first).
    // put_order_ is kept only while valid: after a removal it may point at freed nodes.
    if (puts_.try_emplace(std::string_view(it->first), &*it).second && put_order_valid_) {
      if (!put_order_.empty() && !(put_order_.back()->first < it->first)) puts_in_key_order_ = false;
      put_order_.push_back(&*it);
    }
    return Status::OK();
  }

  Status Remove(std::string_view key) override {
    ARROW_RETURN_NOT_OK(CheckOpen("remove"));
    auto it = data_.map.find(key);
    if (it == data_.map.end()) return Status::OK();
    data_.bytes -= EntryBytes(it->first.size(), it->second.size());
    if (puts_.erase(std::string_view(it->first)) > 0) {
      put_order_valid_ = false;  // put_order_ would dangle: drop it, Commit sorts puts_ instead
      put_order_.clear();
    }
    removed_.emplace(key);
    data_.map.erase(it);
    return Status::OK();
  }

  Status ForEach(const std::function<Status(std::string_view, std::string_view)>& fn) const override {
    ARROW_RETURN_NOT_OK(CheckReadable());
    for (const auto& [k, v] : data_.map) ARROW_RETURN_NOT_OK(fn(k, v));
    return Status::OK();
  }

  Result<int64_t> Commit() override;

  void Abort() override;
  bool committed() const override { return phase_ == Phase::kCommitted; }

  StateStoreMetrics metrics() const override {
    if (phase_ == Phase::kCommitted) return committed_metrics_;
    StateStoreMetrics m;
    m.num_keys = static_cast<int64_t>(data_.map.size());
    m.memory_used_bytes = data_.bytes;
    m.num_rows_updated = static_cast<int64_t>(puts_.size());
    m.num_rows_removed = static_cast<int64_t>(removed_.size());
    return m;
  }

 private:
  enum class Phase { kOpen, kCommitted, kAborted };

  Status CheckOpen(const char* what) const;
  Status CheckReadable() const;

  FileStateStoreProvider* provider_;
  int64_t version_;
  VersionData data_;
  // This version's changes, for its delta file: keys whose last change is a put (views of the
  // map's own nodes, so a put copies no key) and keys whose last change is a removal.
  std::unordered_map<std::string_view, const StateMap::value_type*> puts_;
  std::set<std::string, std::less<>> removed_;
  // The puts in first-put order; operators usually put keys in key order, and then the delta
  // needs no sort.
  std::vector<const StateMap::value_type*> put_order_;
  bool puts_in_key_order_ = true;
  bool put_order_valid_ = true;
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
    // The common case, batch N+1 after batch N committed version N+1 here: take that map out of
    // the cache instead of copying it (O(changes) instead of O(state) per batch). Aborts are
    // rare (a failed batch): then the version is read back from its files.
    if (auto it = cache_.find(version); it != cache_.end() && std::next(it) == cache_.end() && it->second.use_count() == 1) {
      VersionData data = std::move(const_cast<VersionData&>(*it->second));
      cache_.erase(it);
      return std::make_unique<FileStateStore>(this, version, std::move(data), /*stolen=*/true);
    }
    ARROW_ASSIGN_OR_RAISE(auto data, LoadVersion(version));
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
  puts_.clear();
  removed_.clear();
  put_order_.clear();
  puts_in_key_order_ = put_order_valid_ = true;
  if (stolen_) data_ = VersionData{};  // the version's files still have it
}

Result<int64_t> FileStateStore::Commit() {
  ARROW_RETURN_NOT_OK(CheckOpen("commit"));
  // Records in key order (puts and removals merged), as before: the delta bytes depend only on
  // the changes.
  std::vector<const StateMap::value_type*> puts;
  if (put_order_valid_ && puts_in_key_order_) {
    puts = put_order_;  // a copy: a failed commit must leave the changes as they were
  } else {
    puts.reserve(puts_.size());
    for (const auto& [k, node] : puts_) puts.push_back(node);
    std::sort(puts.begin(), puts.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  }
  StateFileWriter writer(StateFileKind::kDelta, version_ + 1);
  auto removed = removed_.begin();
  for (const auto* node : puts) {
    for (; removed != removed_.end() && *removed < node->first; ++removed) writer.Remove(*removed);
    writer.Put(node->first, node->second);
  }
  for (; removed != removed_.end(); ++removed) writer.Remove(*removed);
  StateStoreMetrics m = metrics();
  ARROW_RETURN_NOT_OK(provider_->CommitVersion(version_ + 1, writer.Finish(), &data_));
  committed_metrics_ = m;
  puts_.clear();
  removed_.clear();
  put_order_.clear();
  puts_in_key_order_ = put_order_valid_ = true;
  phase_ = Phase::kCommitted;
  return version_ + 1;
}

Status FileStateStoreProvider::ReadInto(const std::string& path, StateFileKind kind, int64_t version,
                                        VersionData* data) {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, fs_->ReadFile(path));
  return ReadStateFile(path, bytes, kind, version, [data](std::string_view key, const std::string_view* value) {
    auto it = data->map.find(key);
    if (it != data->map.end()) {
      data->bytes -= EntryBytes(it->first.size(), it->second.size());
      if (value == nullptr) {
        data->map.erase(it);
      } else {
        it->second.assign(*value);
        data->bytes += EntryBytes(key.size(), value->size());
      }
    } else if (value != nullptr) {
      data->map.emplace(std::string(key), std::string(*value));
      data->bytes += EntryBytes(key.size(), value->size());
    }
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
  // Versions above this one (from an attempt that went further) no longer follow from it.
  cache_.erase(cache_.lower_bound(version), cache_.end());
  Cache(version, std::make_shared<const VersionData>(std::move(*data)));
  return Status::OK();
}

Status FileStateStoreProvider::DoMaintenance(int64_t min_versions_to_retain) {
  return MaintainStoreFiles(fs_.get(), id_, options_, min_versions_to_retain, [&](int64_t latest) -> Result<bool> {
    auto cached = cache_.find(latest);
    if (cached == cache_.end()) return false;
    const StateMap& map = cached->second->map;
    ARROW_RETURN_NOT_OK(WriteSnapshotFile(fs_.get(), dir_, latest, [&](const SnapshotPutFn& put) {
      for (const auto& [k, v] : map) ARROW_RETURN_NOT_OK(put(k, v));
      return Status::OK();
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
