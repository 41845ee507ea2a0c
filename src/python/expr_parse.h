// SQL expression text -> Column (Spark's expr() and selectExpr()), through the SQL layer's
// parser and translator so the text means exactly what it means in a sluice SQL pipeline.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "sluice/column.h"
#include "sluice/status.h"

namespace sluice::python {

/// One expression, optionally followed by `AS name`. `schema` (may be null) gives columns
/// their spelling when the text's case differs (SQL identifiers are case-insensitive).
/// Errors quote the text and point at the fault.
Result<Column> ParseColumnExpression(const std::string& sql, const std::shared_ptr<arrow::Schema>& schema);

/// The SQL function `name` applied to `args`, exactly as `name(args...)` in a sluice SQL
/// pipeline (aggregates, aliases such as `every`, literal-argument checks). Errors name the call.
Result<Column> CallSqlFunction(const std::string& name, const std::vector<Column>& args);

/// Every function name sluice's SQL accepts (the names functions.py must wrap or list).
std::vector<std::string> SqlFunctionNames();

}  // namespace sluice::python
