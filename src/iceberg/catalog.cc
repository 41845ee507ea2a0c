// Catalog helpers shared by the hadoop and sql catalogs, and the factory.
#include "iceberg/catalog.h"

#include "iceberg/hadoop_catalog.h"
#include "iceberg/sql_catalog.h"

namespace sluice::iceberg {
namespace {

class CommitConflictDetail : public arrow::StatusDetail {
 public:
  const char* type_id() const override { return "sluice::iceberg::CommitConflict"; }
  std::string ToString() const override { return "commit conflict"; }
};

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

}  // namespace

std::string TableIdent::NamespaceString() const { return Join(ns, "."); }
std::string TableIdent::ToString() const { return ns.empty() ? name : NamespaceString() + "." + name; }

Status CommitConflict(const std::string& message) {
  return Status(arrow::StatusCode::IOError, message, std::make_shared<CommitConflictDetail>());
}

bool IsCommitConflict(const Status& st) {
  return !st.ok() && st.detail() && std::string(st.detail()->type_id()) == "sluice::iceberg::CommitConflict";
}

std::string WarehousePath(const std::string& warehouse) {
  if (warehouse.rfind("file:", 0) == 0) return io::UriToPath(warehouse);
  return io::AbsolutePath(warehouse);
}

Result<std::shared_ptr<Catalog>> MakeCatalog(const std::string& name, const std::map<std::string, std::string>& props,
                                             std::shared_ptr<io::FileSystem> fs) {
  auto get = [&](const std::string& k) {
    auto it = props.find(k);
    return it == props.end() ? std::string() : it->second;
  };
  std::string type = get("type").empty() ? "hadoop" : get("type");
  std::string warehouse = get("warehouse");
  if (type == "hadoop") {
    if (warehouse.empty()) {
      return Status::Invalid("Iceberg catalog '", name, "' (hadoop) needs a warehouse: set sluice.sql.catalog.", name,
                             ".warehouse");
    }
    return std::shared_ptr<Catalog>(std::make_shared<HadoopCatalog>(name, WarehousePath(warehouse), std::move(fs)));
  }
  if (type == "sql" || type == "jdbc") {
    if (get("uri").empty()) {
      return Status::Invalid("Iceberg catalog '", name, "' (sql) needs a uri: set sluice.sql.catalog.", name,
                             ".uri, e.g. sqlite:////abs/path/catalog.db");
    }
    ARROW_ASSIGN_OR_RAISE(auto catalog, SqlCatalog::Open(name, get("uri"), warehouse, std::move(fs)));
    return std::shared_ptr<Catalog>(std::move(catalog));
  }
  return Status::Invalid("Unknown type '", type, "' for Iceberg catalog '", name, "' (sluice.sql.catalog.", name,
                         ".type). Valid types: hadoop, sql");
}

}  // namespace sluice::iceberg
