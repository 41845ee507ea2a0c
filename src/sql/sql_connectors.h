// Connectors: what `WITH (connector = '...')` means. A connector turns a table declaration
// into a DataFrame to read (FROM) and/or into writer arguments (INSERT INTO). Adding one is
// one function returning a SqlConnector plus one line in the list of sql_connectors.cc (or a
// RegisterSqlConnector call before the pipeline is compiled).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sluice/dataframe.h"
#include "sluice/session.h"
#include "sql/sql_script.h"

namespace sluice::sql {

struct ConnectorContext {
  std::shared_ptr<Session> session;
  bool streaming = true;  // readStream() (sluice run) vs read() (sluice batch)
  /// spark.sql over temporary views (sql_query.h): FROM names these DataFrames (keys FoldCase'd)
  /// instead of declared tables; null in pipeline files.
  const std::map<std::string, DataFrame>* views = nullptr;
};

/// Where a query's rows go: the arguments of writeStream()/write(). For files, the options
/// include "path".
struct SinkTarget {
  std::string format;  // parquet | json | csv | console | memory (DataStreamWriter formats)
  std::map<std::string, std::string> options;
};

struct SqlConnector {
  std::string name;  // lower case, as written in `connector = '...'`
  /// A DataFrame over the table; null when the connector cannot be read from. Errors are the
  /// engine's; the SQL layer locates them at the option they quote (or at the table).
  std::function<Result<DataFrame>(const TableDecl&, const ConnectorContext&)> read;
  /// The writer arguments for INSERT INTO the table; null when it cannot be written to.
  std::function<Result<SinkTarget>(const TableDecl&)> write;
  /// Non-empty: the connector is planned but not built; every use fails with this note.
  std::string unavailable;
};

/// The connector named `name` (case-insensitive), or null when unknown.
std::shared_ptr<const SqlConnector> FindSqlConnector(const std::string& name);
/// Names of the connectors that work now, sorted; and of those announced but not built.
std::vector<std::string> AvailableConnectorNames();
std::vector<std::string> PlannedConnectorNames();
/// Adds a connector or replaces the one with the same name (e.g. a planned one). Thread-safe;
/// call before compiling pipelines.
void RegisterSqlConnector(SqlConnector connector);

// The built-in connectors (sql_connectors.cc).
SqlConnector FilesConnector();
SqlConnector ConsoleConnector();
SqlConnector MemoryConnector();
/// rate, rate-micro-batch, socket: stream-only sources with a fixed schema.
SqlConnector GeneratedConnector(const std::string& name);
SqlConnector IcebergConnector();
SqlConnector KafkaConnector();

}  // namespace sluice::sql
