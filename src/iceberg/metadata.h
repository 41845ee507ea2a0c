// Table metadata (the vN.metadata.json document, format-version 2) and snapshots.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"

namespace sluice::iceberg {

struct Snapshot {
  int64_t snapshot_id = 0;
  std::optional<int64_t> parent_snapshot_id;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;  // URI
  std::map<std::string, std::string> summary;  // includes "operation"
  std::optional<int> schema_id;

  std::string operation() const;
};

struct TableMetadata {
  std::string table_uuid;
  std::string location;  // URI of the table's base directory
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int last_column_id = 0;
  std::vector<Schema> schemas;
  int current_schema_id = 0;
  std::map<std::string, std::string> properties;
  std::optional<int64_t> current_snapshot_id;
  std::vector<Snapshot> snapshots;
  std::vector<std::pair<int64_t, int64_t>> snapshot_log;            // (timestamp-ms, snapshot-id)
  std::vector<std::pair<int64_t, std::string>> metadata_log;        // (timestamp-ms, metadata-file)
  /// Keys this struct does not model (partition specs, sort orders, refs, statistics, ...),
  /// kept as read so a rewrite preserves them.
  nlohmann::json other = nlohmann::json::object();

  const Schema* CurrentSchema() const;
  const Snapshot* CurrentSnapshot() const;
  const Snapshot* FindSnapshot(int64_t id) const;
  /// True when the default partition spec has fields.
  bool Partitioned() const;
  /// The default partition spec (default-spec-id in partition-specs); unpartitioned when the
  /// metadata has none. Errors name a transform sluice cannot write.
  Result<PartitionSpec> DefaultPartitionSpec() const;

  nlohmann::json ToJson() const;
  std::string ToJsonText() const;
  static Result<TableMetadata> FromJson(const nlohmann::json& j);
  /// Parses a metadata file's text; errors name `what` (the file).
  static Result<TableMetadata> Parse(const std::string& text, const std::string& what);
};

/// Metadata of a new, empty table at `location` (URI), partitioned by `spec` (spec-id 0, bound
/// to `schema`; unpartitioned when it has no fields).
TableMetadata NewTableMetadata(const std::string& location, const Schema& schema,
                               std::map<std::string, std::string> properties, int64_t now_ms,
                               const PartitionSpec& spec = PartitionSpec{});

/// Adds `snapshot` as the new current snapshot (main branch), records `previous_metadata_file`
/// in the metadata log, bumps last-sequence-number and last-updated-ms.
void SetCurrentSnapshot(TableMetadata* metadata, Snapshot snapshot, const std::string& previous_metadata_file,
                        int64_t now_ms);

/// Schema evolution: adds `schema` to the schemas list with a new id (highest + 1) and makes it
/// current; raises last-column-id to its highest field id, records `previous_metadata_file` in
/// the metadata log, bumps last-updated-ms. Snapshots are unchanged (older data files are read
/// with the new columns null: readers match columns by field id).
void AddCurrentSchema(TableMetadata* metadata, Schema schema, const std::string& previous_metadata_file,
                      int64_t now_ms);

/// A random positive 64-bit snapshot id not used by `metadata`.
int64_t NewSnapshotId(const TableMetadata& metadata);

/// Milliseconds since the epoch.
int64_t NowMs();

}  // namespace sluice::iceberg
