// Internal to exec/: how each function of the expression vocabulary runs on Arrow compute.
// Arguments arrive already cast to the CallSignature's arg_types.
#pragma once

#include <arrow/compute/api.h>
#include <arrow/datum.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plan/expr.h"
#include "plan/expr_resolve.h"

namespace sluice::exec::internal {

inline constexpr int64_t kMicrosPerSecond = 1000000;

/// Runs an Arrow compute function by name.
Result<arrow::Datum> Kernel(const std::string& fn, const std::vector<arrow::Datum>& args,
                            const arrow::compute::FunctionOptions* options = nullptr);

/// Spark's CAST in `mode`: under kAnsi a value that does not parse or does not fit fails with
/// Spark's error class (CAST_INVALID_INPUT, CAST_OVERFLOW, NUMERIC_VALUE_OUT_OF_RANGE); kLegacy
/// gives NULL (unparsable text, decimal overflow), wraps (integer narrowing) or saturates
/// (fractional -> integer). Timestamps <-> numbers are seconds (floored); decimals round half
/// away from zero; string -> timestamp accepts the ISO-8601 forms, fractions beyond
/// microseconds truncated.
Result<arrow::Datum> SparkCast(const arrow::Datum& value, const std::shared_ptr<arrow::DataType>& to,
                               plan::EvalMode mode = plan::EvalMode::kAnsi);

/// Runs `call` over its evaluated, cast arguments (arithmetic, comparison, logic, CASE, IN,
/// strings); returns NotImplemented for names it does not handle.
Result<arrow::Datum> RunScalarFunction(const plan::Expr& call, const std::vector<arrow::Datum>& args,
                                       const plan::CallSignature& sig);

/// `text` read with a Spark datetime pattern as a naive timestamp[us] (UTC). Under kAnsi a
/// non-null text that does not match fails with CANNOT_PARSE_TIMESTAMP; kLegacy gives NULL.
Result<arrow::Datum> ParseTimestampPattern(const arrow::Datum& text, const std::string& pattern, plan::EvalMode mode);

/// The time functions: to_timestamp, date_trunc, year .. second, dayofweek.
Result<arrow::Datum> RunTimeFunction(const plan::Expr& call, const std::vector<arrow::Datum>& args,
                                     const plan::CallSignature& sig);

}  // namespace sluice::exec::internal
