// ORDER BY and LIMIT of a SELECT: applied to the SELECT's result through DataFrame::orderBy and
// limit, so the plan is the one the equivalent C++ builds (Sort / Limit at the top). Whether a
// stream may sort or limit (complete mode over an aggregation) is the output-mode check's
// business, not the planner's.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "sluice/dataframe.h"
#include "sql/sql_aggregate.h"
#include "sql/sql_expr.h"
#include "sql/sql_text.h"

namespace sluice::sql {

/// `frame` (the result of the SelectStmt body `select`, whose select list is `items`, written
/// over `translator`'s input) with its ORDER BY and LIMIT applied. A sort key is a result
/// column (by name or alias), a position (ORDER BY 1), a select item written again (ORDER BY
/// count(*) when count(*) AS n is selected), or an expression over result columns; ASC / DESC
/// and NULLS FIRST / LAST as Spark (ASC puts NULLs first, DESC last). LIMIT takes an integer
/// literal >= 0. OFFSET is refused. Errors are located at the key or the LIMIT value.
Result<DataFrame> ApplyOrderByAndLimit(const nlohmann::json& select, int begin, const DataFrame& frame,
                                       const std::vector<SelectItem>& items, ExprTranslator& translator,
                                       ExprTranslator& result_translator, const SqlText& text);

}  // namespace sluice::sql
