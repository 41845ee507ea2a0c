// Table names and catalog configuration (see catalog_config.h).
#include "iceberg/catalog_config.h"

#include <sstream>
#include <vector>

#include "conf/sql_conf.h"

namespace sluice::iceberg {
namespace {

const char* const kCatalogKeys[] = {"type", "warehouse", "uri"};

std::vector<std::string> SplitName(const std::string& name) {
  std::vector<std::string> parts;
  std::stringstream ss(name);
  for (std::string p; std::getline(ss, p, '.');) {
    // Spark-style backquotes around a part are accepted and removed.
    if (p.size() >= 2 && p.front() == '`' && p.back() == '`') p = p.substr(1, p.size() - 2);
    parts.push_back(p);
  }
  return parts;
}

std::string Get(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? std::string() : it->second;
}

std::string CatalogOf(const std::map<std::string, std::string>& options, const ConfLookup& conf) {
  std::string explicit_catalog = Get(options, "catalog");
  if (!explicit_catalog.empty()) return explicit_catalog;
  if (SplitName(Get(options, "table")).size() >= 3) return SplitName(Get(options, "table"))[0];
  std::string def = conf ? conf(conf::kDefaultCatalog.key) : "";
  return def.empty() ? "local" : def;
}

}  // namespace

void AddCatalogOptions(std::map<std::string, std::string>* options, const ConfLookup& conf) {
  const std::string catalog = CatalogOf(*options, conf);
  // `conf` answers a setting under either spelling (conf/sql_conf.h).
  auto conf_of = [&](const std::string& key) { return conf(conf::CatalogKey(catalog, key)); };
  // Pin the catalog so the name's split does not depend on the conf any more.
  if (!options->count("catalog")) {
    auto parts = SplitName(Get(*options, "table"));
    if (parts.size() >= 3 && parts[0] == catalog) {
      std::string rest;
      for (size_t i = 1; i < parts.size(); ++i) rest += (i > 1 ? "." : "") + parts[i];
      (*options)["table"] = rest;
    }
    (*options)["catalog"] = catalog;
  }
  for (const char* key : kCatalogKeys) {
    const std::string opt = std::string("catalog.") + key;
    if (options->count(opt)) continue;
    std::string v = conf_of(key);
    if (v.empty() && catalog == "local") {
      if (std::string(key) == "type") v = "hadoop";
      if (std::string(key) == "warehouse") {
        v = conf(conf::kWarehouseDir.key);
        if (v.empty()) v = conf::kWarehouseDir.default_value;
        v = WarehousePath(v);
      }
    }
    if (!v.empty()) (*options)[opt] = v;
  }
}

Result<TableRef> TableRefFromOptions(const std::map<std::string, std::string>& options) {
  const std::string name = Get(options, "table");
  if (name.empty()) return Status::Invalid("Iceberg: no table given; use toTable(\"catalog.ns.table\") or option(\"table\", ...)");
  TableRef ref;
  auto parts = SplitName(name);
  for (const auto& p : parts) {
    if (p.empty()) return Status::Invalid("Invalid Iceberg table name '", name, "'");
  }
  ref.catalog = Get(options, "catalog");
  if (ref.catalog.empty()) {
    if (parts.size() >= 3) {
      ref.catalog = parts[0];
      parts.erase(parts.begin());
    } else {
      ref.catalog = "local";
    }
  }
  if (parts.size() == 1) parts.insert(parts.begin(), "default");
  ref.ident.name = parts.back();
  ref.ident.ns.assign(parts.begin(), parts.end() - 1);
  for (const char* key : kCatalogKeys) {
    std::string v = Get(options, std::string("catalog.") + key);
    if (!v.empty()) ref.catalog_props[key] = v;
  }
  return ref;
}

}  // namespace sluice::iceberg
