#include "conf/sql_conf.h"

#include <algorithm>
#include <cctype>

#include "util/strings.h"

namespace sluice::conf {

const std::vector<ConfEntry>& AllConfEntries() {
  static const std::vector<ConfEntry> kAll = {
      kShufflePartitions,   kStateStoreProvider, kMinBatchesToRetain, kNumRecentProgressUpdates,
      kNoDataProgressEventInterval, kCheckpointLocation, kMultipleWatermarkPolicy, kDefaultCatalog,
      kCatalogType,         kCatalogWarehouse,   kCatalogUri,         kWarehouseDir,       kJoinMaxBuildSideBytes,
      kIgnoreCorruptFiles,  kIgnoreMissingFiles, kAnsiEnabled,        kStreamingSchemaInference};
  return kAll;
}

std::string SettingName(const std::string& key) {
  for (const char* prefix : {"spark.", "sluice."}) {
    const std::string p(prefix);
    if (key.size() > p.size() && key.compare(0, p.size(), p) == 0) return key.substr(p.size());
  }
  return key;
}

namespace {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The setting names sluice reads ("sql.shuffle.partitions"); a catalog setting with the
// user's catalog name put in for <name>.
std::vector<std::string> KnownNames(const std::string& catalog) {
  std::vector<std::string> names;
  for (const ConfEntry& e : AllConfEntries()) {
    std::string name = SettingName(e.key);
    const auto at = name.find("<name>");
    if (at != std::string::npos) {
      if (catalog.empty()) continue;
      name.replace(at, 6, catalog);
    }
    names.push_back(std::move(name));
  }
  return names;
}

}  // namespace

KeyCheck CheckSettingKey(const std::string& key) {
  const bool is_sluice = key.rfind("sluice.", 0) == 0;
  const std::string name = SettingName(key);
  // sql.catalog.<catalog>.<setting>: the catalog name is the user's.
  std::string catalog;
  const std::string catalog_prefix = "sql.catalog.";
  if (name.rfind(catalog_prefix, 0) == 0) {
    const std::string rest = name.substr(catalog_prefix.size());
    catalog = rest.substr(0, rest.find('.'));
  }
  const auto known = KnownNames(catalog);
  if (std::find(known.begin(), known.end(), name) != known.end()) return {};
  const std::string prefix = is_sluice ? "sluice." : "spark.";
  const std::string* best = nullptr;
  size_t best_distance = 3;  // a near miss: at most 2 edits, or only the letter case differs
  for (const auto& k : known) {
    const size_t d = util::ToLower(k) == util::ToLower(name) ? 0 : EditDistance(k, name);
    if (d < best_distance) {
      best_distance = d;
      best = &k;
    }
  }
  const bool prefixed = is_sluice || key.rfind("spark.", 0) == 0;
  if (best && prefixed) {
    return {KeyCheck::Kind::kRefused, "Unknown setting '" + key + "': did you mean '" + prefix + *best +
                                          "'? (docs/configuration.md lists the settings sluice reads)"};
  }
  if (is_sluice) {
    return {KeyCheck::Kind::kRefused, "Unknown setting '" + key +
                                          "': no sluice setting has this name (docs/configuration.md lists them)"};
  }
  return {KeyCheck::Kind::kNoEffect,
          "Setting '" + key + "' has no effect in sluice (not one of the settings in docs/configuration.md)"};
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
