#include "state/store_files.h"

#include <charconv>

#include "io/uuid.h"
#include "state/state_file.h"

namespace sluice::state {
namespace {

// A snapshot is written out whenever this much of it is buffered.
constexpr size_t kSnapshotWriteChunk = 1 << 20;

// "<digits><suffix>" -> the number; nullopt for anything else (temp files start with '.').
std::optional<int64_t> VersionOf(const std::string& name, std::string_view suffix) {
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
    return std::nullopt;
  }
  int64_t v = 0;
  const char* end = name.data() + name.size() - suffix.size();
  auto [p, ec] = std::from_chars(name.data(), end, v);
  if (ec != std::errc() || p != end || v < 0) return std::nullopt;
  return v;
}

Status StreamSnapshot(io::FileSystem* fs, const std::string& path, int64_t version,
                      const std::function<Status(const SnapshotPutFn& put)>& fill) {
  ARROW_ASSIGN_OR_RAISE(auto out, fs->OpenOutputStream(path));
  StateFileWriter writer(StateFileKind::kSnapshot, version);
  Status st = fill([&](std::string_view key, std::string_view value) {
    writer.Put(key, value);
    if (writer.buffered_bytes() < kSnapshotWriteChunk) return Status::OK();
    return out->Write(writer.TakeBuffered());
  });
  if (st.ok()) st = out->Write(writer.Finish());
  Status closed = out->Close();  // fsyncs
  return st.ok() ? closed : st;
}

}  // namespace

Status CheckProviderArgs(const char* opener, const io::FileSystem* fs, const StateStoreId& id) {
  if (!fs) return Status::Invalid(opener, ": no filesystem for ", id.Describe());
  if (id.operator_id < 0 || id.partition_id < 0) return Status::Invalid("Invalid state store id: ", id.Describe());
  return Status::OK();
}

int64_t StoreFiles::Latest() const {
  int64_t d = deltas.empty() ? 0 : *deltas.rbegin();
  int64_t s = snapshots.empty() ? 0 : *snapshots.rbegin();
  return std::max(d, s);
}

int64_t StoreFiles::SnapshotAtOrBelow(int64_t version) const {
  auto it = snapshots.upper_bound(version);
  return it == snapshots.begin() ? 0 : *std::prev(it);
}

std::string DeltaPath(const std::string& dir, int64_t version) {
  return io::JoinPath(dir, std::to_string(version) + ".delta");
}

std::string SnapshotPath(const std::string& dir, int64_t version) {
  return io::JoinPath(dir, std::to_string(version) + ".snapshot");
}

Result<StoreFiles> ListStoreFiles(io::FileSystem* fs, const std::string& dir) {
  StoreFiles files;
  ARROW_ASSIGN_OR_RAISE(auto dir_info, fs->Stat(dir));
  if (!dir_info) return files;
  ARROW_ASSIGN_OR_RAISE(auto entries, fs->List(dir));
  for (const auto& e : entries) {
    if (e.is_dir) continue;
    if (auto v = VersionOf(e.name, ".delta")) files.deltas.insert(*v);
    if (auto v = VersionOf(e.name, ".snapshot")) files.snapshots.insert(*v);
  }
  return files;
}

Status CheckDeltasPresent(const StateStoreId& id, const StoreFiles& files, int64_t from, int64_t to) {
  for (int64_t v = from + 1; v <= to; ++v) {
    if (files.deltas.count(v) == 0) {
      return Status::IOError("Cannot load state version ", to, " of ", id.Describe(), ": delta file '",
                             DeltaPath(id.Dir(), v), "' is missing; the latest version on disk is ", files.Latest());
    }
  }
  return Status::OK();
}

Status WriteDeltaFile(io::FileSystem* fs, const std::string& dir, int64_t version, const std::string& delta) {
  ARROW_RETURN_NOT_OK(fs->MakeDirs(dir));
  ARROW_RETURN_NOT_OK(fs->Delete(SnapshotPath(dir, version)));
  return fs->WriteAtomic(DeltaPath(dir, version), delta, /*overwrite=*/true);
}

Status WriteSnapshotFile(io::FileSystem* fs, const std::string& dir, int64_t version,
                         const std::function<Status(const SnapshotPutFn& put)>& fill) {
  const std::string path = SnapshotPath(dir, version);
  const std::string tmp = io::JoinPath(dir, "." + std::to_string(version) + ".snapshot." + io::RandomUuid() + ".tmp");
  Status st = StreamSnapshot(fs, tmp, version, fill);
  if (st.ok()) st = fs->Rename(tmp, path);  // syncs the directory
  if (!st.ok()) (void)fs->Delete(tmp);      // best effort; the error that matters is `st`
  return st;
}

Status MaintainStoreFiles(io::FileSystem* fs, const StateStoreId& id, const StateStoreOptions& options,
                          int64_t min_versions_to_retain,
                          const std::function<Result<bool>(int64_t latest)>& snapshot_latest) {
  if (min_versions_to_retain < 0) {
    return Status::Invalid("State store maintenance of ", id.Describe(), ": min_versions_to_retain must be >= 0, got ",
                           min_versions_to_retain);
  }
  const std::string dir = id.Dir();
  ARROW_ASSIGN_OR_RAISE(StoreFiles files, ListStoreFiles(fs, dir));
  const int64_t latest = files.Latest();
  if (latest == 0) return Status::OK();

  const int64_t last_snapshot = files.snapshots.empty() ? 0 : *files.snapshots.rbegin();
  if (latest - last_snapshot >= std::max(options.snapshot_interval, 1)) {
    ARROW_ASSIGN_OR_RAISE(bool written, snapshot_latest(latest));
    if (written) files.snapshots.insert(latest);
  }

  // Every version >= threshold loads from the newest snapshot <= threshold plus later deltas.
  const int64_t threshold = latest - min_versions_to_retain;
  const int64_t base = files.SnapshotAtOrBelow(threshold);
  if (threshold <= 0 || base == 0) return Status::OK();
  for (int64_t v : files.deltas) {
    if (v > base) break;
    ARROW_RETURN_NOT_OK(fs->Delete(DeltaPath(dir, v)));
  }
  for (int64_t v : files.snapshots) {
    if (v >= base) break;
    ARROW_RETURN_NOT_OK(fs->Delete(SnapshotPath(dir, v)));
  }
  return Status::OK();
}

}  // namespace sluice::state
