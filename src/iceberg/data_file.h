// Data files: one Parquet file written with Arrow's Parquet writer through the filesystem seam,
// and the metadata a manifest records about it (size, row count, column metrics).
#pragma once

#include <arrow/type_fwd.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "iceberg/location.h"
#include "iceberg/schema.h"
#include "io/file_system.h"

namespace sluice::iceberg {

/// One data file as a manifest's `data_file` record describes it (content 0 = data).
struct DataFile {
  std::string path;  // full URI (file:///...)
  std::string format = "PARQUET";
  int64_t record_count = 0;
  int64_t file_size = 0;  // exact byte size of the file
  std::map<int, int64_t> column_sizes;
  std::map<int, int64_t> value_counts;
  std::map<int, int64_t> null_value_counts;
  std::map<int, int64_t> nan_value_counts;
  std::map<int, std::string> lower_bounds;  // single-value binary serialization
  std::map<int, std::string> upper_bounds;
  std::vector<int64_t> split_offsets;
  /// The partition tuple (partition field name -> value, Avro value model; partition_spec.h).
  /// Empty for an unpartitioned table.
  nlohmann::json partition = nlohmann::json::object();
};

/// Iceberg's single-value binary serialization (spec Appendix D) of a non-null scalar whose
/// Arrow type is the one ArrowTypeOf(type) gives: little-endian ints/floats/micros, UTF-8
/// bytes, boolean as one byte, decimal as minimal big-endian two's complement.
Result<std::string> SingleValue(const arrow::Scalar& value);

/// Writes `rows` (already conformed to `schema`, see ConformToSchema) as one Parquet file at
/// `file.path`: a hidden temp file, fsynced, renamed into place. Returns its DataFile (path
/// `file.uri`) with value/null/NaN counts, lower/upper bounds, column sizes and split offsets.
Result<DataFile> WriteDataFile(io::FileSystem* fs, const TableFile& file, const arrow::Table& rows,
                               const Schema& schema);

/// Reads a data file's rows as the table's Arrow schema: columns matched by field id
/// (PARQUET:field_id), a column absent from the file read as nulls.
Result<std::shared_ptr<arrow::Table>> ReadDataFile(io::FileSystem* fs, const DataFile& file, const Schema& schema);

}  // namespace sluice::iceberg
