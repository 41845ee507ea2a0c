#include "sql/sql_functions.h"

#include <arrow/api.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#include "plan/function_registry.h"

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

// An integer literal becomes the int64 literal of the C++ substring(col, pos, len); a column
// stays a column.
Result<ExprPtr> PositionArg(const SqlFunctionCall& call, size_t i, const std::string& what, const SqlText& text) {
  if (LiteralValue(call.args[i])) return Int64Literal(call, i, what, text);
  return call.args[i];
}

Result<ExprPtr> BuildSubstring(const SqlFunctionCall& call, const SqlText& text) {
  ARROW_ASSIGN_OR_RAISE(ExprPtr pos, PositionArg(call, 1, "start position", text));
  ExprPtr len = Expr::Literal(std::make_shared<arrow::Int64Scalar>(std::numeric_limits<int32_t>::max()));
  if (call.args.size() == 3) {
    ARROW_ASSIGN_OR_RAISE(len, PositionArg(call, 2, "length", text));
  }
  return Expr::Call("substring", {call.args[0], pos, len});
}

// position(substr IN str) arrives as position(str, substr): instr's order.
Result<ExprPtr> BuildPosition(const SqlFunctionCall& call, const SqlText&) {
  return Expr::Call("instr", {call.args[0], call.args[1]});
}

Result<ExprPtr> BuildToTimestamp(const SqlFunctionCall& call, const SqlText& text) {
  if (call.args.size() == 2) ARROW_RETURN_NOT_OK(RequireStringLiteral(call, 1, "format", text));
  return Expr::Call("to_timestamp", call.args);
}

Result<ExprPtr> BuildDateTrunc(const SqlFunctionCall& call, const SqlText& text) {
  ARROW_RETURN_NOT_OK(RequireStringLiteral(call, 0, "unit", text));
  return Expr::Call("date_trunc", call.args);
}

// trunc(date, fmt) -> CAST(date_trunc(unit, CAST(date AS DATE)) AS DATE) for Spark's units
// (year/yyyy/yy, quarter, month/mon/mm, week); any other format gives NULL, as Spark's.
Result<ExprPtr> BuildTrunc(const SqlFunctionCall& call, const SqlText& text) {
  ARROW_RETURN_NOT_OK(RequireStringLiteral(call, 1, "format", text));
  std::string fmt = LiteralValue(call.args[1])->ToString();
  std::transform(fmt.begin(), fmt.end(), fmt.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::map<std::string, std::string> kUnits = {{"year", "year"},   {"yyyy", "year"}, {"yy", "year"},
                                                            {"quarter", "quarter"}, {"month", "month"}, {"mon", "month"},
                                                            {"mm", "month"},  {"week", "week"}};
  auto it = kUnits.find(fmt);
  if (it == kUnits.end()) return Expr::Literal(arrow::MakeNullScalar(arrow::date32()));
  ExprPtr date = Expr::Cast(call.args[0], arrow::date32());
  return Expr::Cast(Expr::Call("date_trunc", {Expr::Literal(std::make_shared<arrow::StringScalar>(it->second)), date}),
                    arrow::date32());
}

// EXTRACT(field FROM ts) and date_part('field', ts) -> year(ts), month(ts), ...
Result<ExprPtr> BuildExtract(const SqlFunctionCall& call, const SqlText& text) {
  ARROW_RETURN_NOT_OK(RequireStringLiteral(call, 0, "field", text));
  std::string field = LiteralValue(call.args[0])->ToString();
  std::transform(field.begin(), field.end(), field.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::map<std::string, std::string> kFields = {
      {"year", "year"}, {"month", "month"}, {"day", "dayofmonth"}, {"hour", "hour"}, {"minute", "minute"}, {"second", "second_with_fraction"}};
  auto it = kFields.find(field);
  if (it == kFields.end()) {
    return text.ErrorAt(call.arg_locations[0], "EXTRACT/date_part field '" + field +
                                                    "' is not supported; valid fields: year, month, day, hour, minute, second");
  }
  return Expr::Call(it->second, {call.args[1]});
}

// SQL aggregate names -> the aggregate calls of plan/aggregate.h.
const std::map<std::string, std::string>& Aggregates() {
  static const std::map<std::string, std::string> kAggregates = {
      {"count", "count"}, {"sum", "sum"}, {"avg", "avg"},     {"mean", "avg"},
      {"min", "min"},     {"max", "max"}, {"first", "first"}, {"last", "last"},
      {"count_if", "count_if"}, {"bool_and", "bool_and"}, {"every", "bool_and"}, {"bool_or", "bool_or"},
      {"any_value", "any_value"}, {"stddev", "stddev"}, {"std", "stddev"}, {"stddev_samp", "stddev_samp"},
      {"stddev_pop", "stddev_pop"}, {"variance", "variance"}, {"var_samp", "var_samp"}, {"var_pop", "var_pop"},
      {"max_by", "max_by"}, {"min_by", "min_by"}, {"collect_list", "collect_list"}, {"array_agg", "collect_list"},
      {"collect_set", "collect_set"}, {"approx_count_distinct", "approx_count_distinct"},
      {"percentile_approx", "percentile_approx"}, {"approx_percentile", "percentile_approx"}};
  return kAggregates;
}

// Aggregates people may try that the engine does not compute.
std::string ArgCount(size_t min_args, size_t max_args);

bool IsUnsupportedAggregate(const std::string& name) {
  static const std::vector<std::string> kOthers = {"string_agg", "median", "percentile_cont", "percentile_disc",
                                                   "percentile", "mode"};
  return std::find(kOthers.begin(), kOthers.end(), name) != kOthers.end();
}

const char* kAggregateList = "count(*), count(x), count(DISTINCT x), sum, avg, min, max, first, last, count_if, "
                             "bool_and/every, bool_or, any_value, stddev/std, stddev_samp, stddev_pop, variance, "
                             "var_samp, var_pop, max_by, min_by, collect_list/array_agg, collect_set, "
                             "approx_count_distinct, percentile_approx/approx_percentile";

// Argument counts of the aggregates beyond one argument (plan::ResolveAgg checks the literals).
std::pair<size_t, size_t> AggregateArity(const std::string& fn) {
  if (fn == "max_by" || fn == "min_by") return {2, 2};
  if (fn == "approx_count_distinct") return {1, 2};
  if (fn == "percentile_approx") return {2, 3};
  return {1, 1};
}

// Aggregates whose value DISTINCT does not change (Spark accepts and ignores it there).
bool DistinctIsNoOp(const std::string& fn) {
  return fn == "min" || fn == "max" || fn == "collect_set" || fn == "approx_count_distinct" || fn == "bool_and" ||
         fn == "bool_or";
}

// agg(x) FILTER (WHERE c) is agg(CASE WHEN c THEN x END): every aggregate below ignores NULLs.
// first/last/any_value keep NULLs, so FILTER is refused for them.
Result<ExprPtr> Filtered(const SqlFunctionCall& call, const std::string& fn, ExprPtr arg, const SqlText& text) {
  if (!call.filter) return arg;
  if (fn == "first" || fn == "last" || fn == "any_value") {
    return text.ErrorAt(call.location, "FILTER (WHERE ...) is not supported on " + call.name +
                                           "(), which keeps NULL values; filter the rows with WHERE");
  }
  return Expr::Call("casewhen", {call.filter, std::move(arg)});
}

Result<ExprPtr> BuildAggregate(const SqlFunctionCall& call, const std::string& fn, const SqlText& text) {
  if (call.star) {
    if (fn != "count") return text.ErrorAt(call.location, call.name + "(*) is not allowed; only count(*) takes *");
    // count(*) is count(1) with an int64 literal, as the C++ count(col("*")).
    ARROW_ASSIGN_OR_RAISE(auto one, Filtered(call, fn, Expr::Literal(std::make_shared<arrow::Int64Scalar>(1)), text));
    return Expr::Call("count", {one});
  }
  const auto [min_args, max_args] = AggregateArity(fn);
  if (call.args.size() < min_args || call.args.size() > max_args) {
    return text.ErrorAt(call.location, "aggregate function '" + call.name + "' takes " + ArgCount(min_args, max_args) +
                                           " argument(s), got " + std::to_string(call.args.size()));
  }
  std::vector<ExprPtr> args = call.args;
  if (fn == "max_by" || fn == "min_by") {
    // max_by keeps a NULL value, so FILTER clears the ordering instead: rows without one are skipped.
    if (call.filter) args[1] = Expr::Call("casewhen", {call.filter, args[1]});
  } else {
    ARROW_ASSIGN_OR_RAISE(args[0], Filtered(call, fn, args[0], text));
  }
  if (call.distinct && !DistinctIsNoOp(fn)) {
    if (fn != "count" && fn != "sum" && fn != "avg") {
      return text.ErrorAt(call.location, call.name + "(DISTINCT ...) is not supported; DISTINCT is supported in "
                                                     "count, sum and avg (and ignored in min, max, collect_set, "
                                                     "approx_count_distinct, bool_and, bool_or)");
    }
    return Expr::Call(fn + "_distinct", std::move(args));
  }
  return Expr::Call(fn, std::move(args));
}

// tumble(ts, size) / hop(ts, slide, size) / session(ts, gap), and Spark's window(ts, size[,
// slide]) / session_window(ts, gap): sizes arrive as string literals (INTERVAL '10 minutes').
Result<ExprPtr> BuildWindow(const SqlFunctionCall& call, const SqlText& text) {
  for (size_t i = 1; i < call.args.size(); ++i) {
    if (!IsStringLiteral(call.args[i])) {
      return text.ErrorAt(call.arg_locations[i], call.name + "(): the " +
                                                     std::string(call.name == "session" || call.name == "session_window"
                                                                     ? "gap"
                                                                     : i == 1 && call.name == "hop" ? "slide" : "size") +
                                                     " must be an interval literal such as INTERVAL '10 minutes'");
    }
  }
  if (call.name == "tumble") return Expr::Call("window", {call.args[0], call.args[1]});
  if (call.name == "hop") return Expr::Call("window", {call.args[0], call.args[2], call.args[1]});  // (time, slide, size)
  if (call.name == "session") return Expr::Call("session_window", {call.args[0], call.args[1]});
  return Expr::Call(call.name, call.args);  // window, session_window: the C++ names and layouts
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
    // Spark's other names for functions of the table (plan/function_registry.h).
    f.emplace("power", Plain("pow", 2, 2, "power(x, y)"));
    f.emplace("ceiling", Plain("ceil", 1, 1, "ceiling(x)"));
    f.emplace("signum", Plain("sign", 1, 1, "signum(x)"));
    f.emplace("mod", Plain("%", 2, 2, "mod(x, y)"));
    f.emplace("nvl", Plain("coalesce", 2, 2, "nvl(x, if_null)"));
    f.emplace("ifnull", Plain("coalesce", 2, 2, "ifnull(x, if_null)"));
    f.emplace("rlike", Plain("regexp_like", 2, 2, "rlike(str, regex)"));
    f.emplace("printf", Plain("format_string", 1, SIZE_MAX, "printf(format, arg1, ...)"));
    f.emplace("regexp", Plain("regexp_like", 2, 2, "regexp(str, regex)"));
    f.emplace("now", Plain("current_timestamp", 0, 0, "now()"));
    f.emplace("position", FunctionSpec{2, 2, "position(substr IN str)", BuildPosition});
    // Generators (plan/generate.h): only as a whole select item.
    for (const char* fn : {"explode", "explode_outer", "posexplode", "posexplode_outer"}) f.emplace(fn, Unary(fn));
    f.emplace("substring", FunctionSpec{2, 3, "substring(str, pos[, len])", BuildSubstring});
    f.emplace("substr", FunctionSpec{2, 3, "substr(str, pos[, len])", BuildSubstring});
    f.emplace("to_timestamp", FunctionSpec{1, 2, "to_timestamp(str[, format])", BuildToTimestamp});
    f.emplace("date_trunc", FunctionSpec{2, 2, "date_trunc(unit, ts)", BuildDateTrunc});
    f.emplace("trunc", FunctionSpec{2, 2, "trunc(date, format)", BuildTrunc});
    f.emplace("extract", FunctionSpec{2, 2, "EXTRACT(field FROM ts)", BuildExtract});
    f.emplace("date_part", FunctionSpec{2, 2, "date_part(field, ts)", BuildExtract});
    f.emplace("tumble", FunctionSpec{2, 2, "tumble(time, INTERVAL 'size')", BuildWindow});
    f.emplace("hop", FunctionSpec{3, 3, "hop(time, INTERVAL 'slide', INTERVAL 'size')", BuildWindow});
    f.emplace("session", FunctionSpec{2, 2, "session(time, INTERVAL 'gap')", BuildWindow});
    f.emplace("window", FunctionSpec{2, 3, "window(time, 'size'[, 'slide'])", BuildWindow});
    f.emplace("session_window", FunctionSpec{2, 2, "session_window(time, 'gap')", BuildWindow});
    return f;
  }();
  return kFunctions;
}

std::string ArgCount(size_t min_args, size_t max_args) {
  if (min_args == max_args) return std::to_string(min_args);
  if (max_args == SIZE_MAX) return "at least " + std::to_string(min_args);
  return std::to_string(min_args) + " to " + std::to_string(max_args);
}

}  // namespace

std::vector<std::string> SqlFunctionNames() {
  std::vector<std::string> names;
  for (const auto& [name, spec] : Functions()) {
    if (name != "btrim") names.push_back(name);
  }
  for (const auto& f : plan::RegisteredFunctions()) names.push_back(f.name);
  for (const auto& [name, fn] : Aggregates()) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

bool IsSqlAggregate(const std::string& name) { return Aggregates().count(name) > 0; }

bool IsSqlWindowFunction(const std::string& name) {
  return name == "tumble" || name == "hop" || name == "session" || name == "window" || name == "session_window";
}

Result<ExprPtr> BuildFunctionCall(const SqlFunctionCall& call, const SqlText& text) {
  auto agg = Aggregates().find(call.name);
  if (agg != Aggregates().end()) return BuildAggregate(call, agg->second, text);
  if (IsUnsupportedAggregate(call.name)) {
    return text.ErrorAt(call.location, "aggregate function '" + call.name + "' is not supported. Available aggregates: " +
                                           kAggregateList);
  }
  if (call.star || call.distinct) {
    return text.ErrorAt(call.location, std::string(call.star ? "*" : "DISTINCT") + " is only allowed in aggregate "
                                           "functions (" + kAggregateList + "), not in " + call.name + "()");
  }
  auto it = Functions().find(call.name);
  if (it == Functions().end()) {
    if (const plan::FunctionTyping* f = plan::FindFunctionTyping(call.name)) {
      if (call.args.size() < f->min_args || call.args.size() > f->max_args) {
        return text.ErrorAt(call.location, "function '" + call.name + "' takes " + ArgCount(f->min_args, f->max_args) +
                                               " argument(s), got " + std::to_string(call.args.size()) + ": " + f->usage);
      }
      return Expr::Call(call.name, call.args);
    }
    std::string list;
    for (const auto& n : SqlFunctionNames()) list += (list.empty() ? "" : ", ") + n;
    return text.ErrorAt(call.location, "unknown function '" + call.name + "'. Available functions: " + list);
  }
  const FunctionSpec& spec = it->second;
  if (call.args.size() < spec.min_args || call.args.size() > spec.max_args) {
    return text.ErrorAt(call.location, "function '" + call.name + "' takes " + ArgCount(spec.min_args, spec.max_args) +
                                           " argument(s), got " + std::to_string(call.args.size()) + ": " + spec.signature);
  }
  return spec.build(call, text);
}

}  // namespace sluice::sql
