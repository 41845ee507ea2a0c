// Logical expressions: immutable trees built by the C++ Column API (and later by the SQL
// front end). They name columns and functions; resolution against a schema (types, errors
// naming the column) lives in plan/expr_resolve.h, evaluation over Arrow batches in
// exec/expr_eval.h.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::plan {

struct Expr;
using ExprPtr = std::shared_ptr<const Expr>;

/// How a cast or an arithmetic call treats bad values, as Spark's `spark.sql.ansi.enabled`:
/// kAnsi (Spark 4's default) fails the query (CAST_INVALID_INPUT, CAST_OVERFLOW, DIVIDE_BY_ZERO,
/// ARITHMETIC_OVERFLOW, NUMERIC_VALUE_OUT_OF_RANGE); kLegacy gives Spark's non-ANSI results (NULL
/// for unparsable text and division by zero, wrap-around for integer overflow, saturation for
/// a fractional value too large for an integer type).
/// kTry (only on a kCast node: try_cast) is kAnsi with NULL instead of every error.
enum class EvalMode { kAnsi, kLegacy, kTry };

struct Expr {
  enum class Kind {
    kColumn,   // name = column name ("*" = all columns)
    kLiteral,  // value (a typed null is a null scalar of that type)
    kCall,     // name = function in our vocabulary (kFunctionNames below), args
    kCast,     // args[0], type
    kAlias,    // args[0], name = new column name
  };

  Kind kind;
  std::string name;
  std::shared_ptr<arrow::Scalar> value;
  std::shared_ptr<arrow::DataType> type;
  std::vector<ExprPtr> args;
  /// Only read for kCast and kCall nodes. Not part of ToString() (the mode is session
  /// configuration, not the query's identity), except kTry: TRY_CAST(...) is what the query says.
  EvalMode mode = EvalMode::kAnsi;

  /// Canonical text used in plans, explain output and checkpoint fingerprints.
  std::string ToString() const;

  static ExprPtr Column(std::string name);
  static ExprPtr Literal(std::shared_ptr<arrow::Scalar> value);
  static ExprPtr Call(std::string fn, std::vector<ExprPtr> args);
  static ExprPtr Cast(ExprPtr arg, std::shared_ptr<arrow::DataType> type);
  static ExprPtr Alias(ExprPtr arg, std::string name);
};

/// The function vocabulary of kCall nodes (the SQL front end produces the same names):
///   arithmetic  "+" "-" "*" "/" "%" (binary), "negative" (unary)
///   comparison  "=" "!=" "<" "<=" ">" ">="
///   logic       "and" "or" "not" (SQL three-valued), "isnull" "isnotnull"
///   "in"        args = [x, v1, v2, ...]
///   "like" "ilike" args = [x, pattern (string literal)]
///   "coalesce"  args = [a, b, ...]
///   "casewhen"  args = [c1, v1, c2, v2, ..., (else)]: an odd count means ELSE is present
///   strings     "upper" "lower" "length" "trim" "concat" (n args),
///               "substring" [s, pos (1-based), len] (integers, literals or columns)
///   time        "to_timestamp" [s, (format literal)], "date_trunc" [unit literal, ts],
///               "year" "month" "dayofmonth" "hour" "minute" "second" "dayofweek",
///               "second_with_fraction" (EXTRACT(SECOND ...): DECIMAL(8,6))
///   aggregates  "count" "count_distinct" "sum" "avg" "min" "max" "first" "last" [x]: only in an
///               Aggregate node (plan/aggregate.h); count(*) is count(1)
///   windows     "window" [ts, size (string literal)[, slide]], "session_window" [ts, gap]: only as
///               grouping expressions
///   the function table: plan/function_registry.h (math, conditional, strings, dates, ...)
///   "__error__" [message literal]: a Column built from bad input (e.g. an unknown cast type);
///               ResolveExpr reports the message.
extern const std::vector<std::string> kFunctionNames;

/// `e` with every node's mode set to `mode` (shares `e` when nothing changes).
ExprPtr WithEvalMode(const ExprPtr& e, EvalMode mode);

/// True for col("*") (and "t.*"): the DataFrame layer expands stars; ResolveExpr rejects them.
bool IsStar(const Expr& e);

/// The output column name Spark would give the expression (alias, column name, or its text).
std::string OutputName(const Expr& e);

/// Resolves `e` against `input`: checks every column and function exists and that argument
/// types fit; returns the result field (OutputName, type, nullability). Errors name the
/// column or function, e.g. "Column 'pricee' does not exist. Available columns: [...]".
Result<std::shared_ptr<arrow::Field>> ResolveExpr(const Expr& e, const arrow::Schema& input);

/// Resolves `predicate` and checks it is boolean (or a NULL literal): the check filter/where
/// need. Errors name the predicate and its type.
Status CheckPredicate(const Expr& predicate, const arrow::Schema& input);

/// Parses a Spark/SQL type name ("bigint", "int", "string", "double", "boolean", "timestamp",
/// "date", "decimal(10,2)", ...) case-insensitively.
Result<std::shared_ptr<arrow::DataType>> ParseTypeName(const std::string& name);
/// Spark's name for an Arrow type ("bigint", "string", ...).
std::string TypeName(const arrow::DataType& type);

/// Parses a DDL schema string, "id BIGINT, name STRING NOT NULL, ts TIMESTAMP".
Result<std::shared_ptr<arrow::Schema>> ParseSchemaDDL(const std::string& ddl);

}  // namespace sluice::plan
