// Compaction and snapshot expiry (see maintenance.h).
#include "iceberg/maintenance.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include <map>
#include <set>

#include "iceberg/location.h"
#include "iceberg/table_ops.h"
#include "io/uuid.h"

namespace sluice::iceberg {
namespace {

constexpr const char* kStreamingQueryKey = "spark.sql.streaming.queryId";
constexpr const char* kStreamingEpochKey = "spark.sql.streaming.epochId";

// Every file a snapshot references: its manifest list, its manifests and their data files
// (only live ones when `live_only`: a DELETED entry does not need its file).
// Manifests already in `files` were walked before (same set, same `live_only`).
Status CollectFiles(io::FileSystem* fs, const Snapshot& snap, bool live_only, std::set<std::string>* files) {
  files->insert(snap.manifest_list);
  ARROW_ASSIGN_OR_RAISE(auto manifests, ReadManifestList(fs, snap.manifest_list));
  for (const auto& m : manifests) {
    if (!files->insert(m.path).second) continue;
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifest(fs, m));
    for (const auto& e : entries) {
      if (!live_only || e.status != EntryStatus::kDeleted) files->insert(e.file.path);
    }
  }
  return Status::OK();
}

// The snapshots ExpireSnapshots keeps (see the header).
std::set<int64_t> Retained(const TableMetadata& m, int64_t older_than_ms, int retain_last) {
  std::set<int64_t> keep;
  for (const auto& s : m.snapshots) {
    if (s.timestamp_ms >= older_than_ms) keep.insert(s.snapshot_id);
  }
  const nlohmann::json refs = m.other.value("refs", nlohmann::json::object());
  for (const auto& [name, ref] : refs.items()) {
    if (ref.contains("snapshot-id")) keep.insert(ref["snapshot-id"].get<int64_t>());  // branches and tags
  }
  const Snapshot* s = m.CurrentSnapshot();
  bool marker_seen = false;
  for (int n = 0; s; ++n) {
    if (n < retain_last || !marker_seen) keep.insert(s->snapshot_id);
    marker_seen = marker_seen || s->summary.count(kStreamingQueryKey) > 0;
    if (n >= retain_last && marker_seen) break;
    s = s->parent_snapshot_id ? m.FindSnapshot(*s->parent_snapshot_id) : nullptr;
  }
  return keep;
}

}  // namespace

Result<CompactResult> CompactTable(Catalog* catalog, io::FileSystem* fs, const TableIdent& ident,
                                   int64_t target_file_size) {
  if (target_file_size <= 0) return Status::Invalid("target file size must be positive");
  ARROW_ASSIGN_OR_RAISE(auto table, LoadExisting(catalog, ident));
  const Schema schema = *table.metadata.CurrentSchema();
  ARROW_ASSIGN_OR_RAISE(const PartitionSpec spec, table.metadata.DefaultPartitionSpec());
  ARROW_ASSIGN_OR_RAISE(auto live, LiveEntries(fs, table.metadata));
  CompactResult result;
  // Small files grouped by partition tuple: a compacted file never mixes partitions.
  std::map<std::string, std::vector<const ManifestEntry*>> groups;
  for (const auto& e : live) {
    if (e.file.file_size * 4 >= target_file_size * 3) continue;
    groups[e.file.partition.dump()].push_back(&e);
  }
  SnapshotChange change;
  change.kind = SnapshotChange::Kind::kReplace;
  const std::string op = io::RandomUuid();
  int64_t n = 0;
  auto write_group = [&](const std::vector<const ManifestEntry*>& group) -> Status {
    std::vector<std::shared_ptr<arrow::Table>> parts;
    int64_t disk_bytes = 0;
    for (const auto* e : group) {
      ARROW_ASSIGN_OR_RAISE(auto part, ReadDataFile(fs, e->file, schema));
      parts.push_back(std::move(part));
      disk_bytes += e->file.file_size;
    }
    ARROW_ASSIGN_OR_RAISE(auto rows, arrow::ConcatenateTables(parts));
    // The group's rows share one tuple: the split gives its directory and tuple back.
    ARROW_ASSIGN_OR_RAISE(auto split, SplitByPartitionSpec(*rows, spec, schema));
    if (split.size() != 1) {
      return Status::Invalid("The files of one partition of Iceberg table ", table.metadata.location,
                             " hold rows of ", split.size(), " partitions (", group.front()->file.path,
                             ", ...): their manifest entries disagree with their rows");
    }
    const std::string dir = split[0].dir.empty() ? "data" : "data/" + split[0].dir;
    ARROW_RETURN_NOT_OK(fs->MakeDirs(TableFileAt(fs, table.metadata, dir).path));
    // Parquet compresses; estimate rows per file from the small files' on-disk bytes per row.
    const int64_t per_row = std::max<int64_t>(1, disk_bytes / std::max<int64_t>(1, rows->num_rows()));
    const int64_t rows_per_file = std::max<int64_t>(1, target_file_size / per_row);
    for (int64_t offset = 0; offset < rows->num_rows(); offset += rows_per_file, ++n) {
      const TableFile at =
          TableFileAt(fs, table.metadata, dir + "/compact-" + op + "-" + std::to_string(n) + ".parquet");
      ARROW_ASSIGN_OR_RAISE(auto file, WriteDataFile(fs, at, *split[0].rows->Slice(offset, rows_per_file), schema));
      file.partition = split[0].partition;
      change.added.push_back(std::move(file));
    }
    for (const auto* e : group) change.removed.insert(e->file.path);
    result.rows += rows->num_rows();
    return Status::OK();
  };
  for (const auto& [tuple, group] : groups) {
    if (group.size() < 2) continue;
    Status st = write_group(group);
    if (!st.ok()) {
      for (const auto& f : change.added) (void)fs->Delete(LocalPath(fs, f.path));
      return st;
    }
  }
  const std::set<std::string> small = change.removed;
  if (small.empty()) return result;
  auto outcome = CommitWithRetry(catalog, fs, ident, [&](const LoadedTable& base) -> Result<std::optional<SnapshotChange>> {
    // Same rows: the table still holds what the current snapshot's streaming marker says, so
    // carry it, letting snapshot expiry drop the pre-compaction snapshots.
    SnapshotChange c = change;
    if (const Snapshot* current = base.metadata.CurrentSnapshot()) {
      for (const char* key : {kStreamingQueryKey, kStreamingEpochKey}) {
        auto it = current->summary.find(key);
        if (it != current->summary.end()) c.summary[key] = it->second;
      }
    }
    return c;  // ApplySnapshotChange refuses if a file to replace is no longer live
  });
  if (!outcome.ok()) {
    for (const auto& f : change.added) (void)fs->Delete(LocalPath(fs, f.path));
    return outcome.status().WithMessage("Cannot compact Iceberg table ", catalog->name(), ".", ident.ToString(), ": ",
                                        outcome.status().message());
  }
  result.committed = true;
  result.rewritten_files = static_cast<int64_t>(small.size());
  result.added_files = static_cast<int64_t>(change.added.size());
  return result;
}

Result<ExpireResult> ExpireSnapshots(Catalog* catalog, io::FileSystem* fs, const TableIdent& ident,
                                     int64_t older_than_ms, int retain_last) {
  for (int attempt = 1;; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(auto base, LoadExisting(catalog, ident));
    const std::set<int64_t> keep = Retained(base.metadata, older_than_ms, std::max(retain_last, 1));
    ExpireResult result;
    TableMetadata updated = base.metadata;
    updated.snapshots.clear();
    std::vector<const Snapshot*> expired;
    for (const auto& s : base.metadata.snapshots) {
      if (keep.count(s.snapshot_id)) {
        updated.snapshots.push_back(s);
      } else {
        expired.push_back(&s);
      }
    }
    if (expired.empty()) return result;
    // The snapshot log keeps only entries after the last expired one (spec: it must not name
    // snapshots that no longer exist).
    std::vector<std::pair<int64_t, int64_t>> log;
    for (const auto& entry : base.metadata.snapshot_log) {
      if (keep.count(entry.second)) {
        log.push_back(entry);
      } else {
        log.clear();
      }
    }
    updated.snapshot_log = std::move(log);
    updated.metadata_log.emplace_back(updated.last_updated_ms, base.metadata_location);
    updated.last_updated_ms = std::max(NowMs(), updated.last_updated_ms);

    std::set<std::string> retained_files, expired_files;
    for (const auto& s : updated.snapshots) ARROW_RETURN_NOT_OK(CollectFiles(fs, s, /*live_only=*/true, &retained_files));
    for (const auto* s : expired) ARROW_RETURN_NOT_OK(CollectFiles(fs, *s, /*live_only=*/false, &expired_files));
    auto committed = catalog->Commit(ident, base, std::move(updated));
    if (!committed.ok()) {
      if (IsCommitConflict(committed.status()) && attempt < 25) continue;
      return committed.status();
    }
    result.expired_snapshots = static_cast<int64_t>(expired.size());
    for (const auto& f : expired_files) {
      if (retained_files.count(f)) continue;
      if (fs->Delete(LocalPath(fs, f)).ok()) ++result.deleted_files;
    }
    return result;
  }
}

}  // namespace sluice::iceberg
