// Catalogs: where a table's current metadata file is recorded, and the atomic step that makes
// a new metadata file current (the commit).
//
//   hadoop: <warehouse>/<ns...>/<table>/metadata/vN.metadata.json + version-hint.text; the
//           commit creates vN+1 exclusively (a concurrent writer that got there first wins).
//   sql:    Iceberg's JDBC catalog tables (iceberg_tables, iceberg_namespace_properties), as
//           PyIceberg's SqlCatalog and Java's JdbcCatalog use them; SQLite ("sqlite:///abs.db")
//           or PostgreSQL ("postgresql://..."); the commit is a compare-and-swap UPDATE on
//           metadata_location.
//
// Thread-safety: a Catalog may be used from one thread at a time; several processes (or
// Catalog objects) may commit to one table concurrently — that is what the CAS is for.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "iceberg/metadata.h"
#include "io/file_system.h"

namespace sluice::iceberg {

struct TableIdent {
  std::vector<std::string> ns;
  std::string name;

  std::string NamespaceString() const;  // "db" or "a.b"
  std::string ToString() const;         // "db.events"
};

/// A table's metadata as of one load, and the file it came from.
struct LoadedTable {
  TableMetadata metadata;
  std::string metadata_location;  // URI
};

/// Status of a commit that lost to a concurrent one (retry on a fresh load).
Status CommitConflict(const std::string& message);
bool IsCommitConflict(const Status& st);

class Catalog {
 public:
  virtual ~Catalog() = default;
  virtual const std::string& name() const = 0;

  /// The table's current metadata; nullopt when the table does not exist.
  virtual Result<std::optional<LoadedTable>> Load(const TableIdent& ident) = 0;
  /// Creates the table (format-version 2, partitioned by `spec`, unpartitioned when it has no
  /// fields). AlreadyExists when it exists.
  virtual Result<LoadedTable> Create(const TableIdent& ident, const Schema& schema,
                                     const std::map<std::string, std::string>& properties,
                                     const PartitionSpec& spec = PartitionSpec{}) = 0;
  /// Writes `updated` as a new metadata file and makes it current if the table's current
  /// metadata is still `base`; CommitConflict otherwise (then the new file is left unreferenced).
  /// Fault points: "iceberg_after_metadata_file" (file written, not yet current) and
  /// "iceberg_after_catalog_commit" (current).
  virtual Result<LoadedTable> Commit(const TableIdent& ident, const LoadedTable& base, TableMetadata updated) = 0;
  /// Tables in a namespace.
  virtual Result<std::vector<std::string>> ListTables(const std::vector<std::string>& ns) = 0;
};

/// Catalog properties: "type" (hadoop | sql; default hadoop), "warehouse" (path or file:// URI),
/// "uri" (sql only).
Result<std::shared_ptr<Catalog>> MakeCatalog(const std::string& name, const std::map<std::string, std::string>& props,
                                             std::shared_ptr<io::FileSystem> fs);

/// "file:///abs" or a path -> absolute local path.
std::string WarehousePath(const std::string& warehouse);

}  // namespace sluice::iceberg
