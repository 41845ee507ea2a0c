// Internal to exec/: how each function of the expression vocabulary runs on Arrow compute.
// Arguments arrive already cast to the CallSignature's arg_types.
#pragma once

#include <arrow/compute/api.h>
#include <arrow/datum.h>

#include <string>
#include <vector>

#include "plan/expr.h"
#include "plan/expr_resolve.h"

namespace sluice::exec::internal {

/// Runs an Arrow compute function by name.
Result<arrow::Datum> Kernel(const std::string& fn, const std::vector<arrow::Datum>& args,
                            const arrow::compute::FunctionOptions* options = nullptr);

/// Spark's non-ANSI CAST: text that does not parse as the target type becomes NULL; other
/// failures (overflow, unsupported) are errors. string -> timestamp accepts the ISO-8601 forms.
Result<arrow::Datum> SparkCast(const arrow::Datum& value, const std::shared_ptr<arrow::DataType>& to);

/// Runs `call` over its evaluated, cast arguments (arithmetic, comparison, logic, CASE, IN,
/// strings); returns NotImplemented for names it does not handle.
Result<arrow::Datum> RunScalarFunction(const plan::Expr& call, const std::vector<arrow::Datum>& args,
                                       const plan::CallSignature& sig);

/// The time functions: to_timestamp, date_trunc, year .. second, dayofweek.
Result<arrow::Datum> RunTimeFunction(const plan::Expr& call, const std::vector<arrow::Datum>& args,
                                     const plan::CallSignature& sig);

}  // namespace sluice::exec::internal
