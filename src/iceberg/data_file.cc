// Parquet data files and their Iceberg metrics (the spec's data_file fields; docs/iceberg.md).
#include "iceberg/data_file.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <parquet/arrow/reader.h>
#include <parquet/properties.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "util/compute_init.h"
#include "util/parquet_dictionary.h"
#include "util/parquet_write.h"

namespace sluice::iceberg {
namespace {

template <typename T>
std::string LittleEndian(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));  // little-endian hosts only (x86-64, aarch64)
  return s;
}

// Unscaled value as two's complement big-endian in the minimum number of bytes.
std::string MinimalBigEndian(const arrow::Decimal128& d) {
  auto le = d.ToBytes();
  std::string be(le.rbegin(), le.rend());
  size_t start = 0;
  while (start + 1 < be.size()) {
    auto b = static_cast<uint8_t>(be[start]);
    auto next = static_cast<uint8_t>(be[start + 1]);
    if ((b == 0x00 && !(next & 0x80)) || (b == 0xff && (next & 0x80))) {
      ++start;
    } else {
      break;
    }
  }
  return be.substr(start);
}

// Value/null/NaN counts and bounds of one column, from the Arrow data (exact, type-aware).
Status AddColumnMetrics(int id, const std::shared_ptr<arrow::ChunkedArray>& chunked, DataFile* file) {
  const arrow::ChunkedArray& column = *chunked;
  const arrow::Datum datum(chunked);
  file->value_counts[id] = column.length();
  file->null_value_counts[id] = column.null_count();
  const auto type_id = column.type()->id();
  const bool floating = type_id == arrow::Type::FLOAT || type_id == arrow::Type::DOUBLE;
  if (floating) {
    ARROW_ASSIGN_OR_RAISE(auto nan, arrow::compute::CallFunction("is_nan", {datum}));
    int64_t nans = 0;
    ARROW_ASSIGN_OR_RAISE(auto as_int, arrow::compute::Cast(nan, arrow::int64()));
    ARROW_ASSIGN_OR_RAISE(auto sum, arrow::compute::Sum(as_int));
    if (sum.scalar()->is_valid) nans = std::static_pointer_cast<arrow::Int64Scalar>(sum.scalar())->value;
    file->nan_value_counts[id] = nans;
  }
  if (column.length() == column.null_count()) return Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto mm, arrow::compute::MinMax(datum));
  const auto& st = mm.template scalar_as<arrow::StructScalar>();
  const auto& lo = *st.value[0];
  const auto& hi = *st.value[1];
  if (!lo.is_valid || !hi.is_valid) return Status::OK();
  if (floating) {  // no NaN bounds; all-NaN columns get none
    double l = type_id == arrow::Type::FLOAT ? static_cast<const arrow::FloatScalar&>(lo).value
                                             : static_cast<const arrow::DoubleScalar&>(lo).value;
    double h = type_id == arrow::Type::FLOAT ? static_cast<const arrow::FloatScalar&>(hi).value
                                             : static_cast<const arrow::DoubleScalar&>(hi).value;
    if (std::isnan(l) || std::isnan(h)) return Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(file->lower_bounds[id], SingleValue(lo));
  ARROW_ASSIGN_OR_RAISE(file->upper_bounds[id], SingleValue(hi));
  return Status::OK();
}

void AddParquetLayout(const parquet::FileMetaData& md, DataFile* file) {
  for (int rg = 0; rg < md.num_row_groups(); ++rg) {
    auto group = md.RowGroup(rg);
    for (int c = 0; c < group->num_columns(); ++c) {
      auto chunk = group->ColumnChunk(c);
      int id = md.schema()->Column(c)->schema_node()->field_id();
      if (id >= 0) file->column_sizes[id] += chunk->total_compressed_size();
      if (c == 0) {
        int64_t offset = chunk->data_page_offset();
        if (chunk->has_dictionary_page() && chunk->dictionary_page_offset() > 0) {
          offset = std::min(offset, chunk->dictionary_page_offset());
        }
        file->split_offsets.push_back(offset);
      }
    }
  }
  std::sort(file->split_offsets.begin(), file->split_offsets.end());
}

Status WriteParquet(const arrow::Table& rows, const std::shared_ptr<arrow::io::OutputStream>& out,
                    std::shared_ptr<parquet::FileMetaData>* metadata) {
  parquet::WriterProperties::Builder props_builder;
  props_builder.compression(parquet::Compression::ZSTD);
  ARROW_RETURN_NOT_OK(util::DisableDictionaryWhereItDoesNotPay(rows, &props_builder));
  auto props = props_builder.build();
  auto arrow_props = parquet::ArrowWriterProperties::Builder().coerce_timestamps(arrow::TimeUnit::MICRO)->build();
  ARROW_ASSIGN_OR_RAISE(*metadata, util::WriteParquetFile(rows, props, arrow_props, 1 << 20, out));
  return out->Close();
}

}  // namespace

Result<std::string> SingleValue(const arrow::Scalar& v) {
  if (!v.is_valid) return Status::Invalid("no single-value serialization for null");
  switch (v.type->id()) {
    case arrow::Type::BOOL: return std::string(1, static_cast<const arrow::BooleanScalar&>(v).value ? '\1' : '\0');
    case arrow::Type::INT32: return LittleEndian(static_cast<const arrow::Int32Scalar&>(v).value);
    case arrow::Type::DATE32: return LittleEndian(static_cast<const arrow::Date32Scalar&>(v).value);
    case arrow::Type::INT64: return LittleEndian(static_cast<const arrow::Int64Scalar&>(v).value);
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampScalar&>(v);
      if (static_cast<const arrow::TimestampType&>(*v.type).unit() != arrow::TimeUnit::MICRO) {
        return Status::Invalid("timestamp bounds must be in microseconds, got ", v.type->ToString());
      }
      return LittleEndian(ts.value);
    }
    case arrow::Type::FLOAT: return LittleEndian(static_cast<const arrow::FloatScalar&>(v).value);
    case arrow::Type::DOUBLE: return LittleEndian(static_cast<const arrow::DoubleScalar&>(v).value);
    case arrow::Type::STRING: return static_cast<const arrow::StringScalar&>(v).value->ToString();
    case arrow::Type::DECIMAL128: return MinimalBigEndian(static_cast<const arrow::Decimal128Scalar&>(v).value);
    default: return Status::NotImplemented("no single-value serialization for ", v.type->ToString());
  }
}

Result<DataFile> WriteDataFile(io::FileSystem* fs, const TableFile& at, const arrow::Table& rows,
                               const Schema& schema) {
  ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
  const std::string& path = at.path;
  DataFile file;
  file.path = at.uri;
  file.record_count = rows.num_rows();
  for (const auto& f : schema.fields) {
    auto column = rows.GetColumnByName(f.name);
    if (!column) return Status::Invalid("Data file ", path, ": column '", f.name, "' missing from the rows");
    auto st = AddColumnMetrics(f.id, column, &file);
    if (!st.ok()) return st.WithMessage("Metrics of column '", f.name, "' for ", path, ": ", st.message());
  }
  // The file gets its name only once it is whole and its data synced (io::FileSystem::
  // OpenNewFile): a failure or a crash leaves nothing at `path` and no temporary name either.
  // The directory sync is deferred: the manifests written next wait for it.
  auto out = fs->OpenNewFile(path, io::EntrySync::kDeferred);
  std::shared_ptr<parquet::FileMetaData> md;
  Status st = out.ok() ? WriteParquet(rows, *out, &md) : out.status();
  if (!st.ok()) {
    if (out.ok()) (void)(*out)->Abort();
    return st.WithMessage("Cannot write Iceberg data file ", path, ": ", st.message());
  }
  AddParquetLayout(*md, &file);
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(path));
  if (!info) return Status::IOError("Data file ", path, " vanished right after it was written");
  file.file_size = info->size;
  return file;
}

Result<std::shared_ptr<arrow::Table>> ReadDataFile(io::FileSystem* fs, const DataFile& file, const Schema& schema) {
  ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
  const std::string path = LocalPath(fs, file.path);
  auto fail = [&](const Status& st) {
    return st.WithMessage("Cannot read Iceberg data file ", file.path, ": ", st.message());
  };
  auto input = fs->OpenInputFile(path);
  if (!input.ok()) return fail(input.status());
  auto reader = parquet::arrow::OpenFile(*input, arrow::default_memory_pool());
  if (!reader.ok()) return fail(reader.status());
  auto read = (*reader)->ReadTable();
  if (!read.ok()) return fail(read.status());
  std::shared_ptr<arrow::Table> raw = *read;
  ARROW_ASSIGN_OR_RAISE(auto target, ToArrowSchema(schema));
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const auto& want = target->field(static_cast<int>(i));
    std::shared_ptr<arrow::ChunkedArray> column;
    for (int c = 0; c < raw->num_columns(); ++c) {
      const auto& md = raw->schema()->field(c)->metadata();
      if (md && md->Contains(kFieldIdKey) && md->Get(kFieldIdKey).ValueOr("") == std::to_string(schema.fields[i].id)) {
        column = raw->column(c);
      }
    }
    if (!column) {
      ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(want->type(), raw->num_rows()));
      column = std::make_shared<arrow::ChunkedArray>(nulls);
    } else if (!column->type()->Equals(*want->type())) {
      ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(column, want->type()));
      column = cast.chunked_array();
    }
    columns.push_back(column);
  }
  return arrow::Table::Make(target, columns, raw->num_rows());
}

}  // namespace sluice::iceberg
