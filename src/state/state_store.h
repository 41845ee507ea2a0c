// The versioned key/value state store of one stateful operator's partition (Spark's StateStore).
//
// Versions count committed batches: version 0 is empty; batch N works on a store loaded at
// version N and its Commit() makes version N+1 durable. Re-running an uncommitted batch N loads
// version N again and its commit overwrites version N+1 (as Spark's; docs/state-store.md).
//
// Keys and values are byte strings; operators encode their rows themselves. Iteration is
// ordered by key, bytewise (unsigned lexicographic, as memcmp), so output built from state is
// deterministic and a RocksDB provider with its default comparator can give the same order.
//
// Layout: <checkpoint>/state/<operatorId>/<partitionId>/ holds <V>.delta and <V>.snapshot files
// (format: docs/state-store.md); state/<operatorId>/_metadata/metadata describes the operator
// (operator_metadata.h). All checkpoint I/O goes through io::FileSystem. Both providers (the
// in-memory "file" one and "rocksdb") write the same files, so either reads the other's
// checkpoint.
//
// Thread-safety: a provider and its stores are thread-compatible: one batch at a time per
// (operator, partition); different partitions' providers are independent and may run in
// parallel. A provider must outlive the stores it loaded; at most one store per provider is
// meant to be open (being written) at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "io/file_system.h"

namespace sluice::state {

/// Which store: <checkpoint_dir>/state/<operator_id>/<partition_id>[/<store_name>].
/// The store name "default" adds no path component (Spark's rule, §1.5).
struct StateStoreId {
  std::string checkpoint_dir;
  int64_t operator_id = 0;
  int partition_id = 0;
  std::string store_name = "default";

  /// The directory holding this store's files.
  std::string Dir() const;
  /// "operator 3 partition 1" (plus " store 'left'" for a named store), for messages.
  std::string Describe() const;
};

struct StateStoreOptions {
  /// Write <V>.snapshot during maintenance once this many deltas follow the last snapshot
  /// (Spark's minDeltasForSnapshot).
  int snapshot_interval = 10;
  /// File provider: loaded or committed versions kept in memory so the next batch does not
  /// reread files (Spark's maxBatchesToRetainInMemory). The highest versions are kept.
  int versions_in_memory = 2;
  /// RocksDB provider: the directory under which each provider creates its working directory
  /// sluice-rocksdb-<pid>-<uuid> (the live database; removed when the provider is destroyed).
  /// Empty = <checkpoint_dir>/rocksdb-local (kRocksDBLocalDirName), removed when its last
  /// provider closes; a crashed run's directories there are removed by the next run. Must be
  /// local disk with room for the state.
  std::string local_dir;
};

/// Numbers for progress reports, about the version being written.
struct StateStoreMetrics {
  int64_t num_keys = 0;              // keys in the store now (numRowsTotal)
  int64_t memory_used_bytes = 0;     // estimate: key + value bytes + a fixed per-entry overhead
  int64_t num_rows_updated = 0;      // keys whose last change in this version is a put
  int64_t num_rows_removed = 0;      // keys whose last change in this version is a removal
};

/// One version of the state, open for the changes of one batch.
class StateStore {
 public:
  virtual ~StateStore() = default;

  /// The version this store was loaded at; Commit() creates version() + 1.
  virtual int64_t version() const = 0;

  virtual Result<std::optional<std::string>> Get(std::string_view key) const = 0;
  virtual Status Put(std::string_view key, std::string_view value) = 0;
  /// Removing an absent key is not an error (and not counted as a removal).
  virtual Status Remove(std::string_view key) = 0;
  /// Puts the value `fn` computes from the key's current value (nullopt when absent), as Get
  /// then Put would, in one lookup where the provider can; `value` is empty when fn is called.
  /// If fn fails, nothing is put and its error is returned. The view passed to fn is valid
  /// during the call only.
  using UpdateFn = std::function<Status(std::optional<std::string_view> old, std::string* value)>;
  virtual Status Update(std::string_view key, const UpdateFn& fn);
  /// Calls `fn` for every key in bytewise key order, stopping at the first error it returns.
  /// The store must not be changed from inside `fn`.
  virtual Status ForEach(
      const std::function<Status(std::string_view key, std::string_view value)>& fn) const = 0;

  /// As ForEach, over the keys that begin with `prefix` only. The default walks ForEach from
  /// the first key; the providers go to the prefix's keys directly (the file provider orders
  /// only those).
  virtual Status ForEachWithPrefix(
      std::string_view prefix, const std::function<Status(std::string_view key, std::string_view value)>& fn) const;

  /// What ForEachRemoving does with the key it has just shown.
  enum class KeyAction { kKeep, kRemove, kStop };
  /// Walks the keys in bytewise key order as ForEach does and removes (as Remove) each key `fn`
  /// answers kRemove for, until it answers kStop or fails (its error is returned; keys it
  /// answered kRemove for before are removed). The views are valid during the call only.
  /// The default walks with ForEach and then removes; a provider may remove during the walk.
  virtual Status ForEachRemoving(
      const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn);
  /// As ForEachRemoving, over the keys at or after `from` whose first up_to.size() bytes are at
  /// most `up_to`: the walk starts at `from` and ends before the first key beyond `up_to` (for
  /// keys that begin with an event time, the keys a watermark has passed). The default skips to
  /// `from` and stops ForEachRemoving there; the file provider orders only those keys, the
  /// RocksDB provider seeks to `from`.
  virtual Status ForEachRemovingInRange(
      std::string_view from, std::string_view up_to,
      const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn);

  /// A hint that about `keys` more keys are about to be put in this version, so a provider can
  /// size itself once. Changes nothing visible.
  virtual void ReserveForPuts(int64_t keys) { (void)keys; }

  /// Makes version() + 1 durable (its delta file, replacing one left by an earlier attempt)
  /// and returns it. After a failed commit the previous version is unchanged on disk and in
  /// memory; the store stays uncommitted and may be aborted. After success the store is closed.
  virtual Result<int64_t> Commit() = 0;
  /// Drops the changes. Destroying an uncommitted store aborts it too.
  virtual void Abort() = 0;
  virtual bool committed() const = 0;

  virtual StateStoreMetrics metrics() const = 0;
};

/// Loads and maintains the versions of one StateStoreId.
class StateStoreProvider {
 public:
  virtual ~StateStoreProvider() = default;

  virtual const StateStoreId& id() const = 0;

  /// The store at `version`: from memory (file) or the local database (rocksdb) if it holds
  /// that version, else the newest snapshot <= version plus the deltas after it. Fails naming
  /// the file if one is missing or corrupt.
  virtual Result<std::unique_ptr<StateStore>> Load(int64_t version) = 0;

  /// The highest version with a delta or snapshot file, or 0 when there is none.
  virtual Result<int64_t> LatestVersion() = 0;

  /// Writes a snapshot of the latest version if the provider holds it without reading files
  /// (file: in memory; rocksdb: its local database is at that version) and snapshot_interval
  /// deltas follow the last snapshot; then deletes the files not needed to load any version
  /// >= latest - min_versions_to_retain. Called after a batch's commit, between batches.
  virtual Status DoMaintenance(int64_t min_versions_to_retain) = 0;
};

/// The default provider: the state in memory (std::map), persisted as delta and snapshot files.
Result<std::unique_ptr<StateStoreProvider>> OpenFileStateStoreProvider(std::shared_ptr<io::FileSystem> fs,
                                                                       StateStoreId id,
                                                                       StateStoreOptions options = {});

/// State larger than memory: the live state in a local RocksDB database (options.local_dir),
/// persisted as the same delta and snapshot files; a version not in the local database is
/// rebuilt from them. Loading a version other than the local one's is O(state).
Result<std::unique_ptr<StateStoreProvider>> OpenRocksDBStateStoreProvider(std::shared_ptr<io::FileSystem> fs,
                                                                          StateStoreId id,
                                                                          StateStoreOptions options = {});

/// The RocksDB provider's default working area inside a checkpoint (StateStoreOptions::local_dir).
inline constexpr const char* kRocksDBLocalDirName = "rocksdb-local";

/// The conf key that selects the provider (Spark's name).
inline constexpr const char* kStateStoreProviderConf = "spark.sql.streaming.stateStore.providerClass";

/// "file" or "rocksdb" for a provider kind: those names (any case) or Spark's class names
/// org.apache.spark.sql.execution.streaming.state.{HDFSBackedStateStoreProvider → file,
/// RocksDBStateStoreProvider → rocksdb}. Anything else is Invalid, naming the value, the
/// valid ones and the conf key. The runtime validates the conf with it before the first
/// batch and persists the normalised name.
Result<std::string> NormalizeStateStoreProvider(const std::string& kind);

/// The provider of `kind` (as NormalizeStateStoreProvider accepts) for `id`.
Result<std::unique_ptr<StateStoreProvider>> OpenStateStoreProvider(const std::string& kind,
                                                                   std::shared_ptr<io::FileSystem> fs,
                                                                   StateStoreId id,
                                                                   StateStoreOptions options = {});

}  // namespace sluice::state
