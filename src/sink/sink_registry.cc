// The sink kinds and the functions that dispatch on them (declared in sink.h).
#include "sink/sink_registry.h"

#include "io/file_system.h"
#include "sink/console_sink.h"
#include "sink/file_sink.h"
#include "sink/iceberg_sink.h"
#include "sink/kafka_sink.h"
#include "sink/memory_sink.h"
#include "sink/partition_path.h"
#include "util/kind_registry.h"
#include "util/strings.h"

namespace sluice::sink {
namespace {

// A file sink's description: "<format> FileSink[<output directory URI>]" (ReleaseSink reads it back).
constexpr const char* kFileSinkTag = " FileSink[";
constexpr const char* kIcebergSinkTag = "IcebergSink[";

SinkKind FileKind(const std::string& name) {
  SinkKind k;
  k.name = name;
  k.file_format = true;
  k.batch = true;
  k.validate = ValidateFileSinkSpec;
  k.make = MakeFileSink;
  // Partition columns are checked against the query's schema before the query starts.
  k.prepare = [](SinkSpec* spec, const ConfLookup&, const arrow::Schema& schema,
                 const std::shared_ptr<io::FileSystem>&) -> Status {
    ARROW_ASSIGN_OR_RAISE(auto columns, PartitionColumnsOption(spec->options));
    return CheckPartitionColumns(columns, schema);
  };
  k.describe = [](const SinkSpec& spec) {
    return spec.format + kFileSinkTag + io::PathToUri(io::AbsolutePath(spec.options.GetOr("path", ""))) + "]";
  };
  k.write_batch = [](const std::shared_ptr<io::FileSystem>& fs, const SinkSpec& spec, const std::string& mode,
                     const std::string& path, const std::shared_ptr<arrow::Table>& rows) {
    return WriteFilesOnce(fs, spec.format, spec.options, mode, path, rows);
  };
  return k;
}

SinkKind ConsoleKind() {
  SinkKind k;
  k.name = "console";
  k.needs_checkpoint = false;
  k.validate = ValidateConsoleSinkSpec;
  k.make = MakeConsoleSink;
  return k;
}

SinkKind MemoryKind() {
  SinkKind k;
  k.name = "memory";
  k.needs_checkpoint = false;
  k.validate = ValidateMemorySinkSpec;
  k.make = MakeMemorySink;
  k.describe = [](const SinkSpec& spec) { return "MemorySink[" + spec.query_name + "]"; };
  return k;
}

SinkKind ForeachBatchKind() {
  SinkKind k;
  k.name = "foreachBatch";
  k.needs_checkpoint = false;
  k.user_visible = false;
  k.make = [](const SinkSpec& spec, const SinkContext&) { return MakeForeachBatchSink(spec); };
  return k;
}

SinkKind IcebergKind() {
  SinkKind k;
  k.name = "iceberg";
  k.validate = ValidateIcebergSinkSpec;
  k.make = MakeIcebergSink;
  k.describe = [](const SinkSpec& spec) { return kIcebergSinkTag + IcebergSinkTableName(spec) + "]"; };
  k.prepare = PrepareIcebergSinkSpec;
  k.batch = true;
  k.write_batch = WriteIcebergTableOnce;
  return k;
}

util::KindRegistry<SinkKind>& TheRegistry() {
  // The sink kinds. A new sink: its files, and one line here.
  static auto* const registry = new util::KindRegistry<SinkKind>({FileKind("parquet"), FileKind("json"), FileKind("csv"),
                                                                  ConsoleKind(), MemoryKind(), IcebergKind(),
                                                                  ForeachBatchKind(), KafkaSinkKind()});
  return *registry;
}

}  // namespace

const SinkKind* FindSinkKind(const std::string& name) { return TheRegistry().Find(name); }

std::vector<std::string> SinkKindNames(bool batch_only) {
  return TheRegistry().Names([&](const SinkKind& k) { return k.user_visible && (!batch_only || k.batch); });
}

std::string SinkKindList(bool batch_only) {
  std::string out;
  for (const auto& n : SinkKindNames(batch_only)) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Result<const SinkKind*> LookupSinkKind(const std::string& name) {
  if (const SinkKind* k = FindSinkKind(name)) return k;
  return Status::Invalid("Unknown sink format '", name, "'. Valid formats: ", SinkKindList(),
                         " (or foreachBatch(fn))");
}

void RegisterSinkKind(SinkKind kind) { TheRegistry().Register(std::move(kind)); }

// sink.h's dispatching functions.

std::string SinkSpec::Describe() const {
  const SinkKind* k = FindSinkKind(format);
  return k && k->describe ? k->describe(*this) : format;
}

Status ValidateSinkSpec(const SinkSpec& spec) {
  ARROW_ASSIGN_OR_RAISE(const SinkKind* k, LookupSinkKind(spec.format));
  return k->validate ? k->validate(spec) : Status::OK();
}

Result<std::string> ReleaseSink(const std::shared_ptr<io::FileSystem>& fs, const std::string& description,
                                const std::string& query_id, const std::string& checkpoint_dir) {
  const size_t tag = description.find(kFileSinkTag);
  if (tag != std::string::npos && !description.empty() && description.back() == ']') {
    const size_t start = tag + std::string(kFileSinkTag).size();
    const std::string dir = io::UriToPath(description.substr(start, description.size() - 1 - start));
    ARROW_ASSIGN_OR_RAISE(bool released, ReleaseOutputDirectory(fs, dir, query_id));
    return released ? "released output directory " + io::PathToUri(dir) +
                          ": the next query appends after its committed batches"
                    : "output directory " + io::PathToUri(dir) + " is not owned by query " + query_id +
                          " (nothing to release)";
  }
  if (description.rfind(kIcebergSinkTag, 0) == 0) {
    ARROW_RETURN_NOT_OK(ReleaseIcebergTables(fs.get(), checkpoint_dir, query_id));
    return "released Iceberg table " + description.substr(std::string(kIcebergSinkTag).size(), description.size() -
                                                              std::string(kIcebergSinkTag).size() - 1) +
           ": the next query at this checkpoint appends to it (its snapshots keep naming query " + query_id + ")";
  }
  return "sink " + description + ": no ownership record to release";
}

Result<std::unique_ptr<Sink>> MakeSink(const SinkSpec& spec, const SinkContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(const SinkKind* k, LookupSinkKind(spec.format));
  if (k->validate) ARROW_RETURN_NOT_OK(k->validate(spec));
  return k->make(spec, ctx);
}

}  // namespace sluice::sink
