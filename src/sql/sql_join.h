// FROM with joins: `s JOIN d ON ...`, LEFT/RIGHT/FULL [OUTER] JOIN, Spark's LEFT SEMI JOIN and
// LEFT ANTI JOIN, JOIN ... USING (...), CROSS JOIN, over declared tables, views, WITH names and
// aliased subqueries (nested joins too).
// A table declared WITH (static = true), or an Iceberg table, is read with read() (the static
// side of a stream-static join); the others as the query reads them (readStream() in `sluice
// run`). Columns both sides have are renamed "<table or alias>.<column>" before the join, so
// `s.id` and `d.id` stay apart; a qualified reference finds them (sql_expr.cc) and a selected
// one is named by its column alone, as in Spark.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sluice/dataframe.h"
#include "sql/sql_connectors.h"
#include "sql/sql_script.h"
#include "sql/sql_text.h"

namespace sluice::sql {

struct JoinedFrom {
  DataFrame frame;
  /// Every table name and alias of the join (what columns may be qualified with).
  std::vector<std::string> names;
  int location = -1;  // where the first table is named
};

/// Plans the JoinExpr node body `join` of a FROM clause (statement starting at `begin`).
Result<JoinedFrom> PlanJoinedFrom(const nlohmann::json& join, int begin, const Script& script, const SqlText& text,
                                  const ConnectorContext& ctx);

/// True when `table` is read with read() even in a streaming query: WITH (static = true), or an
/// Iceberg table. Errors name a `static` value that is not true or false.
Result<bool> IsStaticTable(const TableDecl& table);

/// True when column `name` of a joined schema is one the join renamed ("s.id"): a select item
/// reading it is then named by the part after the dot.
bool IsJoinQualifiedColumn(const std::string& name);

}  // namespace sluice::sql
