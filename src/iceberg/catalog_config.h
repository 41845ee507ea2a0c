// Naming tables and configuring catalogs, Spark-style:
//
//   sluice.sql.catalog.<name>.type      = hadoop | sql        (default hadoop)
//   sluice.sql.catalog.<name>.warehouse = /abs/dir | file:///abs/dir
//   sluice.sql.catalog.<name>.uri       = sqlite:////abs/catalog.db | postgresql://...   (sql)
//   sluice.sql.defaultCatalog           = local   (catalog of two-part names)
//   catalog "local" defaults to type hadoop, warehouse sluice.sql.warehouse.dir
//   (default ./spark-warehouse). "spark.*" and "sluice.*" spell the same setting; the lookup
//   given to AddCatalogOptions applies that rule (conf/sql_conf.h).
//
// A table name is "catalog.ns.table" (three or more parts: the first is the catalog),
// "ns.table" (the default catalog) or "table" (namespace "default"). With an explicit
// option("catalog", c) every part of the name is namespace + table.
//
// The sink and the batch reader see only options: AddCatalogOptions copies what a table's
// catalog needs from the session conf into them ("catalog", "catalog.type", "catalog.warehouse",
// "catalog.uri"), so src/iceberg never reads session state.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "iceberg/catalog.h"

namespace sluice::iceberg {

/// A session setting by key, "" when unset; either spelling of a key finds the same setting.
using ConfLookup = std::function<std::string(const std::string& key)>;

struct TableRef {
  std::string catalog;
  std::map<std::string, std::string> catalog_props;  // type, warehouse, uri
  TableIdent ident;

  std::string ToString() const { return catalog + "." + ident.ToString(); }
};

/// Adds the catalog options for the table named by options["table"] (options the caller set
/// win over the conf).
void AddCatalogOptions(std::map<std::string, std::string>* options, const ConfLookup& conf);

/// The table an option map names ("table", plus the catalog options above).
Result<TableRef> TableRefFromOptions(const std::map<std::string, std::string>& options);

}  // namespace sluice::iceberg
