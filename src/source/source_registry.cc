// The source kinds and the functions that dispatch on them (declared in source.h).
#include "source/source_registry.h"

#include <arrow/api.h>

#include "source/file_source.h"
#include "source/file_source_options.h"
#include "source/iceberg_scan.h"
#include "source/kafka_source.h"
#include "source/memory_source.h"
#include "source/rate_source.h"
#include "source/socket_source.h"
#include "util/kind_registry.h"
#include "util/strings.h"

namespace sluice::source {
namespace {

SourceKind FileKind(const std::string& name) {
  SourceKind k;
  k.name = name;
  k.path = SourceKind::Path::kDirectory;
  k.streaming = k.batch = true;
  k.validate = ValidateFileSourceSpec;
  k.schema = InferFilesSchema;
  k.make_stream = MakeFileStreamSource;
  k.read_batch = ReadFilesStatic;
  return k;
}

SourceKind RateKind(const std::string& name) {
  SourceKind k;
  k.name = name;
  k.streaming = true;
  k.validate = ValidateRateSourceSpec;
  k.schema = [](const plan::SourceSpec&, const std::shared_ptr<io::FileSystem>&) { return RateSourceSchema(); };
  k.make_stream = MakeRateSource;
  return k;
}

SourceKind SocketKind() {
  SourceKind k;
  k.name = "socket";
  k.streaming = true;
  k.validate = ValidateSocketSourceSpec;
  k.schema = [](const plan::SourceSpec& spec, const std::shared_ptr<io::FileSystem>&) {
    return SocketSourceSchema(spec.options.GetOr("includeTimestamp", "false") == "true");
  };
  k.make_stream = MakeSocketSource;
  return k;
}

SourceKind MemoryKind() {
  SourceKind k;
  k.name = "memory";
  k.streaming = true;
  k.batch = true;
  k.user_visible = false;
  k.schema = [](const plan::SourceSpec& spec,
                const std::shared_ptr<io::FileSystem>&) -> Result<std::shared_ptr<arrow::Schema>> {
    return spec.memory->schema();
  };
  k.make_stream = [](const plan::SourceSpec& spec, const SourceContext&) { return MakeMemorySource(spec); };
  k.read_batch = [](const plan::SourceSpec& spec, const std::shared_ptr<io::FileSystem>&) {
    return spec.memory->Slice(0, spec.memory->NumRows());
  };
  return k;
}

SourceKind IcebergKind() {
  SourceKind k;
  k.name = "iceberg";
  k.path = SourceKind::Path::kTableName;
  k.batch = true;
  k.schema = IcebergTableSchema;
  k.read_batch = ReadIcebergTable;
  return k;
}

util::KindRegistry<SourceKind>& TheRegistry() {
  // The source kinds. A new source: its files, and one line here.
  static auto* const registry = new util::KindRegistry<SourceKind>(
      {FileKind("json"), FileKind("csv"), FileKind("parquet"), FileKind("text"), RateKind("rate"),
       RateKind("rate-micro-batch"), SocketKind(), MemoryKind(), IcebergKind(), KafkaSourceKind()});
  return *registry;
}

}  // namespace

const SourceKind* FindSourceKind(const std::string& name) { return TheRegistry().Find(name); }

std::vector<std::string> SourceKindNames(bool files_only) {
  return TheRegistry().Names([&](const SourceKind& k) { return k.user_visible && (!files_only || k.file_format()); });
}

std::string SourceKindList(bool files_only) {
  std::string out;
  for (const auto& n : SourceKindNames(files_only)) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Result<const SourceKind*> LookupSourceKind(const std::string& name, const std::string& where) {
  if (const SourceKind* k = FindSourceKind(name)) return k;
  return Status::Invalid("Unknown source format '", name, "' in ", where, ". Valid formats: ", SourceKindList());
}

void RegisterSourceKind(SourceKind kind) {
  kind.name = util::ToLower(kind.name);
  TheRegistry().Register(std::move(kind));
}

// source.h's dispatching functions.

bool IsStreamOnlyFormat(const std::string& format) {
  const SourceKind* k = FindSourceKind(format);
  return k && k->user_visible && k->streaming && !k->batch && k->path == SourceKind::Path::kNone;
}

Status ValidateGeneratedSourceSpec(const plan::SourceSpec& spec) {
  ARROW_ASSIGN_OR_RAISE(const SourceKind* k, LookupSourceKind(spec.format, "readStream()"));
  return k->validate ? k->validate(spec) : Status::OK();
}

Result<std::unique_ptr<Source>> MakeStreamingSource(const plan::SourceSpec& spec, const SourceContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(const SourceKind* k, LookupSourceKind(spec.format, "readStream()"));
  if (!k->make_stream) {
    return Status::NotImplemented("The ", k->name, " source cannot be read as a stream; read it with read()");
  }
  return k->make_stream(spec, ctx);
}

Result<std::shared_ptr<arrow::Table>> ReadStatic(const plan::SourceSpec& spec, const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_ASSIGN_OR_RAISE(const SourceKind* k, LookupSourceKind(spec.format, "read()"));
  if (!k->read_batch) {
    return Status::Invalid("The ", spec.format, " source can only be read as a stream: use readStream()");
  }
  return k->read_batch(spec, fs);
}

Result<std::shared_ptr<arrow::Schema>> ResolveSourceSchema(const plan::SourceSpec& spec,
                                                           const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_ASSIGN_OR_RAISE(const SourceKind* k, LookupSourceKind(spec.format, "a scan"));
  return k->schema(spec, fs);
}

}  // namespace sluice::source
