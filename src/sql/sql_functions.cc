#include "sql/sql_functions.h"

#include <arrow/api.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

namespace sluice::sql {
namespace {

using plan::Expr;
using plan::ExprPtr;

struct FunctionSpec {
  size_t min_args;
  size_t max_args;  // SIZE_MAX: any number
  std::string signature;  // for messages, e.g. "substring(str, pos[, len])"
  std::function<Result<ExprPtr>(const SqlFunctionCall&, const SqlText&)> build;
};

const arrow::Scalar* LiteralValue(const ExprPtr& e) {
  return e->kind == Expr::Kind::kLiteral && e->value && e->value->is_valid ? e->value.get() : nullptr;
}

bool IsStringLiteral(const ExprPtr& e) {
  const arrow::Scalar* v = LiteralValue(e);
  return v && v->type->id() == arrow::Type::STRING;
}

// An integer literal as the int64 literal the C++ API's lit(int64_t) makes.
Result<ExprPtr> Int64Literal(const SqlFunctionCall& call, size_t i, const std::string& what, const SqlText& text) {
  const arrow::Scalar* v = LiteralValue(call.args[i]);
  if (v && v->type->id() == arrow::Type::INT32) {
    return Expr::Literal(std::make_shared<arrow::Int64Scalar>(static_cast<const arrow::Int32Scalar&>(*v).value));
  }
  if (v && v->type->id() == arrow::Type::INT64) return call.args[i];
  return text.ErrorAt(call.arg_locations[i], call.name + "(): the " + what + " must be an integer literal");
}

Status RequireStringLiteral(const SqlFunctionCall& call, size_t i, const std::string& what, const SqlText& text) {
  if (IsStringLiteral(call.args[i])) return Status::OK();
  return text.ErrorAt(call.arg_locations[i], call.name + "(): the " + what + " must be a string literal");
}

// f(args...) with the same arguments under the vocabulary name `fn`.
FunctionSpec Plain(const std::string& fn, size_t min_args, size_t max_args, const std::string& signature) {
  return {min_args, max_args, signature,
          [fn](const SqlFunctionCall& call, const SqlText&) -> Result<ExprPtr> { return Expr::Call(fn, call.args); }};
}

FunctionSpec Unary(const std::string& fn) { return Plain(fn, 1, 1, fn + "(x)"); }

Result<ExprPtr> BuildSubstring(const SqlFunctionCall& call, const SqlText& text) {
  ARROW_ASSIGN_OR_RAISE(ExprPtr pos, Int64Literal(call, 1, "start position", text));
  ExprPtr len = Expr::Literal(std::make_shared<arrow::Int64Scalar>(std::numeric_limits<int32_t>::max()));
  if (call.args.size() == 3) {
    ARROW_ASSIGN_OR_RAISE(len, Int64Literal(call, 2, "length", text));
  }
  return Expr::Call("substring", {call.args[0], pos, len});
}

Result<ExprPtr> BuildToTimestamp(const SqlFunctionCall& call, const SqlText& text) {
  if (call.args.size() == 2) ARROW_RETURN_NOT_OK(RequireStringLiteral(call, 1, "format", text));
  return Expr::Call("to_timestamp", call.args);
}

Result<ExprPtr> BuildDateTrunc(const SqlFunctionCall& call, const SqlText& text) {
  ARROW_RETURN_NOT_OK(RequireStringLiteral(call, 0, "unit", text));
  return Expr::Call("date_trunc", call.args);
}

// EXTRACT(field FROM ts) and date_part('field', ts) -> year(ts), month(ts), ...
Result<ExprPtr> BuildExtract(const SqlFunctionCall& call, const SqlText& text) {
  ARROW_RETURN_NOT_OK(RequireStringLiteral(call, 0, "field", text));
  std::string field = LiteralValue(call.args[0])->ToString();
  std::transform(field.begin(), field.end(), field.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::map<std::string, std::string> kFields = {
      {"year", "year"}, {"month", "month"}, {"day", "dayofmonth"}, {"hour", "hour"}, {"minute", "minute"}, {"second", "second"}};
  auto it = kFields.find(field);
  if (it == kFields.end()) {
    return text.ErrorAt(call.arg_locations[0], "EXTRACT/date_part field '" + field +
                                                    "' is not supported; valid fields: year, month, day, hour, minute, second");
  }
  return Expr::Call(it->second, {call.args[1]});
}

const std::map<std::string, FunctionSpec>& Functions() {
  static const std::map<std::string, FunctionSpec> kFunctions = [] {
    std::map<std::string, FunctionSpec> f;
    for (const char* fn : {"upper", "lower", "length", "trim", "year", "month", "dayofmonth", "hour", "minute", "second",
                           "dayofweek"}) {
      f.emplace(fn, Unary(fn));
    }
    f.emplace("char_length", Unary("length"));
    f.emplace("character_length", Unary("length"));
    f.emplace("btrim", Unary("trim"));  // TRIM(x) arrives as pg_catalog.btrim
    f.emplace("day", Unary("dayofmonth"));
    f.emplace("concat", Plain("concat", 1, SIZE_MAX, "concat(a, b, ...)"));
    f.emplace("coalesce", Plain("coalesce", 1, SIZE_MAX, "coalesce(a, b, ...)"));
    f.emplace("substring", FunctionSpec{2, 3, "substring(str, pos[, len])", BuildSubstring});
    f.emplace("substr", FunctionSpec{2, 3, "substr(str, pos[, len])", BuildSubstring});
    f.emplace("to_timestamp", FunctionSpec{1, 2, "to_timestamp(str[, format])", BuildToTimestamp});
    f.emplace("date_trunc", FunctionSpec{2, 2, "date_trunc(unit, ts)", BuildDateTrunc});
    f.emplace("extract", FunctionSpec{2, 2, "EXTRACT(field FROM ts)", BuildExtract});
    f.emplace("date_part", FunctionSpec{2, 2, "date_part(field, ts)", BuildExtract});
    return f;
  }();
  return kFunctions;
}

bool IsAggregate(const std::string& name) {
  static const std::vector<std::string> kAggregates = {"count", "sum", "avg", "min", "max", "first", "last",
                                                       "collect_list", "collect_set", "approx_count_distinct",
                                                       "stddev", "variance", "mean", "any_value"};
  return std::find(kAggregates.begin(), kAggregates.end(), name) != kAggregates.end();
}

}  // namespace

std::vector<std::string> SqlFunctionNames() {
  std::vector<std::string> names;
  for (const auto& [name, spec] : Functions()) {
    if (name != "btrim") names.push_back(name);
  }
  return names;
}

Result<ExprPtr> BuildFunctionCall(const SqlFunctionCall& call, const SqlText& text) {
  if (IsAggregate(call.name)) {
    return text.ErrorAt(call.location, "aggregate function '" + call.name +
                                           "' is not supported yet: aggregations (GROUP BY, count, sum, ...) come "
                                           "with stateful streaming");
  }
  auto it = Functions().find(call.name);
  if (it == Functions().end()) {
    std::string list;
    for (const auto& n : SqlFunctionNames()) list += (list.empty() ? "" : ", ") + n;
    return text.ErrorAt(call.location, "unknown function '" + call.name + "'. Available functions: " + list);
  }
  const FunctionSpec& spec = it->second;
  if (call.args.size() < spec.min_args || call.args.size() > spec.max_args) {
    return text.ErrorAt(call.location, "function '" + call.name + "' takes " +
                                           (spec.min_args == spec.max_args ? std::to_string(spec.min_args)
                                            : spec.max_args == SIZE_MAX
                                                ? "at least " + std::to_string(spec.min_args)
                                                : std::to_string(spec.min_args) + " to " + std::to_string(spec.max_args)) +
                                           " argument(s), got " + std::to_string(call.args.size()) + ": " + spec.signature);
  }
  return spec.build(call, text);
}

}  // namespace sluice::sql
