// A pipeline file's statements, read from libpg_query's tree: table declarations (CREATE
// TABLE ... WITH (...)), session settings (SET) and queries (INSERT INTO ... SELECT, bare
// SELECT). Nothing is resolved against files or schemas here; see sql_pipeline.h.
#pragma once

#include <arrow/type_fwd.h>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sluice/status.h"
#include "sql/sql_text.h"

namespace sluice::sql {

/// One `key = value` of a WITH clause. `key` is the engine's spelling: snake_case is turned
/// into Spark's camelCase (max_files_per_trigger -> maxFilesPerTrigger); other keys keep the
/// user's spelling (the engine matches option names case-insensitively).
struct TableOption {
  std::string key;
  std::string written_key;  // as in the file, for messages
  std::string value;
  int location = -1;
};

/// One element of CREATE TABLE's PARTITIONED BY (...): a column (`dt`) or a transform call
/// (`day(ts)`, `bucket(16, user_id)`), whose arguments are columns and integer literals.
struct PartitionElement {
  std::string column;     // the column, or the transform's column argument
  std::string transform;  // lower case; empty for a plain column
  std::vector<int64_t> parameters{};  // the transform's integer arguments, in order
  int location = -1;

  /// "dt", "day(ts)", "bucket(16, user_id)".
  std::string ToString() const;
};

/// CREATE TABLE name (columns) [PARTITIONED BY (...)] WITH (connector = '...', ...).
struct TableDecl {
  std::string name;  // as written
  int location = -1;
  /// Declared columns; null for `CREATE TABLE name ()` (a sink taking the query's schema).
  std::shared_ptr<arrow::Schema> schema;
  std::vector<int> column_locations;
  std::string connector;  // lower case
  int connector_location = -1;
  /// Every option but `connector`, in file order.
  std::vector<TableOption> options;
  /// PARTITIONED BY (...), in order; empty when absent.
  std::vector<PartitionElement> partitioned_by{};
  int partitioned_by_location = -1;

  /// The option `key` (engine spelling, case-insensitive), or null.
  const TableOption* Find(const std::string& key) const;
};

/// SET key = value: session configuration for every query of the file.
struct SetStmt {
  std::string key;
  std::string value;
  int location = -1;
};

/// INSERT INTO sink SELECT ... (sink set) or a bare SELECT (sink empty: the console).
struct QueryStmt {
  std::string sink;  // table name as written; empty for a bare SELECT
  int sink_location = -1;
  nlohmann::json select;  // the SelectStmt node body
  int location = -1;      // start of the statement
  int end = -1;           // one past its last byte
  bool describe = false;  // DESCRIBE [TABLE] t (read as SELECT * FROM t): print the columns
};

/// A named query: CREATE [TEMP] VIEW name AS SELECT ..., or a WITH name AS (SELECT ...) of
/// one query. Used in FROM, it is planned in place (inlined), seeing only the views declared
/// before it, so a view cannot refer to itself.
struct ViewDecl {
  std::string name;  // as written
  int location = -1;
  nlohmann::json select;  // the SelectStmt node body
  int end = -1;           // one past the last byte of its statement
  bool cte = false;       // from WITH
};

struct Script {
  std::vector<TableDecl> tables;
  std::vector<SetStmt> settings;
  std::vector<QueryStmt> queries;
  std::vector<ViewDecl> views;  // in declaration order; a later one shadows an earlier one

  /// Case-insensitive, like SQL identifiers; null when not declared.
  const TableDecl* FindTable(const std::string& name) const;
  /// The last declared view (or CTE) called `name`, case-insensitive; null when none.
  const ViewDecl* FindView(const std::string& name) const;
};

/// Reads every statement of `text`. Errors (syntax, unsupported statement kinds, duplicate
/// tables, malformed WITH clauses) are located in `text`.
Result<Script> ParseScript(const SqlText& text);

/// "max_files_per_trigger" -> "maxFilesPerTrigger"; a key without '_' is returned unchanged.
std::string SnakeToCamel(const std::string& key);

}  // namespace sluice::sql
