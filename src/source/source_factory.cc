// Creates sources from scan specs: the one place that knows every source kind.
#include <arrow/api.h>

#include "source/file_source.h"
#include "source/iceberg_scan.h"
#include "source/memory_source.h"
#include "source/rate_source.h"
#include "source/socket_source.h"

namespace sluice::source {

bool IsStreamOnlyFormat(const std::string& format) {
  return format == "rate" || format == "rate-micro-batch" || format == "socket";
}

Status ValidateGeneratedSourceSpec(const plan::SourceSpec& spec) {
  if (spec.format == "socket") return ValidateSocketSourceSpec(spec);
  return ValidateRateSourceSpec(spec);
}

Result<std::unique_ptr<Source>> MakeStreamingSource(const plan::SourceSpec& spec, const SourceContext& ctx) {
  if (spec.format == "memory") return MakeMemorySource(spec);
  if (spec.format == "rate" || spec.format == "rate-micro-batch") return MakeRateSource(spec, ctx);
  if (spec.format == "socket") return MakeSocketSource(spec, ctx);
  return MakeFileStreamSource(spec, ctx);
}

Result<std::shared_ptr<arrow::Table>> ReadStatic(const plan::SourceSpec& spec, const std::shared_ptr<io::FileSystem>& fs) {
  if (spec.format == "memory") return spec.memory->Slice(0, spec.memory->NumRows());
  if (spec.format == "iceberg") return ReadIcebergTable(spec, fs);
  if (IsStreamOnlyFormat(spec.format)) {
    return Status::Invalid("The ", spec.format, " source can only be read as a stream: use readStream()");
  }
  return ReadFilesStatic(spec, fs);
}

Result<std::shared_ptr<arrow::Schema>> ResolveSourceSchema(const plan::SourceSpec& spec,
                                                           const std::shared_ptr<io::FileSystem>& fs) {
  if (spec.format == "memory") return spec.memory->schema();
  if (spec.format == "iceberg") return IcebergTableSchema(spec, fs);
  if (spec.format == "rate" || spec.format == "rate-micro-batch") return RateSourceSchema();
  if (spec.format == "socket") return SocketSourceSchema(spec.options.GetOr("includeTimestamp", "false") == "true");
  return InferFilesSchema(spec, fs);
}

}  // namespace sluice::source
