// Which columns of a table are written without a Parquet dictionary.
//
// A Parquet writer keeps a dictionary per column chunk until the dictionary outgrows its page
// limit (1 MiB by default), then writes the rest of the chunk plain. For a column whose values
// are nearly all distinct (timestamps, ids, free text) the dictionary is built, hashed and
// written only to be abandoned, and the pages written before the fallback are no smaller than
// plain ones. Both the file sink and the Iceberg data files decide per file from a sample of the
// rows (docs/file-sink.md, "Encoding").
#pragma once

#include <memory>

#include <parquet/properties.h>

#include "sluice/status.h"

namespace arrow {
class Table;
}  // namespace arrow

namespace sluice::util {

/// Rows sampled per column: the first this many values of the table.
inline constexpr int64_t kDictionarySampleRows = 4096;
/// A table with fewer rows keeps the writer's default: its encoding costs little either way,
/// and a small batch's latency does not pay for the sample.
inline constexpr int64_t kMinRowsToSample = 1024;

/// True when dictionary encoding does not pay for a column with `distinct` different values
/// among `values` non-null sampled ones: three quarters or more are distinct (where a dictionary
/// of 8-byte values and its bit-packed indices stop being smaller than the plain values).
bool DictionaryDoesNotPay(int64_t distinct, int64_t values);

/// Calls `props->disable_dictionary` for each top-level column of `rows` with a primitive or
/// binary type whose first kDictionarySampleRows values are mostly distinct
/// (DictionaryDoesNotPay). Other columns (nested, boolean, dictionary-typed, all null), and every
/// column of a table under kMinRowsToSample rows, keep the writer's default.
Status DisableDictionaryWhereItDoesNotPay(const arrow::Table& rows, parquet::WriterProperties::Builder* props);

}  // namespace sluice::util
