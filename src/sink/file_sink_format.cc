#include "sink/file_sink_format.h"

#include <arrow/array/builder_binary.h>
#include <arrow/csv/writer.h>
#include <arrow/io/compressed.h>
#include <arrow/util/checked_cast.h>
#include <arrow/util/thread_pool.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include <algorithm>
#include <charconv>

#include "sink/file_sink_json.h"
#include "util/duration.h"
#include "util/parquet_dictionary.h"
#include "util/parquet_write.h"
#include "util/value_text.h"
#include "util/strings.h"

namespace sluice::sink {
namespace {

using arrow::internal::checked_cast;

Result<bool> ParseBool(const plan::Options& options, const std::string& key, bool def, const std::string& what) {
  auto v = options.Get(key);
  if (!v) return def;
  std::string s = util::ToLower(*v);
  if (s == "true") return true;
  if (s == "false") return false;
  return Status::Invalid("Option '", key, "' of the ", what, " must be true or false, got '", *v, "'");
}

struct Codec {
  const char* name;
  arrow::Compression::type type;
  const char* extension;  // Spark's (parquet-mr's) codec extension
};

constexpr Codec kParquetCodecs[] = {
    {"none", arrow::Compression::UNCOMPRESSED, ""},     {"uncompressed", arrow::Compression::UNCOMPRESSED, ""},
    {"snappy", arrow::Compression::SNAPPY, ".snappy"},  {"gzip", arrow::Compression::GZIP, ".gz"},
    {"zstd", arrow::Compression::ZSTD, ".zstd"},        {"lz4_raw", arrow::Compression::LZ4, ".lz4raw"},
    {"brotli", arrow::Compression::BROTLI, ".br"},
};
constexpr Codec kTextCodecs[] = {
    {"none", arrow::Compression::UNCOMPRESSED, ""},
    {"uncompressed", arrow::Compression::UNCOMPRESSED, ""},
    {"gzip", arrow::Compression::GZIP, ".gz"},
};

template <size_t N>
const Codec* FindCodec(const Codec (&codecs)[N], const std::string& name) {
  for (const auto& c : codecs) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

const Codec& CodecOf(const FileSinkOptions& o) {
  const Codec* c = o.format == FileFormat::kParquet ? FindCodec(kParquetCodecs, o.compression)
                                                    : FindCodec(kTextCodecs, o.compression);
  return *c;  // ParseFileSinkOptions accepted only listed names
}

// CSV: timestamps and floating-point columns become strings in Spark's text forms (Arrow's
// CSV writer would print "2024-01-01 00:00:00.000000Z" and "1"); nested types are refused
// like Spark's CSV data source does.
Result<std::shared_ptr<arrow::Table>> PrepareCsvColumns(const arrow::Table& rows) {
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  std::vector<std::shared_ptr<arrow::Field>> fields;
  for (int c = 0; c < rows.num_columns(); ++c) {
    auto field = rows.schema()->field(c);
    auto type = field->type();
    if (arrow::is_nested(type->id())) {
      return Status::NotImplemented("CSV data source does not support ", type->ToString(), " data type (column '",
                                    field->name(), "')");
    }
    bool convert = type->id() == arrow::Type::TIMESTAMP || type->id() == arrow::Type::DOUBLE ||
                   type->id() == arrow::Type::FLOAT;
    if (!convert) {
      columns.push_back(rows.column(c));
      fields.push_back(field);
      continue;
    }
    arrow::ArrayVector chunks;
    for (const auto& chunk : rows.column(c)->chunks()) {
      arrow::StringBuilder b;
      ARROW_RETURN_NOT_OK(b.Reserve(chunk->length()));
      for (int64_t i = 0; i < chunk->length(); ++i) {
        if (chunk->IsNull(i)) {
          ARROW_RETURN_NOT_OK(b.AppendNull());
        } else if (type->id() == arrow::Type::TIMESTAMP) {
          const auto& ts = checked_cast<const arrow::TimestampType&>(*type);
          ARROW_RETURN_NOT_OK(b.Append(util::FormatTimestamp(checked_cast<const arrow::TimestampArray&>(*chunk).Value(i),
                                                       ts.unit(), !ts.timezone().empty(), util::TimestampStyle::kIso)));
        } else {
          ARROW_ASSIGN_OR_RAISE(auto text, util::FormatShowCell(*chunk, i));
          ARROW_RETURN_NOT_OK(b.Append(text));
        }
      }
      ARROW_ASSIGN_OR_RAISE(auto array, b.Finish());
      chunks.push_back(std::move(array));
    }
    columns.push_back(std::make_shared<arrow::ChunkedArray>(std::move(chunks), arrow::utf8()));
    fields.push_back(field->WithType(arrow::utf8()));
  }
  return arrow::Table::Make(arrow::schema(fields), columns, rows.num_rows());
}

Status WriteParquet(const FileSinkOptions& o, const arrow::Table& rows, const std::shared_ptr<arrow::io::OutputStream>& out) {
  parquet::WriterProperties::Builder props_builder;
  props_builder.compression(o.codec)->max_row_group_length(parquet::DEFAULT_MAX_ROW_GROUP_LENGTH);
  ARROW_RETURN_NOT_OK(util::DisableDictionaryWhereItDoesNotPay(rows, &props_builder));
  auto props = props_builder.build();
  // Columns are encoded and compressed in parallel on the CPU pool (buffered row groups), so the
  // write keeps every core busy; a small table is encoded on this thread (handing each column to
  // the pool cost more than encoding it: ~1 ms for a 100-row batch). Never from a pool thread
  // itself: waiting there for tasks queued behind it could deadlock.
  constexpr int64_t kMinRowsToEncodeInParallel = 16 * 1024;
  const bool parallel = rows.num_columns() > 1 && rows.num_rows() >= kMinRowsToEncodeInParallel &&
                        !arrow::internal::GetCpuThreadPool()->OwnsThisThread();
  // Spark reads INT64 timestamps in micros (its precision); nanoseconds are truncated.
  auto arrow_props = parquet::ArrowWriterProperties::Builder()
                         .coerce_timestamps(arrow::TimeUnit::MICRO)
                         ->allow_truncated_timestamps()
                         ->set_use_threads(parallel)
                         ->build();
  if (parallel) {
    ARROW_ASSIGN_OR_RAISE(auto writer, parquet::arrow::FileWriter::Open(*rows.schema(), arrow::default_memory_pool(),
                                                                        out, props, arrow_props));
    arrow::TableBatchReader batches(rows);
    std::shared_ptr<arrow::RecordBatch> batch;
    while (true) {
      ARROW_RETURN_NOT_OK(batches.ReadNext(&batch));
      if (batch == nullptr) break;
      ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
    }
    return writer->Close();
  }
  // On one thread, column after column, each column's pages straight to the file: a buffered
  // row group would hold every column's encoded pages in memory until the row group is whole,
  // then copy them out.
  return util::WriteParquetFile(rows, props, arrow_props, parquet::DEFAULT_MAX_ROW_GROUP_LENGTH, out).status();
}

}  // namespace

Result<FileSinkOptions> ParseFileSinkOptions(const std::string& format, const plan::Options& options,
                                             bool path_required) {
  FileSinkOptions o;
  o.format_name = util::ToLower(format);
  // checkpointLocation is accepted because writeStream() options may carry it; partitionBy is
  // read by the writers (partition_path.h).
  std::vector<std::string> valid = {"path", "maxRecordsPerFile", "compression", "checkpointLocation", "partitionBy",
                                    "retention"};
  if (o.format_name == "parquet") {
    o.format = FileFormat::kParquet;
  } else if (o.format_name == "json") {
    o.format = FileFormat::kJson;
    valid.push_back("ignoreNullFields");
  } else if (o.format_name == "csv") {
    o.format = FileFormat::kCsv;
    valid.insert(valid.end(), {"header", "sep", "delimiter", "nullValue"});
  } else {
    return Status::Invalid("Unknown file format '", format, "'; the file sink writes parquet, json or csv");
  }
  std::string what = o.format_name + " sink";
  ARROW_RETURN_NOT_OK(options.CheckKnown(valid, what));

  o.path = options.GetOr("path", "");
  if (path_required && o.path.empty()) return Status::Invalid("option 'path' is required for the ", what);

  if (auto v = options.Get("maxRecordsPerFile")) {
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), o.max_records_per_file);
    if (ec != std::errc() || p != v->data() + v->size() || o.max_records_per_file < 0) {
      return Status::Invalid("Option 'maxRecordsPerFile' of the ", what, " must be a non-negative integer, got '", *v, "'");
    }
  }

  if (auto v = options.Get("retention")) {
    const std::string option = "Option 'retention' of the " + what;
    ARROW_ASSIGN_OR_RAISE(o.retention_ms, util::ParseDurationMs(option, *v));
    if (*o.retention_ms <= 0) return Status::Invalid(option, " must be a positive duration, got '", *v, "'");
  }

  bool parquet = o.format == FileFormat::kParquet;
  o.compression = util::ToLower(options.GetOr("compression", parquet ? "snappy" : "none"));
  const Codec* codec = parquet ? FindCodec(kParquetCodecs, o.compression) : FindCodec(kTextCodecs, o.compression);
  if (!codec) {
    std::string list;
    if (parquet) {
      for (const auto& c : kParquetCodecs) list += (list.empty() ? "" : ", ") + std::string(c.name);
    } else {
      for (const auto& c : kTextCodecs) list += (list.empty() ? "" : ", ") + std::string(c.name);
    }
    return Status::Invalid("Option 'compression' of the ", what, ": unknown codec '", o.compression, "'. Valid: ", list);
  }
  o.codec = codec->type;
  if (o.codec != arrow::Compression::UNCOMPRESSED && !arrow::util::Codec::IsAvailable(o.codec)) {
    return Status::NotImplemented("Option 'compression' of the ", what, ": codec '", o.compression,
                                  "' is not available in this build of Arrow");
  }

  ARROW_ASSIGN_OR_RAISE(o.header, ParseBool(options, "header", false, what));
  ARROW_ASSIGN_OR_RAISE(o.ignore_null_fields, ParseBool(options, "ignoreNullFields", true, what));
  if (options.Has("sep") && options.Has("delimiter")) {
    return Status::Invalid("Options 'sep' and 'delimiter' of the ", what, " are aliases; give one");
  }
  if (auto v = options.Get("sep") ? options.Get("sep") : options.Get("delimiter")) {
    std::string key = options.Has("sep") ? "sep" : "delimiter";
    if (*v == "\\t") {
      o.sep = '\t';
    } else if (v->size() == 1 && *v != "\"" && *v != "\n" && *v != "\r") {
      o.sep = (*v)[0];
    } else {
      return Status::Invalid("Option '", key, "' of the ", what, " must be one character (or \\t), got '", *v, "'");
    }
  }
  o.null_value = options.GetOr("nullValue", "");
  if (o.null_value.find('"') != std::string::npos) {
    return Status::Invalid("Option 'nullValue' of the ", what, " must not contain a quote");
  }
  return o;
}

std::string DataFileExtension(const FileSinkOptions& o) {
  const Codec& codec = CodecOf(o);
  switch (o.format) {
    case FileFormat::kParquet: return std::string(codec.extension) + ".parquet";
    case FileFormat::kJson: return std::string(".json") + codec.extension;
    case FileFormat::kCsv: return std::string(".csv") + codec.extension;
  }
  return "";
}

Status WriteDataFile(const FileSinkOptions& o, const arrow::Table& rows, const std::shared_ptr<arrow::io::OutputStream>& raw) {
  if (o.format == FileFormat::kParquet) {
    ARROW_RETURN_NOT_OK(WriteParquet(o, rows, raw));
    return raw->Close();
  }
  std::unique_ptr<arrow::util::Codec> codec;  // must outlive `out`
  std::shared_ptr<arrow::io::OutputStream> out = raw;
  if (o.codec != arrow::Compression::UNCOMPRESSED) {
    ARROW_ASSIGN_OR_RAISE(codec, arrow::util::Codec::Create(o.codec));
    ARROW_ASSIGN_OR_RAISE(out, arrow::io::CompressedOutputStream::Make(codec.get(), raw));
  }
  if (o.format == FileFormat::kJson) {
    ARROW_RETURN_NOT_OK(WriteJsonLines(rows, o.ignore_null_fields, out.get()));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto prepared, PrepareCsvColumns(rows));
    auto csv = arrow::csv::WriteOptions::Defaults();
    csv.include_header = o.header;
    csv.delimiter = o.sep;
    csv.null_string = o.null_value;
    ARROW_RETURN_NOT_OK(arrow::csv::WriteCSV(*prepared, csv, out.get()));
  }
  if (out != raw) ARROW_RETURN_NOT_OK(out->Close());  // finishes the compressed stream, closes `raw`
  return raw->Close();
}

}  // namespace sluice::sink
