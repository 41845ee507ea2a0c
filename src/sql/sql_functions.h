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
  std::vector<int> arg_locations;
  int location = -1;
};

/// The Expr for `call`, or a located error naming the function: unknown (listing the
/// available ones), an aggregate (not available until stateful streaming), a wrong number of
/// arguments, or an argument that must be a literal.
Result<plan::ExprPtr> BuildFunctionCall(const SqlFunctionCall& call, const SqlText& text);

/// Every function name SQL accepts, sorted (docs and "available functions" in errors).
std::vector<std::string> SqlFunctionNames();

}  // namespace sluice::sql
