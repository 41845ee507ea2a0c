// The filesystem ("hadoop") catalog: a table is the directory <warehouse>/<ns...>/<table>, its
// current metadata the highest metadata/vN.metadata.json. version-hint.text holds N for
// readers (PyIceberg StaticTable, DuckDB) and is rewritten after each commit; it is only a
// hint: Load probes past it, and repairs it, so a crash between the commit and the hint
// update is healed by the next load.
#pragma once

#include "iceberg/catalog.h"

namespace sluice::iceberg {

class HadoopCatalog final : public Catalog {
 public:
  HadoopCatalog(std::string name, std::string warehouse, std::shared_ptr<io::FileSystem> fs)
      : name_(std::move(name)), warehouse_(std::move(warehouse)), fs_(std::move(fs)) {}

  const std::string& name() const override { return name_; }
  Result<std::optional<LoadedTable>> Load(const TableIdent& ident) override;
  Result<LoadedTable> Create(const TableIdent& ident, const Schema& schema,
                             const std::map<std::string, std::string>& properties,
                             const PartitionSpec& spec = PartitionSpec{}) override;
  Result<LoadedTable> Commit(const TableIdent& ident, const LoadedTable& base, TableMetadata updated) override;
  Result<std::vector<std::string>> ListTables(const std::vector<std::string>& ns) override;

  /// <warehouse>/<ns...>/<table>
  std::string TableDir(const TableIdent& ident) const;

 private:
  std::string name_;
  std::string warehouse_;  // absolute local path
  std::shared_ptr<io::FileSystem> fs_;
};

}  // namespace sluice::iceberg
