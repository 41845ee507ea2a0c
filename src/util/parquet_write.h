// Writing an Arrow table as one Parquet file on the calling thread.
#pragma once

#include <cstdint>
#include <memory>

#include "sluice/status.h"

namespace arrow {
class Table;
namespace io {
class OutputStream;
}  // namespace io
}  // namespace arrow

namespace parquet {
class ArrowWriterProperties;
class FileMetaData;
class WriterProperties;
}  // namespace parquet

namespace sluice::util {

/// The write buffer between a Parquet writer and its file.
inline constexpr int64_t kParquetWriteBufferBytes = 1 << 20;

/// Writes `rows` to `out` as one Parquet file with row groups of at most `max_row_group_rows`,
/// column after column: each column chunk's pages go to the file as they are made, through one
/// buffer of kParquetWriteBufferBytes (the writer itself issues a write per page header and per
/// page). Returns the file's footer. `out` is left open, whether the write succeeded or not:
/// closing it (or giving it up) is the caller's.
Result<std::shared_ptr<parquet::FileMetaData>> WriteParquetFile(
    const arrow::Table& rows, const std::shared_ptr<parquet::WriterProperties>& props,
    const std::shared_ptr<parquet::ArrowWriterProperties>& arrow_props, int64_t max_row_group_rows,
    const std::shared_ptr<arrow::io::OutputStream>& out);

}  // namespace sluice::util
