// Inferring the schema of a batch read that declares none, as Spark's file sources do: every
// record of every file is looked at (Spark's samplingRatio 1), a file at a time and a block of
// lines at a time (never a whole file in memory), and the types found are merged by Spark's
// rules for the format (json: JsonInferSchema, csv: CSVInferSchema).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "sluice/status.h"
#include "source/file_readers.h"
#include "source/file_source_options.h"

namespace sluice::source {

/// Folds the records of the files of one batch read into a schema, a file at a time.
class SchemaInference {
 public:
  virtual ~SchemaInference() = default;

  /// Folds in the records of the file at `path`. An IOError means the file could not be read
  /// (ignoreCorruptFiles skips such a file); any other error (FAILFAST meeting a malformed
  /// record) names the file and the line.
  virtual Status AddFile(io::FileSystem* fs, const std::string& path) = 0;

  /// The schema of the files added so far; null when they hold no record to infer from.
  virtual Result<std::shared_ptr<arrow::Schema>> Finish() = 0;
};

/// JSON lines, as Spark's JsonInferSchema: objects are structs with their fields sorted by name;
/// integers are BIGINT (DECIMAL(p, 0) beyond its range), other numbers DOUBLE, true/false BOOLEAN,
/// strings STRING (never timestamps); conflicting types widen (BIGINT with DOUBLE is DOUBLE)
/// or else become STRING; a field only ever null is STRING and an empty struct is dropped. A
/// line that is not a JSON object (or an array of them) is a malformed record: PERMISSIVE adds the
/// corrupt-record column, DROPMALFORMED ignores it, FAILFAST fails. An object giving a field
/// twice, or records giving fields whose names differ only in case, fail the inference. A block
/// of a few MiB is folded on several threads.
std::unique_ptr<SchemaInference> MakeJsonSchemaInference(const FileFormatOptions& options,
                                                         int64_t block_bytes = kLineBlockBytes);

/// CSV, as Spark's CSVInferSchema: the column names from the first non-blank line of the first
/// file that has one (its fields renamed as Spark's header check renames them, or _c0, _c1, ...
/// without a header); every column STRING, or with inferSchema the narrowest of INT, BIGINT,
/// DECIMAL(p, 0), DOUBLE, DATE, TIMESTAMP, BOOLEAN that holds every value (csv_schema_inference.cc).
std::unique_ptr<SchemaInference> MakeCsvSchemaInference(const FileFormatOptions& options,
                                                        int64_t block_bytes = kLineBlockBytes);

/// The schema of a batch read of `files` (listed for `spec`, which declares no schema): json and
/// csv as above, parquet the files' schemas unified, text one STRING column `value`. A file
/// deleted since listing, or one that cannot be read, is an error naming it and the option that
/// skips it (ignoreMissingFiles, ignoreCorruptFiles); files with nothing to infer from (none, all
/// empty or skipped) are an error saying the schema must be given.
Result<std::shared_ptr<arrow::Schema>> InferSchemaOfFiles(const plan::SourceSpec& spec, const FileSourceOptions& opts,
                                                          const std::shared_ptr<io::FileSystem>& fs,
                                                          const std::vector<std::string>& files);

}  // namespace sluice::source
