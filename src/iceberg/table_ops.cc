// Commit loop, load-or-create and current-snapshot reads.
#include "iceberg/table_ops.h"

#include <arrow/api.h>

#include <chrono>
#include <random>
#include <thread>

#include "iceberg/location.h"

namespace sluice::iceberg {

Result<CommitOutcome> CommitWithRetry(Catalog* catalog, io::FileSystem* fs, const TableIdent& ident,
                                      const PrepareChange& prepare, int max_attempts) {
  std::mt19937 rng{std::random_device{}()};
  for (int attempt = 1;; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(LoadedTable base, LoadExisting(catalog, ident));
    ARROW_ASSIGN_OR_RAISE(auto change, prepare(base));
    if (!change) return CommitOutcome{false, std::move(base)};
    ARROW_ASSIGN_OR_RAISE(auto updated, ApplySnapshotChange(fs, base.metadata, base.metadata_location, *change));
    auto committed = catalog->Commit(ident, base, std::move(updated));
    if (committed.ok()) return CommitOutcome{true, std::move(*committed)};
    if (!IsCommitConflict(committed.status()) || attempt >= max_attempts) {
      if (IsCommitConflict(committed.status())) {
        return committed.status().WithMessage(committed.status().message(), " (gave up after ", attempt,
                                              " attempts)");
      }
      return committed.status();
    }
    // Back off a little, randomised, so two writers do not collide in lock step.
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(1, 10 * attempt)(rng)));
  }
}

Result<LoadedTable> AddQueryColumns(Catalog* catalog, const TableIdent& ident, const arrow::Schema& query,
                                    const std::string& table_name, int max_attempts) {
  std::mt19937 rng{std::random_device{}()};
  for (int attempt = 1;; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(LoadedTable base, LoadExisting(catalog, ident));
    const Schema& current = *base.metadata.CurrentSchema();
    if (ColumnsNotInTable(query, current).empty()) return base;
    ARROW_ASSIGN_OR_RAISE(auto merged, AddNullableColumns(query, current, base.metadata.last_column_id));
    ARROW_RETURN_NOT_OK(CheckWritable(query, merged, table_name));
    TableMetadata updated = base.metadata;
    AddCurrentSchema(&updated, std::move(merged), base.metadata_location, NowMs());
    auto committed = catalog->Commit(ident, base, std::move(updated));
    if (committed.ok()) return std::move(*committed);
    if (!IsCommitConflict(committed.status()) || attempt >= max_attempts) {
      return committed.status().WithMessage("Cannot add columns to Iceberg table ", table_name, ": ",
                                            committed.status().message());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(1, 10 * attempt)(rng)));
  }
}

Status CheckCurrentFilesExist(io::FileSystem* fs, const TableMetadata& metadata, const std::string& table_name,
                              ManifestFilesCache* cache) {
  const Snapshot* current = metadata.CurrentSnapshot();
  if (!current) return Status::OK();
  auto missing = [&](const std::string& what, const std::string& uri, const std::string& where) {
    return Status::Invalid("Iceberg table ", table_name, " references ", what, " '", LocalPath(fs, uri), "'", where,
                           " in its current snapshot ", current->snapshot_id,
                           ", but the file does not exist (deleted by hand?). The table cannot be read completely, "
                           "and a new snapshot would keep referencing it, so nothing is committed. Restore the "
                           "file, or roll the table back to a snapshot that does not reference it.");
  };
  ARROW_ASSIGN_OR_RAISE(auto list_info, fs->Stat(LocalPath(fs, current->manifest_list)));
  if (!list_info) return missing("manifest list", current->manifest_list, "");
  ARROW_ASSIGN_OR_RAISE(auto manifests, ReadManifestList(fs, current->manifest_list));
  for (const auto& m : manifests) {
    ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(LocalPath(fs, m.path)));
    if (!info) return missing("manifest", m.path, "");
    auto cached = cache ? cache->find(m.path) : ManifestFilesCache::iterator{};
    std::vector<std::string> files;
    if (cache && cached != cache->end()) {
      files = cached->second;
    } else {
      ARROW_ASSIGN_OR_RAISE(auto entries, ReadManifest(fs, m));
      for (const auto& e : entries) {
        if (e.status != EntryStatus::kDeleted) files.push_back(e.file.path);
      }
      if (cache) (*cache)[m.path] = files;
    }
    for (const auto& f : files) {
      ARROW_ASSIGN_OR_RAISE(auto file_info, fs->Stat(LocalPath(fs, f)));
      if (!file_info) return missing("data file", f, " (listed in manifest '" + LocalPath(fs, m.path) + "')");
    }
  }
  return Status::OK();
}

Result<LoadedTable> LoadExisting(Catalog* catalog, const TableIdent& ident) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, catalog->Load(ident));
  if (!loaded) return Status::IOError("Iceberg table ", catalog->name(), ".", ident.ToString(), " does not exist");
  return std::move(*loaded);
}

Result<LoadedTable> LoadOrCreate(Catalog* catalog, const TableIdent& ident, const arrow::Schema& schema,
                                 const std::vector<PartitionTerm>& partition_by) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, catalog->Load(ident));
  if (loaded) return std::move(*loaded);
  ARROW_ASSIGN_OR_RAISE(auto table_schema, SchemaFromArrow(schema));
  auto spec = BindPartitionSpec(partition_by, table_schema);
  if (!spec.ok()) {
    return spec.status().WithMessage("Cannot create Iceberg table ", catalog->name(), ".", ident.ToString(), ": ",
                                     spec.status().message());
  }
  auto created = catalog->Create(ident, table_schema, {}, *spec);
  if (created.ok() || !created.status().IsAlreadyExists()) return created;
  return LoadExisting(catalog, ident);
}

Status CheckPartitioning(const TableMetadata& metadata, const std::vector<PartitionTerm>& partition_by,
                         const std::string& table_name) {
  if (partition_by.empty()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto table_spec, metadata.DefaultPartitionSpec());
  const Schema& schema = *metadata.CurrentSchema();
  std::string requested;
  for (const auto& t : partition_by) requested += (requested.empty() ? "" : ", ") + t.ToString();
  auto wanted = BindPartitionSpec(partition_by, schema);
  if (wanted.ok() && wanted->SameTerms(table_spec)) return Status::OK();
  return Status::Invalid("Iceberg table ", table_name, " is partitioned by ", table_spec.Describe(schema),
                         ", but the query asks for PARTITIONED BY / partitionBy (", requested, ")",
                         wanted.ok() ? std::string() : " (" + wanted.status().message() + ")",
                         ": write with the table's partitioning (or leave it out: an existing table keeps its spec), "
                         "or write to a new table");
}

Result<std::shared_ptr<arrow::Table>> ReadCurrentSnapshot(io::FileSystem* fs, const TableMetadata& metadata) {
  const Schema* schema = metadata.CurrentSchema();
  ARROW_ASSIGN_OR_RAISE(auto arrow_schema, ToArrowSchema(*schema));
  ARROW_ASSIGN_OR_RAISE(auto live, LiveEntries(fs, metadata));
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const auto& e : live) {
    ARROW_ASSIGN_OR_RAISE(auto part, ReadDataFile(fs, e.file, *schema));
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return arrow::Table::MakeEmpty(arrow_schema);
  ARROW_ASSIGN_OR_RAISE(auto all, arrow::ConcatenateTables(parts));
  return all->CombineChunks();
}

}  // namespace sluice::iceberg
