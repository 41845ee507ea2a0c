// The file source: a directory where new files are new rows (json lines, csv, parquet, text).
// Keeps its own log under <checkpoint>/sources/<i>/ of which files each source-log entry
// holds, so a redone batch reads exactly the same files even if the directory changed.
// See docs/file-source.md for options and the write-then-rename convention.
#pragma once

#include "source/source.h"

namespace sluice::source {

/// Checks format, options (names and values) and the schema rules; called by load() so a bad
/// option is reported before any query starts. Does not touch the filesystem.
Status ValidateFileSourceSpec(const plan::SourceSpec& spec);

Result<std::unique_ptr<Source>> MakeFileStreamSource(const plan::SourceSpec& spec, const SourceContext& ctx);

/// Batch mode: every current file (through _spark_metadata when the directory has one).
Result<std::shared_ptr<arrow::Table>> ReadFilesStatic(const plan::SourceSpec& spec,
                                                      const std::shared_ptr<io::FileSystem>& fs);
/// The declared schema, or one inferred from the files (batch mode).
Result<std::shared_ptr<arrow::Schema>> InferFilesSchema(const plan::SourceSpec& spec,
                                                        const std::shared_ptr<io::FileSystem>& fs);

}  // namespace sluice::source
