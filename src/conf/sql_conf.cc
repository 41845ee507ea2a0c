#include "conf/sql_conf.h"

namespace sluice::conf {

const std::vector<ConfEntry>& AllConfEntries() {
  static const std::vector<ConfEntry> kAll = {
      kShufflePartitions,   kStateStoreProvider, kMinBatchesToRetain, kNumRecentProgressUpdates,
      kNoDataProgressEventInterval, kCheckpointLocation, kMultipleWatermarkPolicy, kDefaultCatalog,
      kCatalogType,         kCatalogWarehouse,   kCatalogUri,         kWarehouseDir,       kJoinMaxBuildSideBytes};
  return kAll;
}

std::string SettingName(const std::string& key) {
  for (const char* prefix : {"spark.", "sluice."}) {
    const std::string p(prefix);
    if (key.size() > p.size() && key.compare(0, p.size(), p) == 0) return key.substr(p.size());
  }
  return key;
}

std::string CatalogKey(const std::string& catalog, const std::string& setting) {
  return "spark.sql.catalog." + catalog + "." + setting;
}

void Settings::Set(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mu_);
  values_[SettingName(key)] = value;
}

std::optional<std::string> Settings::Get(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = values_.find(SettingName(key));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Settings::GetOr(const std::string& key, const std::string& def) const {
  auto v = Get(key);
  return v ? *v : def;
}

}  // namespace sluice::conf
