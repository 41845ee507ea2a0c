// Creates sinks from writeStream() specs: the one place that knows every sink kind.
#include "io/file_system.h"
#include "sink/console_sink.h"
#include "sink/file_sink.h"
#include "sink/iceberg_sink.h"
#include "sink/memory_sink.h"

namespace sluice::sink {

std::string SinkSpec::Describe() const {
  if (format == "parquet" || format == "json" || format == "csv") {
    return format + " FileSink[" + io::PathToUri(io::AbsolutePath(options.GetOr("path", ""))) + "]";
  }
  if (format == "memory") return "MemorySink[" + query_name + "]";
  if (format == "iceberg") return "IcebergSink[" + IcebergSinkTableName(*this) + "]";
  return format;
}

Status ValidateSinkSpec(const SinkSpec& spec) {
  if (spec.format == "parquet" || spec.format == "json" || spec.format == "csv") return ValidateFileSinkSpec(spec);
  if (spec.format == "console") return ValidateConsoleSinkSpec(spec);
  if (spec.format == "memory") return ValidateMemorySinkSpec(spec);
  if (spec.format == "foreachBatch") return Status::OK();
  if (spec.format == "iceberg") return ValidateIcebergSinkSpec(spec);
  return Status::Invalid("Unknown sink format '", spec.format,
                         "'. Valid formats: parquet, json, csv, console, memory, iceberg (or foreachBatch(fn))");
}

Result<std::unique_ptr<Sink>> MakeSink(const SinkSpec& spec, const SinkContext& ctx) {
  ARROW_RETURN_NOT_OK(ValidateSinkSpec(spec));
  if (spec.format == "console") return MakeConsoleSink(spec, ctx);
  if (spec.format == "memory") return MakeMemorySink(spec, ctx);
  if (spec.format == "foreachBatch") return MakeForeachBatchSink(spec);
  if (spec.format == "iceberg") return MakeIcebergSink(spec, ctx);
  return MakeFileSink(spec, ctx);
}

}  // namespace sluice::sink
