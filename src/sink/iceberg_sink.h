// The Iceberg table sink: writeStream().toTable("catalog.ns.table") or format("iceberg") with
// option("table", ...). Each batch becomes one snapshot (append mode: `append`; complete mode:
// `overwrite` of the whole table) whose summary carries spark.sql.streaming.queryId and
// spark.sql.streaming.epochId, as Spark's Iceberg streaming sink writes them. A batch whose
// epoch this query already committed (found by walking the current snapshot's ancestry) is
// skipped, so a redone batch is never committed twice. Format: docs/iceberg.md.
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <memory>
#include <string>

#include "sink/sink.h"

namespace sluice::sink {

inline constexpr const char* kQueryIdSummaryKey = "spark.sql.streaming.queryId";
inline constexpr const char* kEpochIdSummaryKey = "spark.sql.streaming.epochId";
/// The checkpoint of the query that committed a snapshot (sluice's own summary key).
inline constexpr const char* kCheckpointSummaryKey = "sluice.checkpointLocation";

/// Called by writeStream().start() for format "iceberg": copies the table's catalog settings
/// from the session conf into the spec's options, then creates the table from `query_schema`
/// when missing, or refuses a table whose columns do not match (naming the column).
Status PrepareIcebergSinkSpec(SinkSpec* spec, const std::function<std::string(const std::string&)>& conf,
                              const arrow::Schema& query_schema, const std::shared_ptr<io::FileSystem>& fs);

/// The table a spec names ("catalog.ns.table"), for descriptions and fingerprints.
std::string IcebergSinkTableName(const SinkSpec& spec);

Status ValidateIcebergSinkSpec(const SinkSpec& spec);
/// With a query id, refuses a table whose ancestry holds snapshots of another streaming query
/// and none of this one (a second checkpoint on the same source would write every row again),
/// naming that query and its checkpoint, unless option allowOtherQueries = true or the last of
/// those queries is the one `sluice checkpoint reset` released at this checkpoint.
Result<std::unique_ptr<Sink>> MakeIcebergSink(const SinkSpec& spec, const SinkContext& ctx);

/// `sluice checkpoint reset` of a query that wrote an Iceberg table: records in the checkpoint
/// (file `released_iceberg_query`, kept by the reset) that `query_id` handed its tables over, so
/// the next query at this checkpoint may append to them. Snapshots are history and keep naming
/// the old query; only a query started at this checkpoint is let in.
Status ReleaseIcebergTables(io::FileSystem* fs, const std::string& checkpoint_dir, const std::string& query_id);

/// The query id ReleaseIcebergTables recorded at `checkpoint_dir` ("" when none).
Result<std::string> ReleasedIcebergQuery(io::FileSystem* fs, const std::string& checkpoint_dir);

/// df.write().format("iceberg").mode(m).save("catalog.ns.table") (after PrepareIcebergSinkSpec):
/// one snapshot without streaming keys. Modes: append (an `append` snapshot), overwrite (an
/// `overwrite` of every row), error (refused when the table exists), ignore (nothing when it
/// exists). A missing table is created, partitioned by option partitionBy.
Status WriteIcebergTableOnce(const std::shared_ptr<io::FileSystem>& fs, const SinkSpec& spec, const std::string& mode,
                             const std::string& table, const std::shared_ptr<arrow::Table>& rows);

}  // namespace sluice::sink
