// SQL catalog (the JDBC catalog's table, docs/iceberg.md). Create = INSERT of the table row; commit =
// UPDATE ... WHERE metadata_location = <base> (0 rows = another writer committed first).
#include "iceberg/sql_catalog.h"

#include <cstdio>

#include "iceberg/location.h"
#include "io/uuid.h"
#include "util/numbers.h"

namespace sluice::iceberg {
namespace {

const char* const kCreateTables =
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    " catalog_name VARCHAR(255) NOT NULL, table_namespace VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL,"
    " metadata_location VARCHAR(1000), previous_metadata_location VARCHAR(1000), iceberg_type VARCHAR(5),"
    " PRIMARY KEY (catalog_name, table_namespace, table_name))";
const char* const kCreateNamespaces =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    " catalog_name VARCHAR(255) NOT NULL, namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255) NOT NULL,"
    " property_value VARCHAR(1000), PRIMARY KEY (catalog_name, namespace, property_key))";

// <NNNNN> of ".../<NNNNN>-<uuid>.metadata.json", or -1.
int64_t VersionOf(const std::string& location) {
  auto slash = location.find_last_of('/');
  std::string base = slash == std::string::npos ? location : location.substr(slash + 1);
  auto dash = base.find('-');
  if (dash == std::string::npos || dash == 0) return -1;
  std::string digits = base.substr(0, dash);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  auto version = util::ParseInt64(digits, location);
  return version.ok() ? *version : -1;
}

std::string MetadataFileName(int64_t version) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%05lld", static_cast<long long>(version));
  return std::string(buf) + "-" + io::RandomUuid() + ".metadata.json";
}

}  // namespace

Result<std::unique_ptr<SqlCatalog>> SqlCatalog::Open(const std::string& name, const std::string& uri,
                                                     const std::string& warehouse,
                                                     std::shared_ptr<io::FileSystem> fs) {
  ARROW_ASSIGN_OR_RAISE(auto conn, OpenSqlConnection(uri));
  std::unique_ptr<SqlCatalog> catalog(
      new SqlCatalog(name, warehouse.empty() ? "" : WarehousePath(warehouse), std::move(fs), std::move(conn)));
  ARROW_RETURN_NOT_OK(catalog->Init());
  return catalog;
}

Status SqlCatalog::Init() {
  for (const char* ddl : {kCreateTables, kCreateNamespaces}) {
    auto st = conn_->Exec(ddl).status();
    if (!st.ok() && !st.IsAlreadyExists()) return st;  // a concurrent creator is fine
  }
  has_type_column_ = conn_->Exec("SELECT iceberg_type FROM iceberg_tables WHERE 1 = 0").ok();
  return Status::OK();
}

Result<std::optional<std::string>> SqlCatalog::CurrentLocation(const TableIdent& ident) {
  std::string sql =
      "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? AND table_name = ?";
  if (has_type_column_) sql += " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
  ARROW_ASSIGN_OR_RAISE(auto res, conn_->Exec(sql, {name_, ident.NamespaceString(), ident.name}));
  if (res.rows.empty() || !res.rows[0][0]) return std::optional<std::string>();
  return res.rows[0][0];
}

Result<std::optional<LoadedTable>> SqlCatalog::Load(const TableIdent& ident) {
  ARROW_ASSIGN_OR_RAISE(auto location, CurrentLocation(ident));
  if (!location) return std::optional<LoadedTable>();
  ARROW_ASSIGN_OR_RAISE(auto text, fs_->ReadFile(LocalPath(fs_.get(), *location)));
  ARROW_ASSIGN_OR_RAISE(auto metadata, TableMetadata::Parse(text, *location));
  return std::optional<LoadedTable>(LoadedTable{std::move(metadata), *location});
}

Result<bool> SqlCatalog::EnsureNamespace(const TableIdent& ident) {
  ARROW_ASSIGN_OR_RAISE(auto res, conn_->Exec("SELECT 1 FROM iceberg_namespace_properties WHERE catalog_name = ? AND "
                                              "namespace = ?",
                                              {name_, ident.NamespaceString()}));
  if (!res.rows.empty()) return false;
  Status st = conn_
                  ->Exec("INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
                         "property_value) VALUES (?, ?, 'exists', 'true')",
                         {name_, ident.NamespaceString()})
                  .status();
  if (st.IsAlreadyExists()) return false;  // a concurrent creator
  ARROW_RETURN_NOT_OK(st);
  return true;
}

Result<LoadedTable> SqlCatalog::Create(const TableIdent& ident, const Schema& schema,
                                       const std::map<std::string, std::string>& properties,
                                       const PartitionSpec& spec) {
  if (warehouse_.empty()) {
    return Status::Invalid("Cannot create Iceberg table ", name_, ".", ident.ToString(),
                           ": the sql catalog has no warehouse (set sluice.sql.catalog.", name_, ".warehouse)");
  }
  if (ident.ns.empty()) return Status::Invalid("Iceberg table name '", ident.name, "' needs a namespace");
  ARROW_ASSIGN_OR_RAISE(bool new_namespace, EnsureNamespace(ident));
  auto created = CreateInNamespace(ident, schema, properties, spec);
  if (!created.ok() && new_namespace && !created.status().IsAlreadyExists()) {
    // A failed create leaves no namespace row behind (unless a table got into it meanwhile).
    (void)conn_->Exec("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ? AND "
                      "property_key = 'exists' AND NOT EXISTS (SELECT 1 FROM iceberg_tables WHERE catalog_name = ? "
                      "AND table_namespace = ?)",
                      {name_, ident.NamespaceString(), name_, ident.NamespaceString()});
  }
  return created;
}

Result<LoadedTable> SqlCatalog::CreateInNamespace(const TableIdent& ident, const Schema& schema,
                                                  const std::map<std::string, std::string>& properties,
                                                  const PartitionSpec& spec) {
  // Directories that need no URI escaping, whatever the names (location.h); the row keeps the names.
  const std::string dir =
      io::JoinPath(warehouse_, LocationDirName(ident.NamespaceString()) + ".db/" + LocationDirName(ident.name));
  TableMetadata metadata = NewTableMetadata(FileUri(dir), schema, properties, NowMs(), spec);
  const std::string path = io::JoinPath(dir, "metadata/" + MetadataFileName(0));
  ARROW_RETURN_NOT_OK(fs_->MakeDirs(io::JoinPath(dir, "metadata")));
  ARROW_RETURN_NOT_OK(fs_->WriteAtomic(path, metadata.ToJsonText(), /*overwrite=*/false));
  const std::string location = FileUri(path);
  std::string sql = has_type_column_
                        ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
                          "previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, 'TABLE')"
                        : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, "
                          "previous_metadata_location) VALUES (?, ?, ?, ?, NULL)";
  Status st = conn_->Exec(sql, {name_, ident.NamespaceString(), ident.name, location}).status();
  if (!st.ok()) {
    (void)fs_->Delete(path);
    if (st.IsAlreadyExists()) {
      return Status::AlreadyExists("Iceberg table ", name_, ".", ident.ToString(), " already exists");
    }
    return st;
  }
  return LoadedTable{std::move(metadata), location};
}

Result<LoadedTable> SqlCatalog::Commit(const TableIdent& ident, const LoadedTable& base, TableMetadata updated) {
  const int64_t version = VersionOf(base.metadata_location) + 1;  // 0 for a foreign name: still unique by uuid
  const TableFile file = TableFileAt(fs_.get(), updated, "metadata/" + MetadataFileName(version));
  const std::string& path = file.path;
  ARROW_RETURN_NOT_OK(fs_->WriteAtomic(path, updated.ToJsonText(), /*overwrite=*/false));
  ARROW_RETURN_NOT_OK(fs_->FaultPoint("iceberg_after_metadata_file"));
  const std::string& location = file.uri;
  std::string sql =
      "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? WHERE catalog_name = ? AND "
      "table_namespace = ? AND table_name = ? AND metadata_location = ?";
  if (has_type_column_) sql += " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
  auto res = conn_->Exec(sql, {location, base.metadata_location, name_, ident.NamespaceString(), ident.name,
                               base.metadata_location});
  if (!res.ok() || res->affected == 0) {
    (void)fs_->Delete(path);  // never current: do not leave it for a reader to guess at
    if (!res.ok()) return res.status();
    return CommitConflict("Iceberg table " + name_ + "." + ident.ToString() + ": metadata changed since " +
                          base.metadata_location + " (concurrent commit)");
  }
  ARROW_RETURN_NOT_OK(fs_->FaultPoint("iceberg_after_catalog_commit"));
  return LoadedTable{std::move(updated), location};
}

Result<std::vector<std::string>> SqlCatalog::ListTables(const std::vector<std::string>& ns) {
  TableIdent probe{ns, ""};
  ARROW_ASSIGN_OR_RAISE(auto res, conn_->Exec("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                                              "table_namespace = ? ORDER BY table_name",
                                              {name_, probe.NamespaceString()}));
  std::vector<std::string> names;
  for (const auto& row : res.rows) {
    if (row[0]) names.push_back(*row[0]);
  }
  return names;
}

}  // namespace sluice::iceberg
