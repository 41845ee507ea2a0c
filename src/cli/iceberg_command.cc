// The `sluice iceberg ...` commands: thin wrappers over src/iceberg/maintenance.h. Catalogs come
// from --conf sluice.sql.catalog.<name>.type/warehouse/uri, as for queries.
#include "cli/iceberg_command.h"

#include <iostream>
#include <map>
#include <memory>

#include "cli/pipeline_options.h"
#include "conf/sql_conf.h"
#include "iceberg/catalog_config.h"
#include "iceberg/maintenance.h"
#include "iceberg/metadata.h"
#include "sql/sql_script.h"
#include "util/duration.h"

namespace sluice::cli {
namespace {

struct IcebergArgs {
  std::string table;
  std::string pipeline;  // a pipeline file whose SET statements configure the catalog
  std::vector<std::string> conf;
  int64_t target_file_size = 128LL * 1024 * 1024;
  std::string older_than;
  int retain_last = 1;
};

Result<iceberg::TableRef> Resolve(const IcebergArgs& args, std::shared_ptr<iceberg::Catalog>* catalog) {
  conf::Settings conf;
  if (!args.pipeline.empty()) {  // its SETs first, so --conf wins (as in `sluice run`)
    ARROW_ASSIGN_OR_RAISE(auto text, ReadPipelineFile(args.pipeline));
    ARROW_ASSIGN_OR_RAISE(auto script, sql::ParseScript(text));
    for (const auto& set : script.settings) {
      const conf::KeyCheck check = conf::CheckSettingKey(set.key);
      if (check.kind == conf::KeyCheck::Kind::kRefused) return text.ErrorAt(set.location, "SET: " + check.message);
      conf.Set(set.key, set.value);
    }
  }
  for (const auto& kv : args.conf) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) return Status::Invalid("--conf '", kv, "': expected key=value");
    const conf::KeyCheck check = conf::CheckSettingKey(kv.substr(0, eq));
    if (check.kind == conf::KeyCheck::Kind::kRefused) return Status::Invalid("--conf ", check.message);
    conf.Set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  std::map<std::string, std::string> options = {{"table", args.table}};
  iceberg::AddCatalogOptions(&options, [&](const std::string& k) { return conf.GetOr(k, ""); });
  ARROW_ASSIGN_OR_RAISE(auto ref, iceberg::TableRefFromOptions(options));
  ARROW_ASSIGN_OR_RAISE(*catalog, iceberg::MakeCatalog(ref.catalog, ref.catalog_props, io::LocalFileSystem()));
  return ref;
}

int Compact(const IcebergArgs& args) {
  std::shared_ptr<iceberg::Catalog> catalog;
  auto ref = Resolve(args, &catalog);
  if (!ref.ok()) return ReportFailure(ref.status());
  auto r = iceberg::CompactTable(catalog.get(), io::LocalFileSystem().get(), ref->ident, args.target_file_size);
  if (!r.ok()) return ReportFailure(r.status());
  if (!r->committed) {
    std::cout << ref->ToString() << ": nothing to compact (fewer than two small files)" << std::endl;
  } else {
    std::cout << ref->ToString() << ": rewrote " << r->rewritten_files << " files (" << r->rows << " rows) into "
              << r->added_files << " in a replace snapshot" << std::endl;
  }
  return 0;
}

int Expire(const IcebergArgs& args) {
  auto age = util::ParseDurationMs("--older-than", args.older_than);
  if (!age.ok()) return ReportFailure(age.status());
  std::shared_ptr<iceberg::Catalog> catalog;
  auto ref = Resolve(args, &catalog);
  if (!ref.ok()) return ReportFailure(ref.status());
  auto r = iceberg::ExpireSnapshots(catalog.get(), io::LocalFileSystem().get(), ref->ident, iceberg::NowMs() - *age,
                                    args.retain_last);
  if (!r.ok()) return ReportFailure(r.status());
  std::cout << ref->ToString() << ": expired " << r->expired_snapshots << " snapshots, deleted " << r->deleted_files
            << " files" << std::endl;
  return 0;
}

}  // namespace

void AddIcebergCommands(CLI::App* app, int* rc) {
  auto args = std::make_shared<IcebergArgs>();
  auto* iceberg = app->add_subcommand("iceberg", "Maintain Iceberg tables (docs/iceberg.md)");
  iceberg->require_subcommand(1);

  auto* compact = iceberg->add_subcommand("compact", "Rewrite small data files into larger ones (a replace snapshot)");
  compact->add_option("TABLE", args->table, "catalog.ns.table")->required();
  compact->add_option("--target-file-size", args->target_file_size, "Bytes per output file (default 128 MiB)");
  compact->add_option("--conf", args->conf, "Session setting key=value (repeatable), e.g. sluice.sql.catalog.lake.type=sql");
  compact->add_option("--pipeline", args->pipeline, "Pipeline file whose SET statements configure the catalog");
  compact->callback([args, rc] { *rc = Compact(*args); });

  auto* expire = iceberg->add_subcommand("expire-snapshots", "Remove old snapshots and the files only they use");
  expire->add_option("TABLE", args->table, "catalog.ns.table")->required();
  expire->add_option("--older-than", args->older_than, "Age such as 7d, 12h, 30m")->required();
  expire->add_option("--retain-last", args->retain_last, "Always keep this many recent snapshots (default 1)");
  expire->add_option("--conf", args->conf, "Session setting key=value (repeatable)");
  expire->add_option("--pipeline", args->pipeline, "Pipeline file whose SET statements configure the catalog");
  expire->callback([args, rc] { *rc = Expire(*args); });
}

}  // namespace sluice::cli
