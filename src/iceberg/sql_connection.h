// The few SQL operations the JDBC-style catalog needs, over SQLite (sqlite3) or PostgreSQL
// (libpq). Statements use '?' placeholders; parameters and results are text (or NULL).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::iceberg {

using SqlValue = std::optional<std::string>;  // nullopt = SQL NULL
using SqlRow = std::vector<SqlValue>;

struct SqlResult {
  std::vector<SqlRow> rows;
  int64_t affected = 0;  // rows changed by INSERT/UPDATE/DELETE
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  /// Runs one statement. A unique-key violation is reported as AlreadyExists.
  virtual Result<SqlResult> Exec(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
};

/// Opens a connection from a catalog URI:
///   sqlite:///relative.db, sqlite:////abs/path.db (SQLAlchemy's rules, as PyIceberg reads
///   them), jdbc:sqlite:/abs/path.db;
///   postgresql://user:pw@host:port/db (also postgresql+driver://..., jdbc:postgresql://...).
Result<std::unique_ptr<SqlConnection>> OpenSqlConnection(const std::string& uri);

}  // namespace sluice::iceberg
