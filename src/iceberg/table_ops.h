// Table-level operations on top of a catalog: load-or-create, the optimistic commit loop,
// and reading the current snapshot's rows.
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <map>
#include <string>
#include <vector>
#include <optional>

#include "iceberg/catalog.h"
#include "iceberg/snapshot_update.h"

namespace sluice::iceberg {

/// Decides, on freshly loaded table metadata, what to commit: a change, or nullopt for nothing
/// (e.g. the batch is already in the table).
using PrepareChange = std::function<Result<std::optional<SnapshotChange>>(const LoadedTable&)>;

struct CommitOutcome {
  bool committed = false;  // false: `prepare` returned nullopt
  LoadedTable table;       // the table after the commit (or as loaded when nothing was committed)
};

/// Load -> prepare -> write manifests -> catalog commit; on a commit conflict, reload and
/// repeat (prepare runs again on the new metadata, so a change another writer already made is
/// seen). Gives up after `max_attempts` conflicts. The table must exist.
Result<CommitOutcome> CommitWithRetry(Catalog* catalog, io::FileSystem* fs, const TableIdent& ident,
                                      const PrepareChange& prepare, int max_attempts = 25);

/// Loads the table, creating it from `schema` and partitioned by `partition_by` when missing (a
/// concurrent creator wins cleanly: its table is loaded). An existing table keeps its spec (see
/// CheckPartitioning).
Result<LoadedTable> LoadOrCreate(Catalog* catalog, const TableIdent& ident, const arrow::Schema& schema,
                                 const std::vector<PartitionTerm>& partition_by = {});

/// Checks a writer's requested partitioning against an existing table's default spec: no terms
/// accepts any spec (the table's is used); otherwise the terms must bind to the same spec.
/// Invalid naming `table_name`, both specs and what to do.
Status CheckPartitioning(const TableMetadata& metadata, const std::vector<PartitionTerm>& partition_by,
                         const std::string& table_name);

/// Schema evolution (opt-in, e.g. the sink's mergeSchema): adds the query's columns the current
/// schema lacks as optional columns of a new current schema (new field ids after last-column-id),
/// in one metadata-only commit, retried on a conflict like CommitWithRetry. Before committing,
/// the query must be writable to the merged schema (CheckWritable: a type change or a dropped
/// table column is refused, naming the column and `table_name`). Returns the table after the
/// commit, or as loaded when there is nothing to add.
Result<LoadedTable> AddQueryColumns(Catalog* catalog, const TableIdent& ident, const arrow::Schema& query,
                                    const std::string& table_name, int max_attempts = 25);

/// Manifests already read by CheckCurrentFilesExist: manifest URI -> the live data files it lists
/// (manifests are never rewritten in place, so what they list does not change).
using ManifestFilesCache = std::map<std::string, std::vector<std::string>>;

/// Checks that the current snapshot's manifest list, its manifests and the data files they list
/// as live all exist (a file deleted by hand makes the table unreadable, and a new snapshot on
/// top would keep referencing it). Invalid naming the table, the missing file and what to do.
Status CheckCurrentFilesExist(io::FileSystem* fs, const TableMetadata& metadata, const std::string& table_name,
                              ManifestFilesCache* cache);

/// Loads the table; NotFound naming it when missing.
Result<LoadedTable> LoadExisting(Catalog* catalog, const TableIdent& ident);

/// The rows of the current snapshot, in the current schema (empty table: zero rows).
Result<std::shared_ptr<arrow::Table>> ReadCurrentSnapshot(io::FileSystem* fs, const TableMetadata& metadata);

}  // namespace sluice::iceberg
