// Hive-style partitioned output of the file sink and of batch file writes, as Spark's
// partitionBy writes it: one directory level per partition column, `col=value`, in the order
// the columns are given (`dt=2024-05-01/country=US/part-...`). The partition columns are not
// stored in the data files; readers (Spark, DuckDB's hive_partitioning, pyarrow.dataset) take
// them from the path.
//
// Values are written as Spark casts them to strings (numbers as Java prints them, dates
// yyyy-MM-dd, timestamps "yyyy-MM-dd HH:mm:ss[.fraction]" in UTC) and escaped like Spark's
// ExternalCatalogUtils.escapePathName: control characters, '"', '#', '%', '\'', '*', '/', ':',
// '=', '?', '\\', DEL, '{', '[', ']', '^' become %XX (upper-case hex). NULL and the empty string
// are written as __HIVE_DEFAULT_PARTITION__, which readers turn back into NULL.
#pragma once

#include <arrow/table.h>

#include <memory>
#include <string>
#include <vector>

#include "plan/logical_plan.h"
#include "sluice/status.h"

namespace sluice::sink {

/// The directory name Hive and Spark use for a NULL (or empty string) partition value.
inline constexpr char kHiveDefaultPartition[] = "__HIVE_DEFAULT_PARTITION__";

/// The option holding the partition columns, comma-separated ("dt,country"). Set by
/// DataStreamWriter/DataFrameWriter::partitionBy and by SQL's PARTITIONED BY (or the table
/// option partition_by).
inline constexpr char kPartitionByOption[] = "partitionBy";

/// Spark's escapePathName (see the file comment).
std::string EscapePartitionPathName(const std::string& name);

/// The columns of option 'partitionBy' (empty when unset). Errors: an empty name, a column
/// given twice (case-insensitive, as Spark).
Result<std::vector<std::string>> PartitionColumnsOption(const plan::Options& options);

/// Checks `columns` against the rows' schema as Spark does: each must exist (the message lists
/// the schema's columns), be of an atomic type (no struct, list, map, binary), and at least one
/// column must be left for the data files.
Status CheckPartitionColumns(const std::vector<std::string>& columns, const arrow::Schema& schema);

/// The rows of one partition: `dir` is the relative directory ("dt=2024-05-01/country=US"),
/// `rows` the rows without the partition columns, in their input order.
struct PartitionSlice {
  std::string dir;
  std::shared_ptr<arrow::Table> rows;
};

/// Splits `rows` by the values of `columns` (checked with CheckPartitionColumns). The slices
/// are sorted by `dir`, so every attempt of a batch writes the same files.
Result<std::vector<PartitionSlice>> SplitByPartition(const arrow::Table& rows, const std::vector<std::string>& columns);

}  // namespace sluice::sink
