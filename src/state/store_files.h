// The files of one state store directory, as every provider writes them (docs/state-store.md):
// <V>.delta per commit and <V>.snapshot per maintenance, in state_file.h's format. The rules
// that decide what a commit writes, what maintenance snapshots and what it may delete live
// here once, so all providers keep the same on-disk contract and read each other's
// checkpoints. All I/O goes through io::FileSystem.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "io/file_system.h"
#include "state/state_store.h"

namespace sluice::state {

/// The checks every provider's Open* function makes on its arguments; `opener` names it.
Status CheckProviderArgs(const char* opener, const io::FileSystem* fs, const StateStoreId& id);

/// Versions present on disk, by kind.
struct StoreFiles {
  std::set<int64_t> deltas;
  std::set<int64_t> snapshots;

  /// The highest version with a delta or snapshot file, 0 when there is none.
  int64_t Latest() const;
  /// The newest snapshot at or below `version`, 0 (the empty version) when there is none.
  int64_t SnapshotAtOrBelow(int64_t version) const;
};

std::string DeltaPath(const std::string& dir, int64_t version);
std::string SnapshotPath(const std::string& dir, int64_t version);

/// The delta and snapshot files of `dir` (none when it does not exist). Hidden temp files
/// (".<name>.<random>.tmp") are ignored.
Result<StoreFiles> ListStoreFiles(io::FileSystem* fs, const std::string& dir);

/// OK if <from+1>.delta … <to>.delta are all present; else the error naming the first
/// missing one: "Cannot load state version <to> of <id>: delta file '<path>' is missing; ...".
Status CheckDeltasPresent(const StateStoreId& id, const StoreFiles& files, int64_t from, int64_t to);

/// A commit's durable step: makes <version>.delta hold `delta` (atomically, replacing one
/// left by an earlier attempt), after deleting a <version>.snapshot left by that attempt so
/// a crash between the two never leaves a stale snapshot. Creates the directory.
Status WriteDeltaFile(io::FileSystem* fs, const std::string& dir, int64_t version, const std::string& delta);

/// Called by a snapshot writer once per key, in bytewise key order.
using SnapshotPutFn = std::function<Status(std::string_view key, std::string_view value)>;

/// Writes <version>.snapshot from the keys `fill` passes to its argument, streamed through a
/// hidden temp file that is synced and renamed into place (a reader sees no snapshot or a
/// whole one), so a snapshot may be larger than memory. The temp file is deleted on failure.
Status WriteSnapshotFile(io::FileSystem* fs, const std::string& dir, int64_t version,
                         const std::function<Status(const SnapshotPutFn& put)>& fill);

/// Maintenance shared by the providers: if snapshot_interval deltas follow the last snapshot,
/// calls `snapshot_latest(latest)`, which writes <latest>.snapshot if the provider holds
/// that version without reading files and returns whether it did; then deletes every file
/// not needed to load a version >= latest - min_versions_to_retain.
Status MaintainStoreFiles(io::FileSystem* fs, const StateStoreId& id, const StateStoreOptions& options,
                          int64_t min_versions_to_retain,
                          const std::function<Result<bool>(int64_t latest)>& snapshot_latest);

}  // namespace sluice::state
