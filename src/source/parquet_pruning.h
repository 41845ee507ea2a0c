// Row-group pruning for the Parquet reader: a pushed filter (source.h ScanFilter) against the
// min/max statistics of each row group's column chunks.
#pragma once

#include <parquet/arrow/reader.h>

#include <vector>

#include "source/source.h"

namespace sluice::source {

/// The row groups of `reader`'s file that may hold a row `filter` keeps, in file order. Only the
/// conjuncts (AND) of the predicate of the shape `column <op> literal` (or `literal <op> column`)
/// with <op> one of = < <= > >=, an integer column stored as that integer type (no cast to the
/// declared type) and a non-null integer literal are judged; a row group is skipped when its
/// statistics (min and max present) prove one such conjunct false (or null) for every row.
/// Anything else keeps the row group. `declared`: the source's schema.
std::vector<int> RowGroupsToRead(parquet::arrow::FileReader* reader, const arrow::Schema& file_schema,
                                 const arrow::Schema& declared, const ScanFilter& filter);

}  // namespace sluice::source
