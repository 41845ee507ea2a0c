// Typing rules of the expression vocabulary, shared by ResolveExpr (plan time) and the
// evaluator (exec time) so that evaluation returns exactly the type resolution promised.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "plan/expr.h"

namespace sluice::plan {

/// The field of `input` called `name` (exact, case-sensitive match). Errors name the column,
/// list the available ones and suggest a close match.
Result<std::shared_ptr<arrow::Field>> FindColumn(const std::string& name, const arrow::Schema& input);

/// How a call runs: each argument is cast to arg_types[i] before the kernel, and the kernel's
/// result has type `out`.
struct CallSignature {
  std::vector<std::shared_ptr<arrow::DataType>> arg_types;
  std::shared_ptr<arrow::DataType> out;
  bool nullable = true;
};

/// Types `call` (a kCall node) given the resolved fields of its arguments. Errors name the
/// expression text and the argument types.
Result<CallSignature> ResolveCall(const Expr& call, const arrow::FieldVector& args);

/// Checks that CAST(<from> AS cast.type) is supported.
Status CheckCast(const Expr& cast, const arrow::DataType& from);

/// The type both sides of a comparison (or the branches of CASE/coalesce/IN) are cast to, or
/// nullptr when they are not comparable. Numbers widen (int < bigint < decimal < double), a
/// string meets a date/timestamp as that date/timestamp, NULL meets anything.
std::shared_ptr<arrow::DataType> CommonType(const std::shared_ptr<arrow::DataType>& a,
                                            const std::shared_ptr<arrow::DataType>& b);

/// Translates a Spark datetime pattern ("yyyy-MM-dd HH:mm:ss", "dd/MM/yyyy") to a strptime
/// format; errors name unsupported pattern letters.
Result<std::string> SparkPatternToStrptime(const std::string& pattern);

/// Timestamp text with more than six fractional digits cut to microseconds, as Spark reads it
/// ("2024-01-01 00:00:00.123456789" -> "...00.123456"); returns false when there was nothing to cut.
bool TruncateFractionToMicros(std::string* text);

/// Units date_trunc accepts, lower-case: year, quarter, month, week, day, hour, minute, second
/// (plus Spark's aliases yyyy, yy, mon, mm, dd).
Result<std::string> NormalizeTruncUnit(const std::string& unit);

/// The timestamp type of the time functions' results: timestamp(us, "UTC").
std::shared_ptr<arrow::DataType> DefaultTimestampType();

bool IsIntegerType(const arrow::DataType& t);
bool IsNumericType(const arrow::DataType& t);
bool IsStringType(const arrow::DataType& t);
bool IsTemporalType(const arrow::DataType& t);

}  // namespace sluice::plan
