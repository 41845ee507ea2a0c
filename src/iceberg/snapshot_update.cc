// Snapshot production (fast append, overwrite, replace). Manifest rules (spec "Sequence Number
// Inheritance"): new files are ADDED with inherited (null) sequence numbers; a rewritten
// manifest keeps its other files as EXISTING and marks removed ones DELETED, both with their
// original snapshot id and sequence numbers written explicitly.
#include "iceberg/snapshot_update.h"

#include "io/uuid.h"
#include "util/numbers.h"

namespace sluice::iceberg {
namespace {

constexpr size_t kMaxMetadataLog = 100;  // Iceberg's write.metadata.previous-versions-max default

struct Totals {
  int64_t files = 0, records = 0, size = 0;
};

std::optional<int64_t> SummaryLong(const Snapshot& s, const std::string& key) {
  auto it = s.summary.find(key);
  if (it == s.summary.end()) return std::nullopt;
  auto value = util::ParseInt64(it->second, key);
  if (!value.ok()) return std::nullopt;
  return *value;
}

Result<Totals> ParentTotals(io::FileSystem* fs, const TableMetadata& base) {
  Totals t;
  const Snapshot* parent = base.CurrentSnapshot();
  if (!parent) return t;
  auto files = SummaryLong(*parent, "total-data-files");
  auto records = SummaryLong(*parent, "total-records");
  auto size = SummaryLong(*parent, "total-files-size");
  if (files && records && size) return Totals{*files, *records, *size};
  ARROW_ASSIGN_OR_RAISE(auto live, LiveEntries(fs, base));  // a writer that did not record totals
  for (const auto& e : live) {
    ++t.files;
    t.records += e.file.record_count;
    t.size += e.file.file_size;
  }
  return t;
}

const char* OperationName(SnapshotChange::Kind kind) {
  switch (kind) {
    case SnapshotChange::Kind::kAppend: return "append";
    case SnapshotChange::Kind::kOverwrite: return "overwrite";
    case SnapshotChange::Kind::kReplace: return "replace";
  }
  return "overwrite";
}

}  // namespace

Result<std::vector<ManifestEntry>> LiveEntries(io::FileSystem* fs, const TableMetadata& metadata) {
  std::vector<ManifestEntry> live;
  const Snapshot* current = metadata.CurrentSnapshot();
  if (!current) return live;
  ARROW_ASSIGN_OR_RAISE(auto manifests, ReadManifestList(fs, current->manifest_list));
  for (const auto& m : manifests) {
    if (m.content != 0) {
      return Status::NotImplemented("Iceberg table at ", metadata.location, " has delete files (manifest ", m.path,
                                    "); sluice reads tables without row-level deletes only");
    }
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifest(fs, m));
    for (auto& e : entries) {
      if (e.status != EntryStatus::kDeleted) live.push_back(std::move(e));
    }
  }
  return live;
}

const Snapshot* FindInAncestry(const TableMetadata& metadata, const std::function<bool(const Snapshot&)>& match) {
  const Snapshot* s = metadata.CurrentSnapshot();
  while (s) {
    if (match(*s)) return s;
    s = s->parent_snapshot_id ? metadata.FindSnapshot(*s->parent_snapshot_id) : nullptr;
  }
  return nullptr;
}

Result<TableMetadata> ApplySnapshotChange(io::FileSystem* fs, const TableMetadata& base,
                                          const std::string& base_metadata_file, const SnapshotChange& change) {
  ARROW_ASSIGN_OR_RAISE(const PartitionSpec spec, base.DefaultPartitionSpec());
  const Schema* schema = base.CurrentSchema();
  std::set<std::string> changed_partitions;  // tuples of added and deleted files
  const int64_t seq = base.last_sequence_number + 1;
  const int64_t id = NewSnapshotId(base);
  const Snapshot* parent = base.CurrentSnapshot();
  const std::string commit = io::RandomUuid();
  int manifest_counter = 0;
  auto next_manifest_path = [&]() {
    return TableFileAt(fs, base, "metadata/" + commit + "-m" + std::to_string(manifest_counter++) + ".avro");
  };
  ARROW_RETURN_NOT_OK(fs->MakeDirs(TableFileAt(fs, base, "metadata").path));

  std::vector<ManifestFile> manifests;
  Totals added;
  if (!change.added.empty()) {
    std::vector<ManifestEntry> entries;
    for (const auto& f : change.added) {
      ManifestEntry e;
      e.status = EntryStatus::kAdded;
      e.snapshot_id = id;
      e.file = f;
      entries.push_back(std::move(e));
      ++added.files;
      changed_partitions.insert(f.partition.dump());
      added.records += f.record_count;
      added.size += f.file_size;
    }
    ARROW_ASSIGN_OR_RAISE(auto m, WriteManifest(fs, next_manifest_path(), *schema, spec, entries, id, seq));
    manifests.push_back(std::move(m));
  }

  Totals deleted;
  std::vector<ManifestFile> parent_manifests;
  if (parent) {
    ARROW_ASSIGN_OR_RAISE(parent_manifests, ReadManifestList(fs, parent->manifest_list));
  }
  for (const auto& pm : parent_manifests) {
    if (change.kind == SnapshotChange::Kind::kAppend) {
      manifests.push_back(pm);
      continue;
    }
    if (pm.content != 0) {
      return Status::NotImplemented("Iceberg table at ", base.location,
                                    " has delete files; sluice cannot overwrite or rewrite it");
    }
    ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifest(fs, pm));
    auto removes = [&](const ManifestEntry& e) {
      return e.status != EntryStatus::kDeleted &&
             (change.kind == SnapshotChange::Kind::kOverwrite || change.removed.count(e.file.path) > 0);
    };
    bool affected = false;
    for (const auto& e : entries) affected = affected || removes(e);
    if (!affected) {
      manifests.push_back(pm);
      continue;
    }
    if (pm.partition_spec_id != spec.spec_id) {
      return Status::NotImplemented("Iceberg table at ", base.location, ": manifest ", pm.path,
                                    " was written with partition spec ", pm.partition_spec_id,
                                    ", the table's default spec is ", spec.spec_id,
                                    "; sluice cannot rewrite files of an older partition spec");
    }
    std::vector<ManifestEntry> rewritten;
    for (const auto& e : entries) {
      if (e.status == EntryStatus::kDeleted) continue;  // deletions of an older snapshot
      ManifestEntry r = e;  // snapshot id and sequence numbers stay explicit (already inherited)
      if (removes(e)) {
        r.status = EntryStatus::kDeleted;
        r.snapshot_id = id;
        ++deleted.files;
        changed_partitions.insert(e.file.partition.dump());
        deleted.records += e.file.record_count;
        deleted.size += e.file.file_size;
      } else {
        r.status = EntryStatus::kExisting;
      }
      rewritten.push_back(std::move(r));
    }
    ARROW_ASSIGN_OR_RAISE(auto m, WriteManifest(fs, next_manifest_path(), *schema, spec, rewritten, id, seq));
    manifests.push_back(std::move(m));
  }
  if (change.kind == SnapshotChange::Kind::kReplace && deleted.files != static_cast<int64_t>(change.removed.size())) {
    return Status::Invalid("Cannot replace files in Iceberg table at ", base.location, ": ",
                           change.removed.size() - deleted.files, " of the files to replace are no longer live");
  }

  const TableFile list = TableFileAt(fs, base, "metadata/snap-" + std::to_string(id) + "-0-" + commit + ".avro");
  ARROW_RETURN_NOT_OK(WriteManifestList(fs, list.path, id, parent ? std::optional<int64_t>(parent->snapshot_id)
                                                                  : std::nullopt, seq, manifests));
  ARROW_RETURN_NOT_OK(fs->FaultPoint("iceberg_after_manifests"));

  ARROW_ASSIGN_OR_RAISE(Totals total, ParentTotals(fs, base));
  total.files += added.files - deleted.files;
  total.records += added.records - deleted.records;
  total.size += added.size - deleted.size;
  Snapshot snap;
  snap.snapshot_id = id;
  if (parent) snap.parent_snapshot_id = parent->snapshot_id;
  snap.sequence_number = seq;
  snap.manifest_list = list.uri;
  snap.schema_id = base.current_schema_id;
  auto& s = snap.summary;
  s = change.summary;
  s["operation"] = OperationName(change.kind);
  if (added.files > 0) {
    s["added-data-files"] = std::to_string(added.files);
    s["added-records"] = std::to_string(added.records);
    s["added-files-size"] = std::to_string(added.size);
  }
  if (deleted.files > 0) {
    s["deleted-data-files"] = std::to_string(deleted.files);
    s["deleted-records"] = std::to_string(deleted.records);
    s["removed-files-size"] = std::to_string(deleted.size);
  }
  s["changed-partition-count"] = std::to_string(changed_partitions.size());
  s["total-data-files"] = std::to_string(total.files);
  s["total-records"] = std::to_string(total.records);
  s["total-files-size"] = std::to_string(total.size);
  s["total-delete-files"] = "0";
  s["total-position-deletes"] = "0";
  s["total-equality-deletes"] = "0";

  TableMetadata updated = base;
  SetCurrentSnapshot(&updated, std::move(snap), base_metadata_file, NowMs());
  while (updated.metadata_log.size() > kMaxMetadataLog) updated.metadata_log.erase(updated.metadata_log.begin());
  return updated;
}

}  // namespace sluice::iceberg
