// Batch reads of Iceberg tables: session.read().table("catalog.ns.table") and
// read().format("iceberg").load(name) read the current snapshot's data files.
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>

#include "io/file_system.h"
#include "plan/logical_plan.h"

namespace sluice::source {

/// A scan spec (format "iceberg", path = the table name as given) whose options carry the
/// table's catalog settings, taken from the session conf.
Result<std::shared_ptr<plan::SourceSpec>> MakeIcebergScanSpec(const std::string& table,
                                                              const std::map<std::string, std::string>& options,
                                                              const std::function<std::string(const std::string&)>& conf);

/// The table's current schema as Arrow (with field ids).
Result<std::shared_ptr<arrow::Schema>> IcebergTableSchema(const plan::SourceSpec& spec,
                                                          const std::shared_ptr<io::FileSystem>& fs);
/// The id of the table's current snapshot (nullopt: the table has none yet).
Result<std::optional<int64_t>> IcebergCurrentSnapshotId(const plan::SourceSpec& spec,
                                                        const std::shared_ptr<io::FileSystem>& fs);
/// The rows of snapshot `snapshot_id` (nullopt: the empty table), refused when it has expired.
Result<std::shared_ptr<arrow::Table>> ReadIcebergSnapshot(const plan::SourceSpec& spec,
                                                          const std::shared_ptr<io::FileSystem>& fs,
                                                          std::optional<int64_t> snapshot_id);
/// The current snapshot's rows.
Result<std::shared_ptr<arrow::Table>> ReadIcebergTable(const plan::SourceSpec& spec,
                                                       const std::shared_ptr<io::FileSystem>& fs);

}  // namespace sluice::source
