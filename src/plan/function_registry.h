// The scalar function table: one FunctionTyping entry per function beyond the core vocabulary
// of plan/expr.h (math, conditional, strings, regular expressions, dates and times), grouped
// in one file per family (function_types_<family>.cc). The evaluator has the matching table of
// kernels (exec/expr_function_table.h); a unit test keeps the two tables equal, and the SQL
// layer accepts every name registered here.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "plan/expr.h"
#include "plan/expr_resolve.h"

namespace sluice::plan {

struct FunctionTyping {
  std::string name;    // the kCall name, as Spark spells the function
  size_t min_args;
  size_t max_args;     // SIZE_MAX: any number
  std::string usage;   // "round(x[, scale])": for messages and docs
  /// Types the call; called only with min_args..max_args resolved arguments.
  Result<CallSignature> (*resolve)(const Expr& call, const arrow::FieldVector& args);
};

/// The entry called `name`, or null.
const FunctionTyping* FindFunctionTyping(const std::string& name);
/// Every entry, in registration order (family by family).
const std::vector<FunctionTyping>& RegisteredFunctions();

/// The families (each defined in its own function_types_<family>.cc).
std::vector<FunctionTyping> MathFunctionTypings();
std::vector<FunctionTyping> ConditionalFunctionTypings();
std::vector<FunctionTyping> StringFunctionTypings();
std::vector<FunctionTyping> DateTimeFunctionTypings();
std::vector<FunctionTyping> NestedFunctionTypings();
std::vector<FunctionTyping> JsonFunctionTypings();

// Helpers the family files share (defined in expr_resolve.cc beside the core rules).

/// "cannot apply '<op>' to <types> in <call>".
Status TypeMismatch(const std::string& op, const Expr& call, const arrow::FieldVector& args);
/// True when any argument is nullable.
bool AnyNullable(const arrow::FieldVector& args);
/// The non-null literal args[i] when `accept` takes its type, or an error naming the argument.
Result<std::shared_ptr<arrow::Scalar>> LiteralArg(const Expr& call, size_t i, bool (*accept)(const arrow::DataType&),
                                                  const char* what);
bool IsNullType(const arrow::DataType& t);
/// args[i] typed as a string (NULL as utf8), or a type error naming the call.
Result<std::shared_ptr<arrow::DataType>> StringArg(const Expr& call, const arrow::FieldVector& args, size_t i);
/// args[i] is an integer or NULL (then it is cast to int32), or a type error naming the call.
Status IntegerArg(const Expr& call, const arrow::FieldVector& args, size_t i);

// Shared by the nested-type typing and kernels.

/// The index of field `name` of the struct `type` (exact match first, then ignoring case, as
/// Spark); errors name the field and list the struct's fields.
Result<int> FindStructField(const Expr& call, const arrow::DataType& type, const std::string& name);
/// The struct type from_json's DDL literal (call.args[1]) describes.
Result<std::shared_ptr<arrow::DataType>> FromJsonSchema(const Expr& call);

}  // namespace sluice::plan
