// Sink kinds: the one table of the formats writeStream() and write() accept. Each kind registers
// its name, whether it writes files under a path, stream/batch support, whether it needs a
// checkpoint directory from the user, and its functions. Everything that dispatches on a sink
// format (the writers, the SQL connectors, descriptions) asks this table.
//
// Adding a sink: its file(s) in src/sink/, and one entry in the list in sink_registry.cc (or
// RegisterSinkKind before the first query).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sink/sink.h"

namespace sluice::sink {

/// A session setting by key ("" when unset).
using ConfLookup = std::function<std::string(const std::string&)>;

struct SinkKind {
  std::string name;  // as in format("..."); matched case-insensitively
  /// Writes data files under option("path") with the _spark_metadata log (parquet, json, csv).
  bool file_format = false;
  bool streaming = true;  // writeStream()
  bool batch = false;     // write().save(path)
  /// False: without checkpointLocation the query runs on a temporary checkpoint (console,
  /// memory, foreachBatch), as in Spark.
  bool needs_checkpoint = true;
  /// False for kinds chosen by a method rather than format(name) (foreachBatch(fn)).
  bool user_visible = true;

  /// Checks the spec's options without touching the filesystem; may be null.
  std::function<Status(const SinkSpec&)> validate;
  std::function<Result<std::unique_ptr<Sink>>(const SinkSpec&, const SinkContext&)> make;
  /// How explain and the checkpoint's fingerprint name the sink; null = the kind's name.
  std::function<std::string(const SinkSpec&)> describe;
  /// Called by writeStream().start() before validate: completes the spec from the session
  /// (e.g. an Iceberg table's catalog settings; may create the table); may be null.
  std::function<Status(SinkSpec*, const ConfLookup&, const arrow::Schema& query_schema,
                       const std::shared_ptr<io::FileSystem>&)>
      prepare;
  /// Null when !batch: writes `rows` once under `path` (save mode: error, overwrite, append, ignore).
  std::function<Status(const std::shared_ptr<io::FileSystem>&, const SinkSpec&, const std::string& mode,
                       const std::string& path, const std::shared_ptr<arrow::Table>& rows)>
      write_batch;
};

/// The kind named `name` (case-insensitive), or null.
const SinkKind* FindSinkKind(const std::string& name);
/// The kind named `name`; an unknown name is an error listing the known kinds.
Result<const SinkKind*> LookupSinkKind(const std::string& name);
/// Names of the user-visible kinds (optionally only the batch-writable ones), in registration order.
std::vector<std::string> SinkKindNames(bool batch_only = false);
/// The names joined for messages: "parquet, json, csv, console, memory, iceberg".
std::string SinkKindList(bool batch_only = false);
/// `sluice checkpoint reset`: releases what the sink a checkpoint recorded (`description`, as
/// SinkSpec::Describe() gave it) keeps as written by query `query_id`, so a fresh query may write
/// there: a file sink's output directory is handed over (ReleaseOutputDirectory); an Iceberg
/// table is released to the next query at `checkpoint_dir` (ReleaseIcebergTables). Returns one
/// line saying what was done.
Result<std::string> ReleaseSink(const std::shared_ptr<io::FileSystem>& fs, const std::string& description,
                                const std::string& query_id, const std::string& checkpoint_dir);
/// Adds a kind or replaces the one with the same name. Thread-safe; call before starting queries.
void RegisterSinkKind(SinkKind kind);

}  // namespace sluice::sink
