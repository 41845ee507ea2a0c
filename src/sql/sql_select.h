// SELECT ... FROM table [WHERE ...] -> a DataFrame, built through the public DataFrame API
// (scan, then filter(WHERE), then select(list)), so the plan is the one the equivalent C++
// builds (FROM with joins: sql_join.h); GROUP BY in sql_aggregate.h, ORDER BY and LIMIT in sql_order.h.
// Everything else a SELECT may hold (DISTINCT ON, OFFSET,
// UNION, subqueries, window functions) is refused with a located error.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "sluice/dataframe.h"
#include "sql/sql_connectors.h"
#include "sql/sql_script.h"
#include "sql/sql_text.h"

namespace sluice::sql {

struct PlannedSelect {
  DataFrame frame;
  /// Where each output column comes from in the text (a `*` gives every column it expands to
  /// the star's location).
  std::vector<int> column_locations;
};

/// Plans the SelectStmt node body `select` of a statement spanning bytes [begin, end).
Result<PlannedSelect> PlanSelect(const nlohmann::json& select, int begin, int end, const Script& script,
                                 const SqlText& text, const ConnectorContext& ctx);

/// Reads table `table` through its connector; engine errors are located at the option they
/// name, else at `use_location` (where the table is used). Used for FROM.
Result<DataFrame> ReadTable(const TableDecl& table, int use_location, const SqlText& text, const ConnectorContext& ctx);

/// The table options event_time and watermark as withWatermark on `df` (the table's scan).
Result<DataFrame> ApplyEventTime(const TableDecl& table, const DataFrame& df, const SqlText& text);

/// Locates an engine error about `table`'s options: at the option whose name the message
/// quotes ('maxFilesPerTrigger'), else at `fallback_location`. Lists of valid options get the
/// SQL-level ones (connector, format, path) added.
Status LocateTableError(const TableDecl& table, const Status& error, int fallback_location, const SqlText& text);

}  // namespace sluice::sql
