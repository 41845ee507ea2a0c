// Batch reads of Iceberg tables through a catalog (see iceberg_scan.h).
#include "source/iceberg_scan.h"

#include <arrow/api.h>

#include "iceberg/catalog_config.h"
#include "iceberg/table_ops.h"

namespace sluice::source {
namespace {

std::map<std::string, std::string> OptionMap(const plan::SourceSpec& spec) {
  std::map<std::string, std::string> m;
  for (const auto& [lower, kv] : spec.options.entries()) m[lower] = kv.second;
  return m;
}

Result<iceberg::LoadedTable> Load(const plan::SourceSpec& spec, const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_ASSIGN_OR_RAISE(auto ref, iceberg::TableRefFromOptions(OptionMap(spec)));
  ARROW_ASSIGN_OR_RAISE(auto catalog, iceberg::MakeCatalog(ref.catalog, ref.catalog_props, fs));
  ARROW_ASSIGN_OR_RAISE(auto loaded, catalog->Load(ref.ident));
  if (!loaded) return Status::IOError("Iceberg table ", ref.ToString(), " does not exist");
  return std::move(*loaded);
}

}  // namespace

Result<std::shared_ptr<plan::SourceSpec>> MakeIcebergScanSpec(const std::string& table,
                                                              const std::map<std::string, std::string>& options,
                                                              const std::function<std::string(const std::string&)>& conf) {
  if (table.empty()) return Status::Invalid("read().table(): the table name is empty");
  std::map<std::string, std::string> m = options;
  m["table"] = table;
  iceberg::AddCatalogOptions(&m, conf);
  ARROW_RETURN_NOT_OK(iceberg::TableRefFromOptions(m).status());
  auto spec = std::make_shared<plan::SourceSpec>();
  spec->format = "iceberg";
  spec->path = table;
  for (const auto& [k, v] : m) spec->options.Set(k, v);
  return spec;
}

Result<std::shared_ptr<arrow::Schema>> IcebergTableSchema(const plan::SourceSpec& spec,
                                                          const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, Load(spec, fs));
  return iceberg::ToArrowSchema(*loaded.metadata.CurrentSchema());
}

Result<std::shared_ptr<arrow::Table>> ReadIcebergTable(const plan::SourceSpec& spec,
                                                       const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, Load(spec, fs));
  return iceberg::ReadCurrentSnapshot(fs.get(), loaded.metadata);
}

Result<std::optional<int64_t>> IcebergCurrentSnapshotId(const plan::SourceSpec& spec,
                                                        const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, Load(spec, fs));
  return loaded.metadata.current_snapshot_id;
}

Result<std::shared_ptr<arrow::Table>> ReadIcebergSnapshot(const plan::SourceSpec& spec,
                                                          const std::shared_ptr<io::FileSystem>& fs,
                                                          std::optional<int64_t> snapshot_id) {
  ARROW_ASSIGN_OR_RAISE(auto loaded, Load(spec, fs));
  if (snapshot_id && !loaded.metadata.FindSnapshot(*snapshot_id)) {
    return Status::Invalid("Iceberg table ", spec.path, ": snapshot ", *snapshot_id,
                           " (recorded in the checkpoint's offsets log for a batch to redo) has expired");
  }
  loaded.metadata.current_snapshot_id = snapshot_id;
  return iceberg::ReadCurrentSnapshot(fs.get(), loaded.metadata);
}

}  // namespace sluice::source
