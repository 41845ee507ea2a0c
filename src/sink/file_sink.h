// The file sink (parquet, json, csv): part files plus the committed-files log
// <path>/_spark_metadata/<batchId> in Spark's FileStreamSink layout. Readers (sluice's
// session.read(), PySpark) trust only files the log lists. See docs/file-sink.md for the
// on-disk format, the commit protocol and the options.
//
// AddBatch: a batch id <= the log's latest id is a redo and writes nothing; a batch id past
// latest + 1 (log entries deleted) is refused; otherwise the part files are written and
// fsync'd, then the log entry is written create-only — that write is the commit. Part file
// names carry FileSinkBatchUuid(query id, batch id), so leftovers of failed attempts of the
// batch are provably this batch's: only those are deleted (best effort) before the sink's
// first batch and after a failed one. Fault points: "file_sink_before_commit",
// "file_sink_after_commit". A sink object is used by one thread; one query per output dir:
// MakeFileSink records ctx.query_id in <path>/_sluice_query and refuses an output directory
// another query wrote (its batch ids would be skipped as committed). No check without a query id.
#pragma once

#include "sink/sink.h"

namespace sluice::sink {

/// The uuid in the part file names of batch `batch_id` of query `query_id`: the same for every
/// attempt of the batch, different for every other batch or query.
std::string FileSinkBatchUuid(const std::string& query_id, int64_t batch_id);

/// Checks format, options and that path is set; no filesystem access.
Status ValidateFileSinkSpec(const SinkSpec& spec);

Result<std::unique_ptr<Sink>> MakeFileSink(const SinkSpec& spec, const SinkContext& ctx);

/// `sluice checkpoint reset`: hands output directory `dir` over from query `query_id` (whose
/// checkpoint is being reset) to whichever query writes it next, which appends after the
/// committed log entries (see SinkOwner). False (nothing changed) when `query_id` does not own it.
Result<bool> ReleaseOutputDirectory(const std::shared_ptr<io::FileSystem>& fs, const std::string& dir,
                                    const std::string& query_id);

/// Batch writes (df.write()): part files into `dir`, no log, then an empty `_SUCCESS`. mode:
/// error | errorifexists (also when empty: refuses a non-empty dir, naming it) | overwrite |
/// append | ignore (case-insensitive).
Status WriteFilesOnce(const std::shared_ptr<io::FileSystem>& fs, const std::string& format, const plan::Options& options,
                      const std::string& mode, const std::string& dir, const std::shared_ptr<arrow::Table>& rows);

}  // namespace sluice::sink
