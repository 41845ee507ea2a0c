// The file source: a directory where new files are new rows (json lines, csv, parquet, text).
// Keeps its own log under <checkpoint>/sources/<i>/ of which files each source-log entry
// holds, so a redone batch reads exactly the same files even if the directory changed.
// See docs/file-source.md for options and the write-then-rename convention.
#pragma once

#include "source/file_source_options.h"
#include "source/source.h"

namespace sluice::source {

/// Checks format, options (names and values) and the schema rules; called by load() so a bad
/// option is reported before any query starts. Does not touch the filesystem.
Status ValidateFileSourceSpec(const plan::SourceSpec& spec);

Result<std::unique_ptr<Source>> MakeFileStreamSource(const plan::SourceSpec& spec, const SourceContext& ctx);

/// The data files a static read covers now (the path itself when it is a file), in path order.
Result<std::vector<io::FileInfo>> ListStaticFiles(const plan::SourceSpec& spec, const FileSourceOptions& opts,
                                                  const std::shared_ptr<io::FileSystem>& fs);

/// Batch mode: every current file (through _spark_metadata when the directory has one).
Result<std::shared_ptr<arrow::Table>> ReadFilesStatic(const plan::SourceSpec& spec,
                                                      const std::shared_ptr<io::FileSystem>& fs);
/// The declared schema, or one inferred from the files (batch mode).
Result<std::shared_ptr<arrow::Schema>> InferFilesSchema(const plan::SourceSpec& spec,
                                                        const std::shared_ptr<io::FileSystem>& fs);

}  // namespace sluice::source
