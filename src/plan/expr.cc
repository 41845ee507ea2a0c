// Expr nodes and their canonical text (Spark-like, deterministic: used in plan fingerprints).
#include "plan/expr.h"

#include <arrow/api.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace sluice::plan {

const std::vector<std::string> kFunctionNames = {
    "+",       "-",        "*",         "/",          "%",          "negative", "=",          "!=",
    "<",       "<=",       ">",         ">=",         "and",        "or",       "not",        "isnull",
    "isnotnull", "in",     "like",      "ilike",      "coalesce",   "casewhen",   "upper",    "lower",      "length",
    "trim",    "concat",   "substring", "to_timestamp", "date_trunc", "year",   "month",      "dayofmonth",
    "hour",    "minute",   "second",    "second_with_fraction", "dayofweek",  "__error__",
    // Aggregate functions (only inside an aggregation) and window functions (only in GROUP BY).
    "count",   "count_distinct", "sum",  "avg",       "min",        "max",      "first",      "last",
    "window",  "session_window"};

namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// Shortest text that reads back as the same double; always shows it is fractional ("1.0").
std::string DoubleText(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string LiteralText(const arrow::Scalar& v) {
  if (!v.is_valid) {
    if (v.type->id() == arrow::Type::NA) return "NULL";
    return "CAST(NULL AS " + Upper(TypeName(*v.type)) + ")";
  }
  switch (v.type->id()) {
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING: return Quote(v.ToString());
    case arrow::Type::DOUBLE: return DoubleText(static_cast<const arrow::DoubleScalar&>(v).value);
    case arrow::Type::FLOAT: return DoubleText(static_cast<const arrow::FloatScalar&>(v).value);
    case arrow::Type::TIMESTAMP: return "TIMESTAMP " + Quote(v.ToString());
    case arrow::Type::DATE32:
    case arrow::Type::DATE64: return "DATE " + Quote(v.ToString());
    default: return v.ToString();
  }
}

std::string JoinArgs(const std::vector<ExprPtr>& args, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < args.size(); ++i) {
    if (i > from) out += ", ";
    out += args[i]->ToString();
  }
  return out;
}

std::string InfixName(const std::string& fn) {
  if (fn == "and") return "AND";
  if (fn == "or") return "OR";
  return fn;
}

bool IsInfix(const std::string& fn) {
  static const std::vector<std::string> kInfix = {"+", "-", "*", "/", "%", "=", "!=", "<", "<=", ">", ">=", "and", "or"};
  return std::find(kInfix.begin(), kInfix.end(), fn) != kInfix.end();
}

std::string CallText(const Expr& e) {
  const auto& a = e.args;
  const std::string& fn = e.name;
  if (IsInfix(fn) && a.size() == 2) return "(" + a[0]->ToString() + " " + InfixName(fn) + " " + a[1]->ToString() + ")";
  if (fn == "negative" && a.size() == 1) return "(- " + a[0]->ToString() + ")";
  if (fn == "not" && a.size() == 1) return "(NOT " + a[0]->ToString() + ")";
  if (fn == "isnull" && a.size() == 1) return "(" + a[0]->ToString() + " IS NULL)";
  if (fn == "isnotnull" && a.size() == 1) return "(" + a[0]->ToString() + " IS NOT NULL)";
  if (fn == "in" && !a.empty()) return "(" + a[0]->ToString() + " IN (" + JoinArgs(a, 1) + "))";
  if (fn == "like" && a.size() == 2) return a[0]->ToString() + " LIKE " + a[1]->ToString();
  if (fn == "ilike" && a.size() == 2) return a[0]->ToString() + " ILIKE " + a[1]->ToString();
  if (fn == "count_distinct") return "count(DISTINCT " + JoinArgs(a) + ")";
  if (fn == "sum_distinct") return "sum(DISTINCT " + JoinArgs(a) + ")";
  if (fn == "avg_distinct") return "avg(DISTINCT " + JoinArgs(a) + ")";
  if (fn == "get_field" && a.size() == 2 && a[1]->value) return a[0]->ToString() + "." + a[1]->value->ToString();
  if (fn == "get_item" && a.size() == 2) return a[0]->ToString() + "[" + a[1]->ToString() + "]";
  if (fn == "casewhen") {
    std::string out = "CASE";
    size_t i = 0;
    for (; i + 1 < a.size(); i += 2) out += " WHEN " + a[i]->ToString() + " THEN " + a[i + 1]->ToString();
    if (i < a.size()) out += " ELSE " + a[i]->ToString();
    return out + " END";
  }
  return fn + "(" + JoinArgs(a) + ")";
}

ExprPtr Make(Expr::Kind kind, std::string name, std::shared_ptr<arrow::Scalar> value,
             std::shared_ptr<arrow::DataType> type, std::vector<ExprPtr> args) {
  return std::make_shared<Expr>(Expr{kind, std::move(name), std::move(value), std::move(type), std::move(args)});
}

}  // namespace

std::string Expr::ToString() const {
  switch (kind) {
    case Kind::kColumn: return name;
    case Kind::kLiteral: return value ? LiteralText(*value) : "NULL";
    case Kind::kCall: return CallText(*this);
    case Kind::kCast:
      return std::string(mode == EvalMode::kTry ? "TRY_" : "") + "CAST(" + (args.empty() ? std::string("?") : args[0]->ToString()) + " AS " +
             (type ? Upper(TypeName(*type)) : std::string("?")) + ")";
    case Kind::kAlias: return (args.empty() ? std::string("?") : args[0]->ToString()) + " AS " + name;
  }
  return "?";
}

ExprPtr Expr::Column(std::string name) { return Make(Kind::kColumn, std::move(name), nullptr, nullptr, {}); }
ExprPtr Expr::Literal(std::shared_ptr<arrow::Scalar> v) { return Make(Kind::kLiteral, "", std::move(v), nullptr, {}); }
ExprPtr Expr::Call(std::string fn, std::vector<ExprPtr> args) {
  return Make(Kind::kCall, std::move(fn), nullptr, nullptr, std::move(args));
}
ExprPtr Expr::Cast(ExprPtr arg, std::shared_ptr<arrow::DataType> t) {
  return Make(Kind::kCast, "", nullptr, std::move(t), {std::move(arg)});
}
ExprPtr Expr::Alias(ExprPtr arg, std::string name) { return Make(Kind::kAlias, std::move(name), nullptr, nullptr, {std::move(arg)}); }

ExprPtr WithEvalMode(const ExprPtr& e, EvalMode mode) {
  if (!e) return e;
  std::vector<ExprPtr> args;
  // A try_cast keeps kTry: it is the query's choice, not the session's.
  const bool takes_mode = (e->kind == Expr::Kind::kCast || e->kind == Expr::Kind::kCall) && e->mode != EvalMode::kTry;
  bool changed = e->mode != mode && takes_mode;
  for (const auto& a : e->args) {
    args.push_back(WithEvalMode(a, mode));
    changed = changed || args.back() != a;
  }
  if (!changed) return e;
  auto copy = std::make_shared<Expr>(*e);
  copy->args = std::move(args);
  if (takes_mode) copy->mode = mode;
  return copy;
}

bool IsStar(const Expr& e) {
  if (e.kind != Expr::Kind::kColumn) return false;
  return e.name == "*" || (e.name.size() > 2 && e.name.compare(e.name.size() - 2, 2, ".*") == 0);
}

std::string OutputName(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kAlias:
    case Expr::Kind::kColumn: return e.name;
    case Expr::Kind::kLiteral:
      // Spark names a string literal column by its bare text: select(lit("a")) -> column "a".
      if (e.value && e.value->is_valid &&
          (e.value->type->id() == arrow::Type::STRING || e.value->type->id() == arrow::Type::LARGE_STRING)) {
        return e.value->ToString();
      }
      return e.ToString();
    case Expr::Kind::kCall:
      // s.a is named a, as in Spark.
      if (e.name == "get_field" && e.args.size() == 2 && e.args[1]->value) return e.args[1]->value->ToString();
      return e.ToString();
    default: return e.ToString();
  }
}

}  // namespace sluice::plan
