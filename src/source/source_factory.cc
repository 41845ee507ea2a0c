// Creates sources from scan specs: the one place that knows every source kind.
#include <arrow/api.h>

#include "source/file_source.h"
#include "source/memory_source.h"

namespace sluice::source {

Result<std::unique_ptr<Source>> MakeStreamingSource(const plan::SourceSpec& spec, const SourceContext& ctx) {
  if (spec.format == "memory") return MakeMemorySource(spec);
  return MakeFileStreamSource(spec, ctx);
}

Result<std::shared_ptr<arrow::Table>> ReadStatic(const plan::SourceSpec& spec, const std::shared_ptr<io::FileSystem>& fs) {
  if (spec.format == "memory") return spec.memory->Slice(0, spec.memory->NumRows());
  return ReadFilesStatic(spec, fs);
}

Result<std::shared_ptr<arrow::Schema>> ResolveSourceSchema(const plan::SourceSpec& spec,
                                                           const std::shared_ptr<io::FileSystem>& fs) {
  if (spec.format == "memory") return spec.memory->schema();
  return InferFilesSchema(spec, fs);
}

}  // namespace sluice::source
