// Options and data-file encoding of the file sink and of batch file writes: parquet (Arrow's
// parquet writer), csv (Arrow's CSV writer) and json lines (file_sink_json.h).
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/table.h>
#include <arrow/util/compression.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "plan/logical_plan.h"

namespace sluice::sink {

enum class FileFormat { kParquet, kJson, kCsv };

/// The parsed options of one parquet|json|csv writer. Defaults are Spark's.
struct FileSinkOptions {
  FileFormat format = FileFormat::kParquet;
  std::string format_name;  // "parquet" | "json" | "csv"
  std::string path;         // option 'path'; may be empty for batch writes
  /// Spark's maxRecordsPerFile: rows per part file; 0 = unlimited.
  int64_t max_records_per_file = 0;
  /// Option 'compression', lower-cased: parquet none|uncompressed|snappy (default)|gzip|zstd|
  /// lz4_raw|brotli; json/csv none (default)|uncompressed|gzip.
  std::string compression;
  arrow::Compression::type codec = arrow::Compression::UNCOMPRESSED;
  // csv
  bool header = false;       // option 'header'
  char sep = ',';            // option 'sep' (alias 'delimiter'); one character or "\t"
  std::string null_value;    // option 'nullValue'
  // json
  bool ignore_null_fields = true;  // option 'ignoreNullFields': omit null fields
  /// Spark's option 'retention' (a duration, e.g. "7d"): how long a committed file stays listed
  /// in the streaming sink's log (FileSinkLog::SetRetention); unset = forever.
  std::optional<int64_t> retention_ms;
};

/// Parses `options` for format `format` (case-insensitive). Errors: unknown format, unknown
/// option (naming it and listing the valid ones), a bad value (naming the option), and with
/// `path_required` a missing path ("option 'path' is required for the <fmt> sink").
Result<FileSinkOptions> ParseFileSinkOptions(const std::string& format, const plan::Options& options,
                                             bool path_required);

/// What follows "part-00000-<uuid>.c000" in a data file's name: ".snappy.parquet",
/// ".parquet", ".json", ".json.gz", ".csv" (Spark's naming).
std::string DataFileExtension(const FileSinkOptions& options);

/// Encodes `rows` into `out` in the configured format and closes `out` (Close() fsyncs a
/// stream from io::FileSystem::OpenOutputStream).
Status WriteDataFile(const FileSinkOptions& options, const arrow::Table& rows,
                     const std::shared_ptr<arrow::io::OutputStream>& out);

}  // namespace sluice::sink
