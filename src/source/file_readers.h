// Decoding data files (json lines, csv, parquet, text) into Arrow tables of a declared schema,
// with Arrow's own readers. Every function is thread-safe (no shared mutable state).
//
// Output shape: exactly the declared schema's fields, in order; a column the file lacks is all
// null, a column the schema lacks is dropped, a differing type is cast (an impossible cast is an
// error naming the file and the column).
//
// Malformed records (json, csv): the whole file is decoded by Arrow first (the fast path). Only
// if that fails are the file's lines bisected to find the records Arrow rejects, which are then
// handled per FileFormatOptions::mode (PERMISSIVE: a row of nulls plus the raw line in the
// corrupt-record column when the schema declares it; DROPMALFORMED: dropped; FAILFAST: an error
// naming the file URI and the 1-based line number).
#pragma once

#include <arrow/buffer.h>
#include <arrow/csv/options.h>
#include <arrow/table.h>
#include <arrow/util/type_fwd.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "source/file_source_options.h"

namespace sluice::source {

struct FileReadResult {
  std::shared_ptr<arrow::Table> table;
  int64_t malformed_rows = 0;
  int64_t skipped_files = 0;  // corrupt or missing files skipped (ignoreCorruptFiles / ignoreMissingFiles)
  int64_t rows_filtered = 0;  // rows a pushed filter (FileFormatOptions::filter) dropped while decoding
  int64_t row_groups_skipped = 0;  // Parquet row groups whose statistics rule the pushed filter out
};

/// Decodes one file. `use_threads` lets Arrow's reader parallelise within the file.
Result<FileReadResult> ReadDataFile(io::FileSystem* fs, const std::string& path,
                                    const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                    bool use_threads);

/// Decodes several files (in parallel across files) and concatenates them in the given order.
/// A file that no longer exists, or (parquet) cannot be decoded, is an error naming it and the
/// option that would skip it; with ignoreMissingFiles / ignoreCorruptFiles it is skipped with a
/// warning and counted in `skipped_files`. A 0-byte Parquet file has no rows (as Spark skips it).
/// Several files are decoded one per task of `executor` (null: Arrow's CPU pool), which must not
/// own the calling thread; a single file is decoded on the calling thread, which may split it
/// over Arrow's CPU pool.
Result<FileReadResult> ReadDataFiles(io::FileSystem* fs, const std::vector<std::string>& paths,
                                     const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                     arrow::internal::Executor* executor = nullptr);

/// The schema of one parquet file (its own) or text file (value STRING), for a batch read without
/// a declared schema; json and csv schemas are inferred from their records (schema_inference.h).
Result<std::shared_ptr<arrow::Schema>> InferDataFileSchema(io::FileSystem* fs, const std::string& path,
                                                           const FileFormatOptions& options);

/// Reorders, casts and null-fills `table` to exactly `schema`; `path` names the file in errors.
Result<std::shared_ptr<arrow::Table>> ConformToSchema(const std::shared_ptr<arrow::Table>& table,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::string& path);

/// A JSON-lines, CSV or text file is read in blocks of whole lines of about this size, never whole.
inline constexpr int64_t kLineBlockBytes = 16 << 20;

/// Decodes one block of whole lines of a file that starts at the file's 1-based line `first_line`;
/// `last`: no block follows it (a file of one block is its last).
using LineBlockDecoder = std::function<Result<FileReadResult>(const std::shared_ptr<arrow::Buffer>& block,
                                                              int64_t first_line, bool last)>;

/// Called with each block of whole lines of a file, in order: the block, the file's 1-based line
/// number of its first line, and whether it is the file's last block.
using LineBlockVisitor =
    std::function<Status(const std::shared_ptr<arrow::Buffer>& block, int64_t first_line, bool last)>;

/// Reads `path` a block of whole lines at a time (a block ends after a line break; a line longer
/// than `block_bytes` makes its block longer; a file no larger than one block is one block) and
/// hands each block to `visit`, so memory holds about one block of the file (and the next one,
/// read ahead on Arrow's I/O pool while `visit` runs). A read error is an IOError naming the file.
Status ForEachLineBlock(io::FileSystem* fs, const std::string& path, int64_t block_bytes, const LineBlockVisitor& visit);

/// ForEachLineBlock, concatenating what `decode` makes of each block in order (malformed_rows
/// and rows_filtered summed).
Result<FileReadResult> ReadLineBlocks(io::FileSystem* fs, const std::string& path, int64_t block_bytes,
                                      const LineBlockDecoder& decode);

/// One JSON-lines, CSV or text file, read with ReadLineBlocks. A record is one line in each of
/// these formats (CSV fields cannot hold line breaks: Spark's multiLine is off), so each block's
/// decoder sees every record whole and the result (rows, malformed-record handling, line
/// numbers in errors) is the same as decoding the file in one piece; a CSV header is read from
/// the file's first non-blank line and names the columns of every block. `block_bytes` is for tests.
Result<FileReadResult> ReadJsonFile(io::FileSystem* fs, const std::string& path,
                                    const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                    bool use_threads, int64_t block_bytes = kLineBlockBytes);
Result<FileReadResult> ReadCsvFile(io::FileSystem* fs, const std::string& path,
                                   const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                   bool use_threads, int64_t block_bytes = kLineBlockBytes);
Result<FileReadResult> ReadTextFile(io::FileSystem* fs, const std::string& path,
                                    const std::shared_ptr<arrow::Schema>& schema, int64_t block_bytes = kLineBlockBytes);

// The record formats (file_record_readers.cc). `data` is the whole file, or for JSON lines
// whole lines of it starting at the 1-based line `first_line` (error messages count from there).
Result<FileReadResult> ReadJsonLines(const std::shared_ptr<arrow::Buffer>& data, const std::string& path,
                                     const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                     bool use_threads, int64_t first_line = 1);
/// `header`: for a block after the one that held the file's header line, the header's names
/// (the block has no header line of its own); null otherwise.
Result<FileReadResult> ReadCsv(const std::shared_ptr<arrow::Buffer>& data, const std::string& path,
                               const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                               bool use_threads, int64_t first_line = 1,
                               const std::vector<std::string>* header = nullptr);
/// The column names of the first non-blank line of `block` (a CSV file's header line, read as
/// ReadCsv reads it), or nothing when every line of it is blank. With options.header, names are
/// renamed as Spark's header check renames them (so that the inferred schema's names are the
/// reader's): an empty name is _c<index>, and a name given more than once (ignoring case) gets
/// its index appended to each of its copies (`a,A,a,,b`: a0, A1, a2, _c3, b).
Result<std::optional<std::vector<std::string>>> CsvHeaderOf(const std::shared_ptr<arrow::Buffer>& block,
                                                             const FileFormatOptions& options);
/// The options of Arrow's CSV parser that split a CSV line into fields as ReadCsv does.
arrow::csv::ParseOptions CsvParseOptions(const FileFormatOptions& options);

}  // namespace sluice::source
