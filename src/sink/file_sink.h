// The file sink (parquet, json, csv): part files plus the committed-files log
// <path>/_spark_metadata/<batchId> in Spark's FileStreamSink layout. Readers (sluice's
// session.read(), PySpark) trust only files the log lists. See docs/file-sink.md.
#pragma once

#include "sink/sink.h"

namespace sluice::sink {

/// Checks format, options and that path is set; no filesystem access.
Status ValidateFileSinkSpec(const SinkSpec& spec);

Result<std::unique_ptr<Sink>> MakeFileSink(const SinkSpec& spec, const SinkContext& ctx);

/// Batch writes (df.write()): part files into `dir`, no log. mode: error | overwrite | append.
Status WriteFilesOnce(const std::shared_ptr<io::FileSystem>& fs, const std::string& format, const plan::Options& options,
                      const std::string& mode, const std::string& dir, const std::shared_ptr<arrow::Table>& rows);

}  // namespace sluice::sink
