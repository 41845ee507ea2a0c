// SELECT ... GROUP BY ... HAVING ... and global aggregates -> plan::PlanAggregation, the
// function the C++ groupBy(...).agg(...) goes through, so SQL and C++ build the same plan.
// GROUP BY takes expressions, select-list aliases and positions (GROUP BY 1), and at most one
// event-time window (tumble / hop / session, translated by sql_functions.cc). Every error is
// located at the select item, column, aggregate or window call at fault.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "plan/expr.h"
#include "sluice/dataframe.h"
#include "sql/sql_expr.h"
#include "sql/sql_text.h"

namespace sluice::sql {

/// One item of the select list, translated (aliased when written with AS).
struct SelectItem {
  plan::ExprPtr expr;
  int location = -1;
};

/// True when the SELECT aggregates: it has GROUP BY or HAVING, or an item calls an aggregate.
bool IsAggregation(const nlohmann::json& select, const std::vector<SelectItem>& items);

/// Refuses aggregate calls and window functions in `e`, an expression of `clause` (WHERE,
/// SELECT of a query without aggregation), located at the call.
Status RefuseAggregatesAndWindows(const plan::ExprPtr& e, const std::string& clause, const ExprTranslator& translator,
                                  const SqlText& text);

/// Plans the aggregation of the SelectStmt body `select` over `input` (FROM and WHERE already
/// applied); `translator` translated `items` against input's schema. Returns the DataFrame and
/// sets `*locations` to where each output column comes from.
Result<DataFrame> PlanGroupedSelect(const DataFrame& input, const nlohmann::json& select, std::vector<SelectItem> items,
                                    ExprTranslator& translator, const SqlText& text, int begin,
                                    std::vector<int>* locations);

}  // namespace sluice::sql
