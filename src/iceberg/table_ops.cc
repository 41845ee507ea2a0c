// Commit loop, load-or-create and current-snapshot reads.
#include "iceberg/table_ops.h"

#include <arrow/api.h>

#include <chrono>
#include <random>
#include <thread>

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

Result<LoadedTable> LoadExisting(Catalog* catalog, const TableIdent& ident) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, catalog->Load(ident));
  if (!loaded) return Status::IOError("Iceberg table ", catalog->name(), ".", ident.ToString(), " does not exist");
  return std::move(*loaded);
}

Result<LoadedTable> LoadOrCreate(Catalog* catalog, const TableIdent& ident, const arrow::Schema& schema) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, catalog->Load(ident));
  if (loaded) return std::move(*loaded);
  ARROW_ASSIGN_OR_RAISE(auto table_schema, SchemaFromArrow(schema));
  auto created = catalog->Create(ident, table_schema, {});
  if (created.ok() || !created.status().IsAlreadyExists()) return created;
  return LoadExisting(catalog, ident);
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
