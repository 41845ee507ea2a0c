// The session settings sluice reads: the one list of their keys and defaults, and the rule that
// joins the two spellings of a key.
//
// Spelling rule: `spark.X` and `sluice.X` are two names of ONE setting X. Setting either
// replaces the setting; reading either answers its value. So the value set last wins whichever
// spelling each write used (in `sluice run`, --conf is applied after the file's SET statements
// and so overrides them). Keys are otherwise case-sensitive, as in Spark.
//
// Every key sluice reads is an entry of AllConfEntries(); docs/configuration.md lists the same
// keys (a unit test keeps the two in step). Values recorded in a checkpoint's offsets log
// (shuffle partitions, state store provider) win over the session's on restart.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace sluice::conf {

struct ConfEntry {
  /// The canonical spelling: Spark's name when Spark has the setting, else `sluice.`. A
  /// `<name>` part is chosen by the user (e.g. a catalog name).
  const char* key;
  /// The default as text, or a description in parentheses when it is computed.
  const char* default_value;
  const char* doc;
};

inline constexpr ConfEntry kShufflePartitions{
    "spark.sql.shuffle.partitions", "(number of cores)",
    "State partitions of stateful operators, 1..4096; a checkpoint keeps the value of its first batch."};
inline constexpr ConfEntry kStateStoreProvider{
    "spark.sql.streaming.stateStore.providerClass", "file",
    "State store provider: file or rocksdb (or Spark's class names); a checkpoint keeps its provider."};
inline constexpr ConfEntry kMinBatchesToRetain{
    "spark.sql.streaming.minBatchesToRetain", "100",
    "Offsets/commits log entries, source-log entries and state versions kept (positive integer)."};
inline constexpr ConfEntry kNumRecentProgressUpdates{
    "spark.sql.streaming.numRecentProgressUpdates", "100",
    "Progress updates recentProgress() keeps per query (positive integer)."};
inline constexpr ConfEntry kNoDataProgressEventInterval{
    "spark.sql.streaming.noDataProgressEventInterval", "10000",
    "Minimum milliseconds between two onQueryIdle events of a query (positive integer)."};
inline constexpr ConfEntry kCheckpointLocation{
    "spark.sql.streaming.checkpointLocation", "",
    "Root of the checkpoints of queries started without option(\"checkpointLocation\"): the query's "
    "checkpoint is <root>/<queryName> (<root>/query when unnamed)."};
inline constexpr ConfEntry kMultipleWatermarkPolicy{
    "spark.sql.streaming.multipleWatermarkPolicy", "min",
    "How the watermarks of several withWatermark nodes combine: min (the slowest input) or max (the fastest)."};
inline constexpr ConfEntry kDefaultCatalog{"spark.sql.defaultCatalog", "local",
                                           "Catalog of two-part Iceberg table names (ns.table)."};
inline constexpr ConfEntry kCatalogType{"spark.sql.catalog.<name>.type", "hadoop",
                                        "Iceberg catalog implementation: hadoop or sql."};
inline constexpr ConfEntry kCatalogWarehouse{"spark.sql.catalog.<name>.warehouse",
                                             "(spark.sql.warehouse.dir for catalog local)",
                                             "Iceberg catalog warehouse directory (path or file:// URI)."};
inline constexpr ConfEntry kCatalogUri{"spark.sql.catalog.<name>.uri", "",
                                       "SQL catalog database: sqlite:////abs/catalog.db or postgresql://..."};
inline constexpr ConfEntry kWarehouseDir{"spark.sql.warehouse.dir", "spark-warehouse",
                                         "Warehouse of the default catalog local (relative to the working directory)."};

inline constexpr ConfEntry kJoinMaxBuildSideBytes{
    "sluice.sql.join.maxBuildSideBytes", "1073741824",
    "Most bytes (Arrow buffers) the static side of a join may hold in memory; a larger one fails the query. "
    "0 = no limit."};
inline constexpr ConfEntry kAnsiEnabled{
    "spark.sql.ansi.enabled", "true",
    "ANSI SQL mode: invalid casts, overflow and division by zero fail the query; false gives Spark's "
    "non-ANSI results (null, wrap-around)."};
inline constexpr ConfEntry kStreamingSchemaInference{
    "spark.sql.streaming.schemaInference", "false",
    "A streaming file source declared without a schema takes the one a batch read of its directory "
    "infers when the query is defined (json, csv, parquet)."};
inline constexpr ConfEntry kIgnoreCorruptFiles{
    "spark.sql.files.ignoreCorruptFiles", "false",
    "File sources skip (with a warning) a file that cannot be read or decoded; the source option "
    "ignoreCorruptFiles overrides it."};
inline constexpr ConfEntry kIgnoreMissingFiles{
    "spark.sql.files.ignoreMissingFiles", "false",
    "File sources skip (with a warning) a file deleted after it was listed; the source option "
    "ignoreMissingFiles overrides it."};

/// Every setting sluice reads, in the order docs/configuration.md lists them.
const std::vector<ConfEntry>& AllConfEntries();

/// What the command line makes of a settings key (`--conf key=value`, `SET key = value` in a
/// pipeline file).
struct KeyCheck {
  enum class Kind {
    kKnown,     // a setting sluice reads (either spelling)
    kRefused,   // an unknown `sluice.` key, or a near miss of a key sluice reads: `message` says
                // which key was probably meant
    kNoEffect,  // another key (e.g. a Spark setting sluice does not use): `message` is a warning
  };
  Kind kind = Kind::kKnown;
  std::string message{};
};
KeyCheck CheckSettingKey(const std::string& key);

/// The name both spellings share: `key` without its "spark." or "sluice." prefix ("X").
std::string SettingName(const std::string& key);
/// The key of a catalog setting: CatalogKey("lake", "uri") = "spark.sql.catalog.lake.uri".
std::string CatalogKey(const std::string& catalog, const std::string& setting);

/// Session settings under the spelling rule above. Thread-safe.
class Settings {
 public:
  void Set(const std::string& key, const std::string& value);
  std::optional<std::string> Get(const std::string& key) const;
  /// The value, or `def` when unset.
  std::string GetOr(const std::string& key, const std::string& def) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> values_;  // by SettingName
};

}  // namespace sluice::conf
