// SQL function calls -> the expression vocabulary (plan::kFunctionNames), with the argument
// layouts the C++ Column API uses (e.g. substring's position and length as int64 literals).
#pragma once

#include <string>
#include <vector>

#include "plan/expr.h"
#include "sql/sql_text.h"

namespace sluice::sql {

struct SqlFunctionCall {
  std::string name;  // lower case, without "pg_catalog."
  std::vector<plan::ExprPtr> args;
  bool star = false;      // f(*)
  bool distinct = false;  // f(DISTINCT x)
  plan::ExprPtr filter;   // f(...) FILTER (WHERE filter)
  std::vector<int> arg_locations;
  int location = -1;
};

/// The Expr for `call`, or a located error naming the function: unknown (listing the
/// available ones), an unsupported aggregate, a wrong number of arguments, or an argument that
/// must be a literal. Aggregates give the calls plan::PlanAggregation knows (count(*) is
/// count(<int64 1>), count(DISTINCT x) is count_distinct(x)); the window functions tumble(ts,
/// size), hop(ts, slide, size) and session(ts, gap) give window(ts, size[, slide]) and
/// session_window(ts, gap), their sizes being string literals ('10 minutes').
Result<plan::ExprPtr> BuildFunctionCall(const SqlFunctionCall& call, const SqlText& text);

/// True for the SQL names of event-time window functions (tumble, hop, session, window,
/// session_window): their size arguments are interval literals, and they may only be used as
/// grouping expressions.
bool IsSqlWindowFunction(const std::string& name);

/// True for the SQL names of aggregate functions (count, sum, ..., stddev, every).
bool IsSqlAggregate(const std::string& name);

/// Every function name SQL accepts, sorted (docs and "available functions" in errors).
std::vector<std::string> SqlFunctionNames();

}  // namespace sluice::sql
