// Manifests (which data files a snapshot adds, keeps or deletes) and manifest lists (which
// manifests make up a snapshot), as Avro container files with the field-id annotated schemas
// and header keys of the Iceberg v2 spec ("Manifests", "Manifest Lists").
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "iceberg/data_file.h"
#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"
#include "io/file_system.h"

namespace sluice::iceberg {

enum class EntryStatus { kExisting = 0, kAdded = 1, kDeleted = 2 };

struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;           // null = inherited from the manifest list entry
  std::optional<int64_t> sequence_number;       // null = inherited (ADDED entries only)
  std::optional<int64_t> file_sequence_number;  // null = inherited (ADDED entries only)
  DataFile file;
};

/// One manifest list entry.
struct ManifestFile {
  std::string path;  // URI
  int64_t length = 0;
  int partition_spec_id = 0;
  int content = 0;  // 0 data, 1 deletes
  int64_t sequence_number = 0;
  int64_t min_sequence_number = 0;
  int64_t added_snapshot_id = 0;
  int added_files_count = 0, existing_files_count = 0, deleted_files_count = 0;
  int64_t added_rows_count = 0, existing_rows_count = 0, deleted_rows_count = 0;
  nlohmann::json partitions;  // field summaries as decoded (empty / null when unpartitioned)
};

/// Writes a data manifest (status, snapshot id and sequence numbers as given in `entries`) to
/// `file.path`, create-only, its entries' partition tuples laid out by `spec` (header keys
/// partition-spec / partition-spec-id). Returns its list entry (path `file.uri`) with counts, exact length
/// and partition field summaries; `sequence_number`/`added_snapshot_id` set from the
/// arguments (the snapshot adding it).
Result<ManifestFile> WriteManifest(io::FileSystem* fs, const TableFile& file, const Schema& schema,
                                   const PartitionSpec& spec, const std::vector<ManifestEntry>& entries,
                                   int64_t snapshot_id, int64_t sequence_number);

/// Reads a manifest's entries with inherited snapshot ids and sequence numbers filled in.
Result<std::vector<ManifestEntry>> ReadManifest(io::FileSystem* fs, const ManifestFile& manifest);

/// Writes a manifest list to local path `path`, create-only, with the v2 header keys.
Status WriteManifestList(io::FileSystem* fs, const std::string& path, int64_t snapshot_id,
                         std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                         const std::vector<ManifestFile>& manifests);

Result<std::vector<ManifestFile>> ReadManifestList(io::FileSystem* fs, const std::string& uri);

/// The Avro schemas (JSON text) of manifest entries (with `partition_type`, the r102 record of
/// PartitionAvroType) and manifest list entries.
std::string ManifestEntryAvroSchema(const nlohmann::json& partition_type);
const std::string& ManifestFileAvroSchema();

}  // namespace sluice::iceberg
