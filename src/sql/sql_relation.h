// Queries used as relations: views and WITH (common table expressions) named in FROM, subqueries
// in FROM, and UNION ALL of two queries. Each is planned in place with PlanSelect and its
// DataFrame becomes the input of the query around it (inlined, as Spark inlines a view or a
// CTE): nothing is materialised, and a streaming view read by two INSERTs gives two queries,
// each with its own checkpoint.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "sql/sql_select.h"

namespace sluice::sql {

/// `script` with the CTEs of the SelectStmt body `select`'s WITH clause added as views (each
/// seeing the ones before it; WITH RECURSIVE refused). `script` itself when there is none.
Result<Script> ScopeWithCtes(const nlohmann::json& select, const Script& script, const SqlText& text);

/// The view or CTE `name` planned, or nullopt when no view has that name. It sees only the
/// views declared before it.
Result<std::optional<DataFrame>> PlanView(const std::string& name, int use_location, const Script& script,
                                          const SqlText& text, const ConnectorContext& ctx);

/// The RangeSubselect body `subselect` of FROM (SELECT ...) [AS alias], planned; `*alias` gets
/// the alias (empty when none).
Result<DataFrame> PlanSubquery(const nlohmann::json& subselect, int begin, int end, const Script& script,
                               const SqlText& text, const ConnectorContext& ctx, std::string* alias);

/// A SelectStmt body whose op is not SETOP_NONE: UNION ALL is planned (DataFrame::unionAll),
/// UNION as UNION ALL then a GROUP BY every column (streams too), INTERSECT and EXCEPT (batch
/// only) as a count of each distinct row per side; INTERSECT ALL / EXCEPT ALL are refused.
Result<PlannedSelect> PlanSetOperation(const nlohmann::json& select, int begin, int end, const Script& script,
                                       const SqlText& text, const ConnectorContext& ctx);

}  // namespace sluice::sql
