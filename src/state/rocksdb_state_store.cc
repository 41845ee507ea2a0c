// The RocksDB state store provider, for state larger than memory (Spark's
// RocksDBStateStoreProvider with changelog checkpointing, in sluice's file format).
//
// The live state is a local RocksDB database in a working directory of the provider's own,
// <base>/sluice-rocksdb-<pid>-<uuid>/db, removed with the provider (see WorkDirBase for the
// base). It holds one version at a time, `local_version_`. The checkpoint holds exactly
// what the file provider writes (store_files.h): each commit writes <V>.delta, maintenance
// writes <V>.snapshot by iterating the database, so either provider reads the other's
// checkpoint. Load(V) reuses the database when it is at V, rolls it forward over the deltas
// when it is below V, and otherwise rebuilds it from the newest snapshot <= V plus the later
// deltas. Every file is streamed, so nothing here grows with the state but RocksDB's own
// bounded caches; only one batch's changes are held in memory.
//
// A store's changes go into a WriteBatchWithIndex (its reads see them) and reach the database
// only after the delta is durable, so Abort and a failed commit leave the database at the
// loaded version. RocksDB's own write-ahead log is off: the database is a cache of the
// checkpoint, rebuilt from its files after a restart. A rebuild merges the snapshot and the
// deltas (each sorted by key, one record per key) into one sorted table file and ingests it,
// so a restart costs one sequential pass over the files instead of a lookup and a write per key.
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/write_batch_with_index.h>

#include <unistd.h>

#include <filesystem>

#include "io/file_system.h"
#include "io/uuid.h"
#include "state/state_file.h"
#include "state/state_store.h"
#include "state/store_files.h"
#include "util/log.h"

namespace sluice::state {
namespace {

// Rebuilding writes to the database in batches of about this many bytes.
constexpr size_t kRebuildWriteChunk = 4 << 20;
// A rebuild merges at most this many files (a snapshot and deltas) into one bulk-loaded table;
// later deltas are applied key by key. Each open file holds one read chunk (state_file.cc).
constexpr size_t kMaxMergedFiles = 16;

rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
std::string_view ToView(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

Status FromRocks(const rocksdb::Status& st, const std::string& what) {
  if (st.ok()) return Status::OK();
  return Status::IOError(what, ": ", st.ToString());
}

// One block cache for every provider of the process, so many partitions' databases share one
// memory bound instead of each having its own.
std::shared_ptr<rocksdb::Cache> SharedBlockCache() {
  static const std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(64 << 20);
  return cache;
}

rocksdb::Options DatabaseOptions() {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.error_if_exists = true;  // always opened on a freshly emptied directory
  options.avoid_flush_during_shutdown = true;  // a closed database is deleted, never reopened
  options.write_buffer_size = 16 << 20;
  options.max_open_files = 256;
  options.info_log_level = rocksdb::InfoLogLevel::WARN_LEVEL;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = SharedBlockCache();
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));  // most Gets of new keys miss
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return options;
}

// Where a provider creates its working directory: options.local_dir when set, else
// <checkpoint>/rocksdb-local, which is removed again when its last provider closes. Never the
// system temp directory: a crashed run's databases stay with the checkpoint they cache.
struct WorkDirBase {
  std::filesystem::path path;
  bool in_checkpoint;
};

WorkDirBase BaseFor(const StateStoreId& id, const StateStoreOptions& options) {
  if (!options.local_dir.empty()) return {options.local_dir, false};
  return {std::filesystem::path(io::UriToPath(id.checkpoint_dir)) / kRocksDBLocalDirName, true};
}

std::string WorkDirPrefix(pid_t pid) { return "sluice-rocksdb-" + std::to_string(pid) + "-"; }

// Under the checkpoint's base, working directories of other processes are left over from runs
// that crashed: the checkpoint lock lets only this process run the query. A configured
// local_dir may be shared by other live processes, so nothing is removed there.
void RemoveCrashedRunsWorkDirs(const WorkDirBase& base) {
  if (!base.in_checkpoint) return;
  const std::string mine = WorkDirPrefix(::getpid());
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(base.path, ec)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("sluice-rocksdb-") && !name.starts_with(mine)) std::filesystem::remove_all(e.path(), ec);
  }
}

rocksdb::WriteOptions LocalWrite() {
  rocksdb::WriteOptions w;
  w.disableWAL = true;
  return w;
}

// Key found in the batch or the database; NotFound is false, not an error.
Result<bool> Contains(rocksdb::WriteBatchWithIndex* batch, rocksdb::DB* db, std::string_view key) {
  rocksdb::PinnableSlice value;
  rocksdb::Status st = batch->GetFromBatchAndDB(db, rocksdb::ReadOptions(), ToSlice(key), &value);
  if (st.IsNotFound()) return false;
  ARROW_RETURN_NOT_OK(FromRocks(st, "RocksDB state store read"));
  return true;
}

class RocksDBStateStoreProvider;

class RocksDBStateStore final : public StateStore {
 public:
  RocksDBStateStore(RocksDBStateStoreProvider* provider, int64_t version, int64_t num_keys, uint64_t generation)
      : provider_(provider),
        version_(version),
        num_keys_(num_keys),
        generation_(generation),
        batch_(rocksdb::BytewiseComparator(), 0, /*overwrite_key=*/true) {}

  int64_t version() const override { return version_; }
  Result<std::optional<std::string>> Get(std::string_view key) const override;
  Status Put(std::string_view key, std::string_view value) override;
  Status Remove(std::string_view key) override;
  Status ForEach(const std::function<Status(std::string_view, std::string_view)>& fn) const override;
  Status ForEachWithPrefix(std::string_view prefix,
                           const std::function<Status(std::string_view, std::string_view)>& fn) const override;
  Status ForEachRemovingInRange(
      std::string_view from, std::string_view up_to,
      const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn) override;
  Result<int64_t> Commit() override;
  void Abort() override {
    if (phase_ == Phase::kOpen) phase_ = Phase::kAborted;
  }
  bool committed() const override { return phase_ == Phase::kCommitted; }
  StateStoreMetrics metrics() const override;

 private:
  enum class Phase { kOpen, kCommitted, kAborted };

  Status CheckOpen(const char* what) const;
  Status CheckReadable() const;
  // The database still holds version_ (no other store committed, no other version loaded).
  Status CheckCurrent() const;
  rocksdb::DB* db() const;

  RocksDBStateStoreProvider* provider_;
  int64_t version_;
  int64_t num_keys_;      // keys in version_ plus this store's changes
  uint64_t generation_;   // the provider's database generation this store was loaded at
  // The last change per key (overwrite_key); mutable because RocksDB's read calls are not const.
  mutable rocksdb::WriteBatchWithIndex batch_;
  Phase phase_ = Phase::kOpen;
  StateStoreMetrics committed_metrics_;
};

class RocksDBStateStoreProvider final : public StateStoreProvider {
 public:
  RocksDBStateStoreProvider(std::shared_ptr<io::FileSystem> fs, StateStoreId id, StateStoreOptions options)
      : fs_(std::move(fs)), id_(std::move(id)), options_(std::move(options)), dir_(id_.Dir()) {}

  // Closes the database and deletes the working directory (and the checkpoint's base when it
  // is left empty); failures are only logged, there is no caller to report them to.
  ~RocksDBStateStoreProvider() override {
    db_.reset();
    if (work_dir_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(work_dir_, ec);
    if (ec) util::LogWarning("could not remove the RocksDB working directory '", work_dir_, "': ", ec.message());
    const WorkDirBase base = BaseFor(id_, options_);
    if (base.in_checkpoint) std::filesystem::remove(base.path, ec);  // fails while other providers use it
  }

  const StateStoreId& id() const override { return id_; }

  Result<std::unique_ptr<StateStore>> Load(int64_t version) override {
    if (version < 0) return Status::Invalid("Cannot load state version ", version, " of ", id_.Describe());
    ARROW_RETURN_NOT_OK(MoveTo(version));
    return std::make_unique<RocksDBStateStore>(this, version, local_num_keys_, generation_);
  }

  Result<int64_t> LatestVersion() override {
    ARROW_ASSIGN_OR_RAISE(auto files, ListStoreFiles(fs_.get(), dir_));
    return files.Latest();
  }

  Status DoMaintenance(int64_t min_versions_to_retain) override;

  rocksdb::DB* db() const { return db_.get(); }
  uint64_t generation() const { return generation_; }
  // RocksDB's memory for this database: memtables and table readers (the block cache is shared).
  int64_t MemoryUsage() const;

  // Makes `version` durable from the store's delta bytes, then applies the store's batch to
  // the database. On error nothing changes.
  Status CommitVersion(int64_t version, const std::string& delta, rocksdb::WriteBatch* batch, int64_t num_keys);

 private:
  // Brings the database to `version` (see the file comment).
  Status MoveTo(int64_t version);
  // Replaces the database by an empty one.
  Status ResetDatabase();
  // Applies a delta, or a snapshot to the empty database, streamed from the checkpoint.
  Status ApplyFile(const std::string& path, StateFileKind kind, int64_t version);
  // Fills the empty database with version `base` (its snapshot, when base > 0) plus the deltas
  // after it up to at most `version`, merged into one sorted table file that is ingested whole
  // (no per-key writes or lookups). Returns the version the database now holds, or nullopt
  // when a file's records are not in strictly increasing key order (files of another writer):
  // then the database may hold part of the data and must be reset.
  Result<std::optional<int64_t>> BulkLoad(int64_t base, int64_t version);

  std::shared_ptr<io::FileSystem> fs_;
  StateStoreId id_;
  StateStoreOptions options_;
  std::string dir_;
  std::string work_dir_;                     // created on first use
  std::unique_ptr<rocksdb::DB> db_;
  std::optional<int64_t> local_version_;     // the version db_ holds; none = unknown (rebuild)
  int64_t local_num_keys_ = 0;               // keys in db_
  uint64_t generation_ = 0;                  // changes whenever db_'s content changes
};

// ----- store -----

rocksdb::DB* RocksDBStateStore::db() const { return provider_->db(); }

Status RocksDBStateStore::CheckOpen(const char* what) const {
  if (phase_ != Phase::kOpen) {
    return Status::Invalid("Cannot ", what, " in the state store of ", provider_->id().Describe(), " at version ",
                           version_, ": it is already ", phase_ == Phase::kCommitted ? "committed" : "aborted");
  }
  return CheckCurrent();
}

Status RocksDBStateStore::CheckReadable() const {
  if (phase_ == Phase::kCommitted) {
    return Status::Invalid("The state store of ", provider_->id().Describe(), " at version ", version_,
                           " is committed; load version ", version_ + 1, " to read it");
  }
  return CheckCurrent();
}

Status RocksDBStateStore::CheckCurrent() const {
  if (provider_->generation() == generation_) return Status::OK();
  return Status::Invalid("The state store of ", provider_->id().Describe(), " at version ", version_,
                         " is stale: its provider has since loaded or committed another version (the RocksDB "
                         "provider holds one version at a time)");
}

Result<std::optional<std::string>> RocksDBStateStore::Get(std::string_view key) const {
  ARROW_RETURN_NOT_OK(CheckReadable());
  std::string value;
  rocksdb::Status st = batch_.GetFromBatchAndDB(db(), rocksdb::ReadOptions(), ToSlice(key), &value);
  if (st.IsNotFound()) return std::optional<std::string>{};
  ARROW_RETURN_NOT_OK(FromRocks(st, "RocksDB state store read"));
  return std::optional<std::string>(std::move(value));
}

Status RocksDBStateStore::Put(std::string_view key, std::string_view value) {
  ARROW_RETURN_NOT_OK(CheckOpen("put"));
  ARROW_ASSIGN_OR_RAISE(bool existed, Contains(&batch_, db(), key));
  ARROW_RETURN_NOT_OK(FromRocks(batch_.Put(ToSlice(key), ToSlice(value)), "RocksDB state store write"));
  if (!existed) ++num_keys_;
  return Status::OK();
}

Status RocksDBStateStore::Remove(std::string_view key) {
  ARROW_RETURN_NOT_OK(CheckOpen("remove"));
  ARROW_ASSIGN_OR_RAISE(bool existed, Contains(&batch_, db(), key));
  if (!existed) return Status::OK();
  ARROW_RETURN_NOT_OK(FromRocks(batch_.Delete(ToSlice(key)), "RocksDB state store write"));
  --num_keys_;
  return Status::OK();
}

Status RocksDBStateStore::ForEach(const std::function<Status(std::string_view, std::string_view)>& fn) const {
  ARROW_RETURN_NOT_OK(CheckReadable());
  std::unique_ptr<rocksdb::Iterator> it(batch_.NewIteratorWithBase(db()->NewIterator(rocksdb::ReadOptions())));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ARROW_RETURN_NOT_OK(fn(ToView(it->key()), ToView(it->value())));
  return FromRocks(it->status(), "RocksDB state store iteration");
}

Status RocksDBStateStore::ForEachWithPrefix(std::string_view prefix,
                                            const std::function<Status(std::string_view, std::string_view)>& fn) const {
  ARROW_RETURN_NOT_OK(CheckReadable());
  std::unique_ptr<rocksdb::Iterator> it(batch_.NewIteratorWithBase(db()->NewIterator(rocksdb::ReadOptions())));
  for (it->Seek(ToSlice(prefix)); it->Valid() && ToView(it->key()).substr(0, prefix.size()) == prefix; it->Next()) {
    ARROW_RETURN_NOT_OK(fn(ToView(it->key()), ToView(it->value())));
  }
  return FromRocks(it->status(), "RocksDB state store iteration");
}

Status RocksDBStateStore::ForEachRemovingInRange(
    std::string_view from, std::string_view up_to,
    const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn) {
  ARROW_RETURN_NOT_OK(CheckOpen("remove"));
  std::vector<std::string> doomed;  // removed after the walk: the iterator reads the batch
  Status failed;
  {
    std::unique_ptr<rocksdb::Iterator> it(batch_.NewIteratorWithBase(db()->NewIterator(rocksdb::ReadOptions())));
    for (it->Seek(ToSlice(from)); it->Valid(); it->Next()) {
      const std::string_view k = ToView(it->key());
      if (k.substr(0, up_to.size()) > up_to) break;
      Result<KeyAction> action = fn(k, ToView(it->value()));
      if (!action.ok()) {
        failed = action.status();
        break;
      }
      if (*action == KeyAction::kStop) break;
      if (*action == KeyAction::kRemove) doomed.emplace_back(k);
    }
    ARROW_RETURN_NOT_OK(FromRocks(it->status(), "RocksDB state store iteration"));
  }
  for (const auto& k : doomed) {  // present: the walk just read them (Remove would look each up)
    ARROW_RETURN_NOT_OK(FromRocks(batch_.Delete(ToSlice(k)), "RocksDB state store write"));
    --num_keys_;
  }
  return failed;
}

StateStoreMetrics RocksDBStateStore::metrics() const {
  if (phase_ == Phase::kCommitted) return committed_metrics_;
  StateStoreMetrics m;
  m.num_keys = num_keys_;
  m.memory_used_bytes = provider_->MemoryUsage() + static_cast<int64_t>(batch_.GetDataSize());
  std::unique_ptr<rocksdb::WBWIIterator> it(batch_.NewIterator());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    (it->Entry().type == rocksdb::kPutRecord ? m.num_rows_updated : m.num_rows_removed) += 1;
  }
  return m;
}

Result<int64_t> RocksDBStateStore::Commit() {
  ARROW_RETURN_NOT_OK(CheckOpen("commit"));
  StateFileWriter writer(StateFileKind::kDelta, version_ + 1);
  std::unique_ptr<rocksdb::WBWIIterator> it(batch_.NewIterator());
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    rocksdb::WriteEntry e = it->Entry();
    if (e.type == rocksdb::kPutRecord) {
      writer.Put(ToView(e.key), ToView(e.value));
    } else {
      writer.Remove(ToView(e.key));  // the batch holds only puts and deletes
    }
  }
  StateStoreMetrics m = metrics();
  ARROW_RETURN_NOT_OK(provider_->CommitVersion(version_ + 1, writer.Finish(), batch_.GetWriteBatch(), num_keys_));
  committed_metrics_ = m;
  batch_.Clear();
  phase_ = Phase::kCommitted;
  return version_ + 1;
}

// ----- provider -----

int64_t RocksDBStateStoreProvider::MemoryUsage() const {
  if (!db_) return 0;
  uint64_t memtables = 0, readers = 0;
  db_->GetIntProperty(rocksdb::DB::Properties::kCurSizeAllMemTables, &memtables);
  db_->GetIntProperty(rocksdb::DB::Properties::kEstimateTableReadersMem, &readers);
  return static_cast<int64_t>(memtables + readers);
}

Status RocksDBStateStoreProvider::ResetDatabase() {
  db_.reset();
  local_version_.reset();
  local_num_keys_ = 0;
  ++generation_;
  std::error_code ec;
  if (work_dir_.empty()) {
    const WorkDirBase base = BaseFor(id_, options_);
    RemoveCrashedRunsWorkDirs(base);
    work_dir_ = (base.path / (WorkDirPrefix(::getpid()) + io::RandomUuid())).string();
  }
  const std::string path = work_dir_ + "/db";
  std::filesystem::remove_all(path, ec);
  if (!ec) std::filesystem::create_directories(work_dir_, ec);
  if (ec) return Status::IOError("Cannot prepare '", path, "' for the RocksDB state store of ", id_.Describe(), ": ",
                                 ec.message());
  rocksdb::DB* db = nullptr;
  ARROW_RETURN_NOT_OK(FromRocks(rocksdb::DB::Open(DatabaseOptions(), path, &db),
                                "Cannot open the local RocksDB database of " + id_.Describe() + " at '" + path + "'"));
  db_.reset(db);
  local_version_ = 0;
  return Status::OK();
}

Status RocksDBStateStoreProvider::ApplyFile(const std::string& path, StateFileKind kind, int64_t version) {
  ARROW_ASSIGN_OR_RAISE(auto file, fs_->OpenInputFile(path));
  const std::string what = "Cannot apply state file '" + path + "' to the local RocksDB database";
  rocksdb::WriteBatchWithIndex batch(rocksdb::BytewiseComparator(), 0, /*overwrite_key=*/true);
  int64_t keys = local_num_keys_;
  Status apply = Status::OK();
  auto flush = [&]() {
    apply = FromRocks(db_->Write(LocalWrite(), batch.GetWriteBatch()), what);
    batch.Clear();
  };
  // A snapshot goes into the empty database and holds each key once: no lookups needed.
  const bool into_empty = kind == StateFileKind::kSnapshot;
  auto apply_record = [&](std::string_view key, const std::string_view* value) -> Status {
    bool existed = false;
    if (!into_empty) {
      ARROW_ASSIGN_OR_RAISE(existed, Contains(&batch, db_.get(), key));
    }
    if (value != nullptr) {
      ARROW_RETURN_NOT_OK(FromRocks(batch.Put(ToSlice(key), ToSlice(*value)), what));
      keys += existed ? 0 : 1;
    } else if (existed) {
      ARROW_RETURN_NOT_OK(FromRocks(batch.Delete(ToSlice(key)), what));
      keys -= 1;
    }
    if (batch.GetDataSize() >= kRebuildWriteChunk) flush();
    return apply;
  };
  ARROW_RETURN_NOT_OK(ReadStateFile(path, file.get(), kind, version,
                                    [&](std::string_view key, const std::string_view* value) {
                                      if (apply.ok()) apply = apply_record(key, value);
                                    }));
  ARROW_RETURN_NOT_OK(apply);
  flush();
  ARROW_RETURN_NOT_OK(apply);
  local_num_keys_ = keys;
  return Status::OK();
}

Result<std::optional<int64_t>> RocksDBStateStoreProvider::BulkLoad(int64_t base, int64_t version) {
  struct Source {
    std::shared_ptr<arrow::io::RandomAccessFile> file;
    std::unique_ptr<StateFileCursor> cursor;
    bool valid = false;
    std::string last_key;  // to check the strictly increasing order
  };
  // Sources oldest first: on equal keys the newest record wins.
  std::vector<Source> sources;
  auto open = [&](const std::string& path, StateFileKind kind, int64_t v) -> Status {
    Source s;
    ARROW_ASSIGN_OR_RAISE(s.file, fs_->OpenInputFile(path));
    ARROW_ASSIGN_OR_RAISE(s.cursor, StateFileCursor::Open(path, s.file.get(), kind, v));
    ARROW_ASSIGN_OR_RAISE(s.valid, s.cursor->Next());
    sources.push_back(std::move(s));
    return Status::OK();
  };
  if (base > 0) ARROW_RETURN_NOT_OK(open(SnapshotPath(dir_, base), StateFileKind::kSnapshot, base));
  int64_t last = base;
  for (; last < version && sources.size() < kMaxMergedFiles; ++last) {
    ARROW_RETURN_NOT_OK(open(DeltaPath(dir_, last + 1), StateFileKind::kDelta, last + 1));
  }
  if (sources.empty()) return std::optional<int64_t>(last);

  const std::string sst = work_dir_ + "/bulk-load.sst";
  const std::string what = "Cannot bulk-load the local RocksDB database of " + id_.Describe() + " from '" + sst + "'";
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), DatabaseOptions());
  ARROW_RETURN_NOT_OK(FromRocks(writer.Open(sst), what));
  int64_t keys = 0;
  std::vector<size_t> at_min;
  while (true) {
    std::string_view min;
    bool any = false;
    for (const Source& s : sources) {
      if (s.valid && (!any || s.cursor->key() < min)) min = s.cursor->key(), any = true;
    }
    if (!any) break;
    at_min.clear();
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i].valid && sources[i].cursor->key() == min) at_min.push_back(i);
    }
    if (const std::string_view* value = sources[at_min.back()].cursor->value()) {
      ARROW_RETURN_NOT_OK(FromRocks(writer.Put(ToSlice(min), ToSlice(*value)), what));
      ++keys;
    }
    for (size_t i : at_min) {
      Source& s = sources[i];
      s.last_key.assign(s.cursor->key());
      ARROW_ASSIGN_OR_RAISE(s.valid, s.cursor->Next());
      if (s.valid && !(s.last_key < s.cursor->key())) return std::optional<int64_t>();
    }
  }
  sources.clear();
  if (keys > 0) {
    ARROW_RETURN_NOT_OK(FromRocks(writer.Finish(), what));
    rocksdb::IngestExternalFileOptions ingest;
    ingest.move_files = true;  // the file is in the working directory, next to the database
    ARROW_RETURN_NOT_OK(FromRocks(db_->IngestExternalFile({sst}, ingest), what));
  }
  std::error_code ec;
  std::filesystem::remove(sst, ec);  // not moved (no keys) or linked: the database has its own link
  local_num_keys_ = keys;
  return std::optional<int64_t>(last);
}

Status RocksDBStateStoreProvider::MoveTo(int64_t version) {
  if (db_ && local_version_ == version) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(StoreFiles files, ListStoreFiles(fs_.get(), dir_));
  int64_t base = 0;
  if (db_ && local_version_ && *local_version_ < version &&
      CheckDeltasPresent(id_, files, *local_version_, version).ok()) {
    base = *local_version_;  // roll forward: O(changes), not O(state)
  } else {
    base = files.SnapshotAtOrBelow(version);
    // Everything needed must be there before the database is emptied.
    ARROW_RETURN_NOT_OK(CheckDeltasPresent(id_, files, base, version));
    ARROW_RETURN_NOT_OK(ResetDatabase());
    local_version_.reset();
    ARROW_ASSIGN_OR_RAISE(std::optional<int64_t> loaded, BulkLoad(base, version));
    if (loaded) {
      base = *loaded;
    } else {  // unsorted files: replay them key by key
      ARROW_RETURN_NOT_OK(ResetDatabase());
      local_version_.reset();
      if (base > 0) ARROW_RETURN_NOT_OK(ApplyFile(SnapshotPath(dir_, base), StateFileKind::kSnapshot, base));
    }
  }
  // Until the last delta is applied the database holds no known version.
  local_version_.reset();
  ++generation_;
  for (int64_t v = base + 1; v <= version; ++v) {
    ARROW_RETURN_NOT_OK(ApplyFile(DeltaPath(dir_, v), StateFileKind::kDelta, v));
  }
  local_version_ = version;
  return Status::OK();
}

Status RocksDBStateStoreProvider::CommitVersion(int64_t version, const std::string& delta, rocksdb::WriteBatch* batch,
                                                int64_t num_keys) {
  ARROW_RETURN_NOT_OK(WriteDeltaFile(fs_.get(), dir_, version, delta));
  // The version is durable now, so the commit has succeeded. Should the local database fail
  // to take the batch, it holds no known version any more and the next Load rebuilds it from
  // the files (where a broken local disk will then be reported).
  ++generation_;
  if (!db_->Write(LocalWrite(), batch).ok()) {
    local_version_.reset();
    return Status::OK();
  }
  local_version_ = version;
  local_num_keys_ = num_keys;
  return Status::OK();
}

Status RocksDBStateStoreProvider::DoMaintenance(int64_t min_versions_to_retain) {
  return MaintainStoreFiles(fs_.get(), id_, options_, min_versions_to_retain, [&](int64_t latest) -> Result<bool> {
    if (!db_ || local_version_ != latest) return false;
    ARROW_RETURN_NOT_OK(WriteSnapshotFile(fs_.get(), dir_, latest, [&](const SnapshotPutFn& put) {
      rocksdb::ReadOptions scan;
      scan.fill_cache = false;  // a full scan would only evict the batch's working set
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(scan));
      for (it->SeekToFirst(); it->Valid(); it->Next()) ARROW_RETURN_NOT_OK(put(ToView(it->key()), ToView(it->value())));
      return FromRocks(it->status(), "Cannot read the local RocksDB database of " + id_.Describe());
    }));
    return true;
  });
}

}  // namespace

Result<std::unique_ptr<StateStoreProvider>> OpenRocksDBStateStoreProvider(std::shared_ptr<io::FileSystem> fs,
                                                                          StateStoreId id,
                                                                          StateStoreOptions options) {
  ARROW_RETURN_NOT_OK(CheckProviderArgs("OpenRocksDBStateStoreProvider", fs.get(), id));
  return std::make_unique<RocksDBStateStoreProvider>(std::move(fs), std::move(id), std::move(options));
}

}  // namespace sluice::state
