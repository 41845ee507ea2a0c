// Producing a new snapshot from a base table metadata: append (fast append), overwrite of the
// whole table, and replace (rewrite of given files), as the Iceberg spec's snapshot operations.
//
// ApplySnapshotChange writes the new manifest(s) and the manifest list, then returns the new
// metadata. It does not publish anything: a catalog commit does (catalog.h). If that commit
// loses to a concurrent writer, call it again on the refreshed base; the files written for
// the lost attempt are then unreferenced (orphans that snapshot expiry does not see).
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "iceberg/data_file.h"
#include "iceberg/location.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "io/file_system.h"

namespace sluice::iceberg {

struct SnapshotChange {
  enum class Kind {
    kAppend,     // add files; keep every manifest of the parent
    kOverwrite,  // add files; delete every live file of the parent
    kReplace,    // add files; delete the files in `removed` (same logical rows: compaction)
  };
  Kind kind = Kind::kAppend;
  std::vector<DataFile> added;
  std::set<std::string> removed;  // kReplace: file paths (URIs) to delete
  /// Extra summary properties (e.g. spark.sql.streaming.queryId / epochId).
  std::map<std::string, std::string> summary;
};

/// The live data files of a snapshot (ADDED or EXISTING entries of its manifests), with their
/// data sequence numbers. None for a table without a current snapshot.
Result<std::vector<ManifestEntry>> LiveEntries(io::FileSystem* fs, const TableMetadata& metadata);

/// Writes the manifests and manifest list of `change` on top of `base` (whose metadata file is
/// `base_metadata_file`, recorded in the metadata log) and returns the new metadata.
/// Fault point "iceberg_after_manifests" is reached after the manifest list is written.
Result<TableMetadata> ApplySnapshotChange(io::FileSystem* fs, const TableMetadata& base,
                                          const std::string& base_metadata_file, const SnapshotChange& change);

/// Walks the current snapshot's ancestry (parent-snapshot-id links, newest first) and returns
/// the first snapshot `match` accepts; null when none.
const Snapshot* FindInAncestry(const TableMetadata& metadata, const std::function<bool(const Snapshot&)>& match);

}  // namespace sluice::iceberg
