// The SQL ("JDBC") catalog: the iceberg_tables / iceberg_namespace_properties layout of Java's
// JdbcCatalog and PyIceberg's SqlCatalog, so either can load what sluice commits (with the same
// catalog name). Table locations default to <warehouse>/<ns>.db/<table> (PyIceberg's rule);
// metadata files are <location>/metadata/<NNNNN>-<uuid>.metadata.json.
#pragma once

#include "iceberg/catalog.h"
#include "iceberg/sql_connection.h"

namespace sluice::iceberg {

class SqlCatalog final : public Catalog {
 public:
  /// Connects and creates the catalog tables if they are missing.
  static Result<std::unique_ptr<SqlCatalog>> Open(const std::string& name, const std::string& uri,
                                                  const std::string& warehouse, std::shared_ptr<io::FileSystem> fs);

  const std::string& name() const override { return name_; }
  Result<std::optional<LoadedTable>> Load(const TableIdent& ident) override;
  Result<LoadedTable> Create(const TableIdent& ident, const Schema& schema,
                             const std::map<std::string, std::string>& properties,
                             const PartitionSpec& spec = PartitionSpec{}) override;
  Result<LoadedTable> Commit(const TableIdent& ident, const LoadedTable& base, TableMetadata updated) override;
  Result<std::vector<std::string>> ListTables(const std::vector<std::string>& ns) override;

 private:
  SqlCatalog(std::string name, std::string warehouse, std::shared_ptr<io::FileSystem> fs,
             std::unique_ptr<SqlConnection> conn)
      : name_(std::move(name)), warehouse_(std::move(warehouse)), fs_(std::move(fs)), conn_(std::move(conn)) {}
  Status Init();
  /// Inserts the namespace row when missing; true when this call inserted it.
  Result<bool> EnsureNamespace(const TableIdent& ident);
  /// Creates the table's metadata file and row (Create without the namespace bookkeeping).
  Result<LoadedTable> CreateInNamespace(const TableIdent& ident, const Schema& schema,
                                        const std::map<std::string, std::string>& properties, const PartitionSpec& spec);
  Result<std::optional<std::string>> CurrentLocation(const TableIdent& ident);

  std::string name_;
  std::string warehouse_;  // absolute local path; empty = none configured
  std::shared_ptr<io::FileSystem> fs_;
  std::unique_ptr<SqlConnection> conn_;
  bool has_type_column_ = false;  // iceberg_type (the "V1" JDBC schema, PyIceberg >= 0.12)
};

}  // namespace sluice::iceberg
