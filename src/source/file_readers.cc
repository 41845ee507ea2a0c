#include "source/file_readers.h"

#include "source/parquet_pruning.h"
#include "util/compute_init.h"
#include "util/log.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/compute/initialize.h>
#include <arrow/io/interfaces.h>
#include <arrow/util/future.h>
#include <arrow/util/parallel.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <functional>
#include <optional>
#include <cstring>
#include <limits>
#include <mutex>

namespace sluice::source {
namespace {

// One `value` row per line; "\n" and "\r\n" end a line; a final line break adds no empty row.
Result<std::shared_ptr<arrow::Table>> ReadTextLines(const arrow::Buffer& data, const std::shared_ptr<arrow::Schema>& schema) {
  const char* p = reinterpret_cast<const char*>(data.data());
  int64_t n = data.size();
  arrow::StringBuilder builder;
  ARROW_RETURN_NOT_OK(builder.ReserveData(n));
  int64_t start = 0;
  while (start < n) {
    const void* nl = std::memchr(p + start, '\n', static_cast<size_t>(n - start));
    int64_t end = nl ? static_cast<const char*>(nl) - p : n;
    int64_t e = (end > start && p[end - 1] == '\r') ? end - 1 : end;
    ARROW_RETURN_NOT_OK(builder.Append(p + start, static_cast<int32_t>(e - start)));
    start = end + 1;
  }
  ARROW_ASSIGN_OR_RAISE(auto values, builder.Finish());
  std::shared_ptr<arrow::Array> column = values;
  if (!schema->field(0)->type()->Equals(arrow::utf8())) {
    ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
    ARROW_ASSIGN_OR_RAISE(column, arrow::compute::Cast(*values, schema->field(0)->type()));
  }
  return arrow::Table::Make(schema, {column});
}

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.column_index >= 0) out->push_back(field.column_index);
  for (const auto& child : field.children) CollectLeaves(child, out);
}

Result<std::unique_ptr<parquet::arrow::FileReader>> OpenParquet(io::FileSystem* fs, const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto file, fs->OpenInputFile(path));
  auto reader = parquet::arrow::OpenFile(file, arrow::default_memory_pool());
  if (!reader.ok()) {
    return Status::IOError("Could not read Parquet file ", io::PathToUri(path), ": ", reader.status().message());
  }
  return std::move(*reader);
}

// `filter`: row groups whose statistics rule it out are not read (`out` counts them and their rows).
Result<std::shared_ptr<arrow::Table>> ReadParquet(io::FileSystem* fs, const std::string& path,
                                                  const std::shared_ptr<arrow::Schema>& schema, bool use_threads,
                                                  const ScanFilter* filter, FileReadResult* out) {
  ARROW_ASSIGN_OR_RAISE(auto reader, OpenParquet(fs, path));
  reader->set_use_threads(use_threads);
  std::shared_ptr<arrow::Schema> file_schema;
  ARROW_RETURN_NOT_OK(reader->GetSchema(&file_schema));
  // Only the declared columns are decoded.
  std::vector<int> leaves;
  const auto& top = reader->manifest().schema_fields;
  for (const auto& f : schema->fields()) {
    int i = file_schema->GetFieldIndex(f->name());
    if (i >= 0) CollectLeaves(top[static_cast<size_t>(i)], &leaves);
  }
  std::vector<int> groups;
  const int all = reader->num_row_groups();
  if (filter) groups = RowGroupsToRead(reader.get(), *file_schema, *schema, *filter);
  const bool pruned = filter && static_cast<int>(groups.size()) < all;
  for (int g = 0, k = 0; pruned && g < all; ++g) {
    if (k < static_cast<int>(groups.size()) && groups[static_cast<size_t>(k)] == g) {
      ++k;
      continue;
    }
    out->row_groups_skipped += 1;
    out->rows_filtered += reader->parquet_reader()->metadata()->RowGroup(g)->num_rows();
  }
  if (pruned && groups.empty()) return arrow::Table::MakeEmpty(schema);
  auto table = pruned ? reader->ReadRowGroups(groups, leaves) : reader->ReadTable(leaves);
  if (!table.ok()) {
    return Status::IOError("Could not read Parquet file ", io::PathToUri(path), ": ", table.status().message());
  }
  return *table;
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ConformToSchema(const std::shared_ptr<arrow::Table>& table,
                                                      const std::shared_ptr<arrow::Schema>& schema,
                                                      const std::string& path) {
  if (table->schema()->Equals(*schema, /*check_metadata=*/false)) return table;
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  columns.reserve(static_cast<size_t>(schema->num_fields()));
  for (const auto& field : schema->fields()) {
    int i = table->schema()->GetFieldIndex(field->name());
    if (i < 0) {
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(field->type(), table->num_rows()));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(nulls));
      continue;
    }
    auto column = table->column(i);
    if (!column->type()->Equals(*field->type())) {
      ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
      auto cast = arrow::compute::Cast(column, field->type());
      if (!cast.ok()) {
        return Status::Invalid("Column '", field->name(), "' of ", io::PathToUri(path), " has type ",
                               column->type()->ToString(), ", which cannot be read as the declared ",
                               field->type()->ToString(), ": ", cast.status().message());
      }
      column = cast->chunked_array();
    }
    columns.push_back(std::move(column));
  }
  return arrow::Table::Make(schema, std::move(columns), table->num_rows());
}

Result<FileReadResult> ReadDataFile(io::FileSystem* fs, const std::string& path,
                                    const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                    bool use_threads) {
  if (options.format == "parquet") {
    FileReadResult out;
    ARROW_ASSIGN_OR_RAISE(auto table, ReadParquet(fs, path, schema, use_threads, options.filter.get(), &out));
    ARROW_ASSIGN_OR_RAISE(out.table, ConformToSchema(table, schema, path));
    return out;
  }
  if (options.format == "json") return ReadJsonFile(fs, path, schema, options, use_threads);
  if (options.format == "csv") return ReadCsvFile(fs, path, schema, options, use_threads);
  if (options.format == "text") return ReadTextFile(fs, path, schema);
  return Status::Invalid("Unsupported file source format '", options.format, "'");
}

namespace {

// The line breaks in [p, p + n), sixteen bytes at a time (the scalar count ran at ~1.4 GB/s,
// ~9 % of reading a large CSV file).
int64_t CountLineBreaks(const char* p, int64_t n) {
  int64_t count = 0;
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128i newline = _mm_set1_epi8('\n');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    count += std::popcount(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, newline))));
  }
#endif
  return count + std::count(p + i, p + n, '\n');
}

}  // namespace

Status ForEachLineBlock(io::FileSystem* fs, const std::string& path, int64_t block_bytes, const LineBlockVisitor& visit) {
  ARROW_ASSIGN_OR_RAISE(auto file, fs->OpenInputFile(path));
  ARROW_ASSIGN_OR_RAISE(int64_t size, file->GetSize());
  // A read's result, its error naming the file.
  auto named = [&](Result<std::shared_ptr<arrow::Buffer>> data) -> Result<std::shared_ptr<arrow::Buffer>> {
    if (!data.ok()) return Status::IOError("cannot read ", io::PathToUri(path), ": ", data.status().message());
    return data;
  };
  if (size <= block_bytes) {
    ARROW_ASSIGN_OR_RAISE(auto data, named(file->ReadAt(0, size)));
    return visit(data, 1, /*last=*/true);
  }
  int64_t pos = 0, line = 1;
  // The next block's read, started on the I/O pool while this block is decoded (its start is
  // known once this block's last line break is found).
  std::optional<arrow::Future<std::shared_ptr<arrow::Buffer>>> next;
  while (pos < size) {
    // The block ends after its last line break; a longer line makes the read longer.
    std::shared_ptr<arrow::Buffer> block;
    int64_t len = 0;
    for (int64_t want = block_bytes;; want *= 2) {
      const int64_t n = std::min(want, size - pos);
      if (next && want == block_bytes) {
        ARROW_ASSIGN_OR_RAISE(block, named(next->result()));
        next.reset();
      } else {
        ARROW_ASSIGN_OR_RAISE(block, named(file->ReadAt(pos, n)));
      }
      const auto* p = reinterpret_cast<const char*>(block->data());
      const auto* nl = static_cast<const char*>(memrchr(p, '\n', static_cast<size_t>(block->size())));
      if (block->size() < n || pos + n == size) {
        len = block->size();  // the rest of the file, the last line perhaps without a break
        size = pos + len;
        break;
      }
      if (nl) {
        len = nl - p + 1;
        break;
      }
    }
    auto piece = arrow::SliceBuffer(block, 0, len);
    block.reset();
    if (pos + len < size) {
      const int64_t at = pos + len, n = std::min(block_bytes, size - pos - len);
      // The buffer is allocated here, on the decoding thread, and filled on the I/O pool: allocated
      // there, each block would come from that thread's allocator arena and be freed into it, and
      // a 100 MB file took 166 MB of peak RSS against 134 MB.
      ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::ResizableBuffer> buffer, arrow::AllocateResizableBuffer(n));
      next = arrow::DeferNotOk(arrow::io::default_io_context().executor()->Submit(
          [file, at, n, buffer]() -> Result<std::shared_ptr<arrow::Buffer>> {
            ARROW_ASSIGN_OR_RAISE(int64_t got, file->ReadAt(at, n, buffer->mutable_data()));
            ARROW_RETURN_NOT_OK(buffer->Resize(got, /*shrink_to_fit=*/false));
            return std::static_pointer_cast<arrow::Buffer>(buffer);
          }));
    }
    ARROW_RETURN_NOT_OK(visit(piece, line, /*last=*/pos + len == size));
    const auto* p = reinterpret_cast<const char*>(piece->data());
    line += CountLineBreaks(p, len);
    pos += len;
  }
  return Status::OK();
}

Result<FileReadResult> ReadLineBlocks(io::FileSystem* fs, const std::string& path, int64_t block_bytes,
                                      const LineBlockDecoder& decode) {
  FileReadResult out;
  std::vector<std::shared_ptr<arrow::Table>> tables;
  ARROW_RETURN_NOT_OK(ForEachLineBlock(
      fs, path, block_bytes, [&](const std::shared_ptr<arrow::Buffer>& block, int64_t first_line, bool last) -> Status {
        ARROW_ASSIGN_OR_RAISE(auto part, decode(block, first_line, last));
        out.malformed_rows += part.malformed_rows;
        out.rows_filtered += part.rows_filtered;
        tables.push_back(std::move(part.table));
        return Status::OK();
      }));
  if (tables.size() == 1) {
    out.table = std::move(tables[0]);
    return out;
  }
  ARROW_ASSIGN_OR_RAISE(out.table, arrow::ConcatenateTables(tables));
  return out;
}

Result<FileReadResult> ReadJsonFile(io::FileSystem* fs, const std::string& path,
                                    const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                    bool use_threads, int64_t block_bytes) {
  return ReadLineBlocks(fs, path, block_bytes,
                        [&](const std::shared_ptr<arrow::Buffer>& block, int64_t first_line, bool /*last*/) {
                          return ReadJsonLines(block, path, schema, options, use_threads, first_line);
                        });
}

Result<FileReadResult> ReadCsvFile(io::FileSystem* fs, const std::string& path,
                                   const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                   bool use_threads, int64_t block_bytes) {
  // With a header, the block that holds it reads it itself; the blocks after it get its names
  // (taken only when blocks follow: a file of one block pays nothing for them).
  std::optional<std::vector<std::string>> header;
  return ReadLineBlocks(
      fs, path, block_bytes,
      [&](const std::shared_ptr<arrow::Buffer>& block, int64_t first_line, bool last) -> Result<FileReadResult> {
        if (!options.header) return ReadCsv(block, path, schema, options, use_threads, first_line);
        if (header) return ReadCsv(block, path, schema, options, use_threads, first_line, &*header);
        if (last) return ReadCsv(block, path, schema, options, use_threads, first_line);
        ARROW_ASSIGN_OR_RAISE(header, CsvHeaderOf(block, options));
        if (!header) {  // only blank lines so far
          ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(schema));
          return FileReadResult{std::move(empty), 0};
        }
        return ReadCsv(block, path, schema, options, use_threads, first_line);
      });
}

Result<FileReadResult> ReadTextFile(io::FileSystem* fs, const std::string& path,
                                    const std::shared_ptr<arrow::Schema>& schema, int64_t block_bytes) {
  return ReadLineBlocks(fs, path, block_bytes,
                        [&](const std::shared_ptr<arrow::Buffer>& block, int64_t, bool) -> Result<FileReadResult> {
                          ARROW_ASSIGN_OR_RAISE(auto table, ReadTextLines(*block, schema));
                          return FileReadResult{std::move(table), 0};
                        });
}

namespace {

// ReadDataFile with Spark's ignoreMissingFiles / ignoreCorruptFiles around it.
Result<FileReadResult> ReadOrSkip(io::FileSystem* fs, const std::string& path,
                                  const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                  bool use_threads) {
  auto skipped = [&](const Status& why) -> Result<FileReadResult> {
    util::LogWarning("Skipped ", io::PathToUri(path), ": ", why.message());
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(schema));
    return FileReadResult{std::move(empty), 0, 1};
  };
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(path));
  if (!info) {
    Status missing = Status::IOError("File ", io::PathToUri(path), " was listed but no longer exists");
    if (options.ignore_missing_files) return skipped(missing);
    return missing.WithMessage(missing.message(), " (deleted after it was listed?); set the source option "
                               "ignoreMissingFiles = true (or spark.sql.files.ignoreMissingFiles) to skip such files");
  }
  if (options.format == "parquet" && info->size == 0) {  // as Spark: an empty file has no rows
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(schema));
    return FileReadResult{std::move(empty), 0, 0};
  }
  auto read = ReadDataFile(fs, path, schema, options, use_threads);
  // A file that cannot be read or decoded (a truncated or non-Parquet file) is corrupt; a bad
  // record of json/csv is not (`mode` handles it).
  if (read.ok() || !read.status().IsIOError()) return read;
  ARROW_ASSIGN_OR_RAISE(auto still, fs->Stat(path));
  if (!still) {
    if (options.ignore_missing_files) return skipped(read.status());
    return read.status().WithMessage(read.status().message(), " (the file was deleted while it was read); set the "
                                     "source option ignoreMissingFiles = true (or spark.sql.files.ignoreMissingFiles) "
                                     "to skip such files");
  }
  if (options.ignore_corrupt_files) return skipped(read.status());
  return read.status().WithMessage(read.status().message(), "; set the source option ignoreCorruptFiles = true (or "
                                   "spark.sql.files.ignoreCorruptFiles) to skip files that cannot be read");
}

}  // namespace

Result<FileReadResult> ReadDataFiles(io::FileSystem* fs, const std::vector<std::string>& paths,
                                     const std::shared_ptr<arrow::Schema>& schema, const FileFormatOptions& options,
                                     arrow::internal::Executor* executor) {
  FileReadResult out;
  if (paths.empty()) {
    ARROW_ASSIGN_OR_RAISE(out.table, arrow::Table::MakeEmpty(schema));
    return out;
  }
  if (paths.size() == 1) return ReadOrSkip(fs, paths[0], schema, options, /*use_threads=*/true);
  // The text formats read a file from its start, a block of whole lines at a time: the disk
  // reads of the files not cached are started now, so that the next file's text is on its way
  // while one is decoded. (A Parquet read takes only the column chunks it needs.) Only the first
  // files of a large batch: a hint costs an open and a close (~3 us), as much as reading a tiny
  // file does, and a batch of thousands of tiny files gains nothing by it.
  if (options.format != "parquet") {
    constexpr size_t kFilesHinted = 64;
    for (size_t i = 0; i < std::min(paths.size(), kFilesHinted); ++i) fs->WillRead(paths[i], kLineBlockBytes);
  }
  // Parallel across files; each file's reader stays single-threaded (no nested waits on the pool).
  std::vector<FileReadResult> parts(paths.size());
  if (executor == nullptr) executor = arrow::internal::GetCpuThreadPool();
  ARROW_RETURN_NOT_OK(arrow::internal::ParallelFor(
      static_cast<int>(paths.size()),
      [&](int i) -> Status {
        ARROW_ASSIGN_OR_RAISE(parts[static_cast<size_t>(i)],
                              ReadOrSkip(fs, paths[static_cast<size_t>(i)], schema, options, /*use_threads=*/false));
        return Status::OK();
      },
      executor));
  std::vector<std::shared_ptr<arrow::Table>> tables;
  tables.reserve(parts.size());
  for (auto& p : parts) {
    out.malformed_rows += p.malformed_rows;
    out.skipped_files += p.skipped_files;
    out.rows_filtered += p.rows_filtered;
    out.row_groups_skipped += p.row_groups_skipped;
    tables.push_back(std::move(p.table));
  }
  ARROW_ASSIGN_OR_RAISE(out.table, arrow::ConcatenateTables(tables));
  return out;
}

Result<std::shared_ptr<arrow::Schema>> InferDataFileSchema(io::FileSystem* fs, const std::string& path,
                                                           const FileFormatOptions& options) {
  if (options.format == "text") return arrow::schema({arrow::field("value", arrow::utf8())});
  if (options.format != "parquet") {
    return Status::Invalid("The schema of a ", options.format, " file is inferred from its records (schema_inference.h)");
  }
  ARROW_ASSIGN_OR_RAISE(auto reader, OpenParquet(fs, path));
  std::shared_ptr<arrow::Schema> schema;
  ARROW_RETURN_NOT_OK(reader->GetSchema(&schema));
  return schema->RemoveMetadata();
}

}  // namespace sluice::source
