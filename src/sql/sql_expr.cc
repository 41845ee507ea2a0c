#include "sql/sql_expr.h"

#include <arrow/api.h>

#include <algorithm>
#include <cstdlib>

#include "sql/sql_functions.h"
#include "sql/sql_interval.h"
#include "sql/sql_spark_spelling.h"
#include "sql/sql_parse.h"
#include "sql/sql_types.h"

namespace sluice::sql {
namespace {

using nlohmann::json;
using plan::Expr;
using plan::ExprPtr;

std::string LastName(const json& list) {
  auto names = StringList(list);
  return names.empty() ? std::string() : names.back();
}

// Binary operators of A_Expr (AEXPR_OP) -> vocabulary names.
std::optional<std::string> BinaryOperator(const std::string& op) {
  static const std::map<std::string, std::string> kOps = {{"+", "+"},  {"-", "-"},  {"*", "*"},  {"/", "/"},
                                                          {"%", "%"},  {"=", "="},  {"<>", "!="}, {"!=", "!="},
                                                          {"<", "<"},  {"<=", "<="}, {">", ">"},  {">=", ">="}};
  auto it = kOps.find(op);
  if (it == kOps.end()) return std::nullopt;
  return it->second;
}

// The unit word of Postgres' INTERVAL '<n>' <unit> (a typmod with one field bit set).
std::optional<std::string> IntervalUnit(const json& type_name) {
  const json& typmods = Field(type_name, "typmods");
  if (typmods.is_null()) return std::string();
  if (!typmods.is_array() || typmods.size() != 1) return std::nullopt;
  const int64_t mask = IntField(Field(Field(typmods[0], "A_Const"), "ival"), "ival", -1);
  static const std::map<int64_t, std::string> kUnits = {
      {1 << 1, "months"}, {1 << 2, "years"}, {1 << 3, "days"}, {1 << 10, "hours"}, {1 << 11, "minutes"}, {1 << 12, "seconds"}};
  auto it = kUnits.find(mask);
  if (it == kUnits.end()) return std::nullopt;
  return it->second;
}

bool IsIntervalType(const json& type_name) {
  auto names = StringList(Field(type_name, "names"));
  return !names.empty() && names.back() == "interval";
}

}  // namespace

ExprTranslator::ExprTranslator(const SqlText& text, std::shared_ptr<arrow::Schema> input,
                               std::vector<std::string> table_names, plan::EvalMode mode)
    : text_(text), input_(std::move(input)), table_names_(std::move(table_names)), mode_(mode) {}

ExprPtr ExprTranslator::Remember(ExprPtr e, int location) {
  // Arguments were remembered first, so they already carry the mode.
  if (e->mode != mode_ && e->mode != plan::EvalMode::kTry && (e->kind == Expr::Kind::kCast || e->kind == Expr::Kind::kCall)) {
    auto copy = std::make_shared<Expr>(*e);
    copy->mode = mode_;
    e = std::move(copy);
  }
  if (location >= 0 && !locations_.count(e.get())) locations_[e.get()] = location;
  keep_alive_.push_back(e);
  return e;
}

int ExprTranslator::LocationOf(const Expr* e) const {
  auto it = locations_.find(e);
  return it == locations_.end() ? -1 : it->second;
}

std::string ExprTranslator::ColumnName(const std::string& name) const {
  if (!input_ || input_->GetFieldIndex(name) >= 0) return name;
  std::string match;
  int count = 0;
  for (const auto& f : input_->fields()) {
    if (SameIdentifier(f->name(), name)) {
      match = f->name();
      ++count;
    }
  }
  if (count == 1) return match;
  // The columns an event-time window adds to an aggregation, whatever the spelling.
  for (const char* window_column : {"window_start", "window_end"}) {
    if (SameIdentifier(name, window_column)) return window_column;
  }
  return name;
}

Result<ExprPtr> ExprTranslator::Translate(const json& node) {
  const std::string kind = NodeKind(node);
  const json& body = Field(node, kind.c_str());
  const int location = sql::LocationOf(body);
  if (kind == "ColumnRef") return TranslateColumnRef(body);
  if (kind == "A_Const") return TranslateConst(body);
  if (kind == "A_Expr") return TranslateAExpr(body);
  if (kind == "BoolExpr") return TranslateBool(body);
  if (kind == "CaseExpr") return TranslateCase(body);
  if (kind == "FuncCall") return TranslateFuncCall(body);
  if (kind == "TypeCast") {
    if (IsIntervalType(Field(body, "typeName"))) {
      return text_.ErrorAt(sql::LocationOf(Field(body, "typeName")),
                           "INTERVAL values are only supported as window sizes (GROUP BY tumble(ts, INTERVAL "
                           "'10 minutes')) and added to or subtracted from a date or timestamp (ts + INTERVAL '1' HOUR)");
    }
    ARROW_ASSIGN_OR_RAISE(ExprPtr arg, Translate(Field(body, "arg")));
    ARROW_ASSIGN_OR_RAISE(auto type, TypeFromSql(Field(body, "typeName"), text_));
    // TIMESTAMP '...' has no location of its own; its type name starts it.
    int at = location >= 0 ? location : sql::LocationOf(Field(body, "typeName"));
    ExprPtr cast = Expr::Cast(arg, type);
    if (location >= 0 && IsTryCastAt(text_.text(), location)) {
      auto try_cast = std::make_shared<Expr>(*cast);
      try_cast->mode = plan::EvalMode::kTry;
      cast = std::move(try_cast);
    }
    return Remember(cast, at);
  }
  if (kind == "NullTest") {
    ARROW_ASSIGN_OR_RAISE(ExprPtr arg, Translate(Field(body, "arg")));
    bool is_null = StringField(body, "nulltesttype") == "IS_NULL";
    return Remember(Expr::Call(is_null ? "isnull" : "isnotnull", {arg}), location);
  }
  if (kind == "MinMaxExpr") {  // greatest(...) / least(...)
    ARROW_ASSIGN_OR_RAISE(auto args, TranslateList(Field(body, "args")));
    const bool greatest = StringField(body, "op") == "IS_GREATEST";
    if (args.size() < 2) return text_.ErrorAt(location, std::string(greatest ? "greatest" : "least") + " needs at least two arguments");
    return Remember(Expr::Call(greatest ? "greatest" : "least", std::move(args)), location);
  }
  if (kind == "CoalesceExpr") {
    ARROW_ASSIGN_OR_RAISE(auto args, TranslateList(Field(body, "args")));
    return Remember(Expr::Call("coalesce", std::move(args)), location);
  }
  if (kind == "SubLink") return text_.ErrorAt(location, "subqueries are not supported");
  if (kind == "SQLValueFunction") {
    const std::string op = StringField(body, "op");
    if (op.find("USER") != std::string::npos || op.find("ROLE") != std::string::npos ||
        op.find("CATALOG") != std::string::npos || op.find("SCHEMA") != std::string::npos) {
      return text_.ErrorAt(location, "this word is reserved in this SQL grammar (it names the session's user or "
                                     "schema); to read a column of that name, quote it, e.g. \"user\"");
    }
    // CURRENT_TIMESTAMP / CURRENT_DATE (the keyword forms): the batch's time (plan/current_time.h).
    if (op == "SVFOP_CURRENT_TIMESTAMP" || op == "SVFOP_LOCALTIMESTAMP") {
      return Remember(Expr::Call("current_timestamp", {}), location);
    }
    if (op == "SVFOP_CURRENT_DATE") return Remember(Expr::Call("current_date", {}), location);
    return text_.ErrorAt(location, "CURRENT_TIME and a precision on CURRENT_TIMESTAMP(n)/LOCALTIMESTAMP(n) are not "
                                   "supported (Spark has no TIME type); write current_timestamp() or current_date()");
  }
  if (kind == "ParamRef") return text_.ErrorAt(location, "parameters ($n) are not supported");
  if (kind == "BooleanTest") {
    return text_.ErrorAt(location, "IS [NOT] TRUE/FALSE/UNKNOWN is not supported; use x = true, NOT x or x IS NULL");
  }
  if (kind == "CollateClause") return text_.ErrorAt(location, "COLLATE is not supported");
  if (kind == "A_Indirection") return TranslateIndirection(body);
  if (kind == "A_ArrayExpr") {  // ARRAY[a, b]: array(a, b)
    ARROW_ASSIGN_OR_RAISE(auto elements, TranslateList(Field(body, "elements")));
    return Remember(Expr::Call("array", std::move(elements)), location);
  }
  return text_.ErrorAt(location, "unsupported expression (" + kind + ")");
}

Result<std::vector<ExprPtr>> ExprTranslator::TranslateList(const json& nodes) {
  std::vector<ExprPtr> out;
  for (const auto& n : nodes) {
    ARROW_ASSIGN_OR_RAISE(ExprPtr e, Translate(n));
    out.push_back(std::move(e));
  }
  return out;
}

Result<ExprPtr> ExprTranslator::TranslateColumnRef(const json& body) {
  const int location = sql::LocationOf(body);
  const json& fields = Field(body, "fields");
  bool star = !fields.empty() && NodeKind(fields.back()) == "A_Star";
  std::vector<std::string> folded;
  for (size_t i = 0; i + (star ? 1 : 0) < fields.size(); ++i) folded.push_back(StringField(Field(fields[i], "String"), "sval"));
  std::vector<std::string> parts = text_.IdentifierChainAt(location, folded);
  auto is_table = [&](const std::string& name) {
    return std::any_of(table_names_.begin(), table_names_.end(), [&](const std::string& t) { return SameIdentifier(t, name); });
  };
  auto is_column = [&](const std::string& name) {
    return input_ && input_->GetFieldIndex(ColumnName(name)) >= 0;
  };
  // s.a.b: a struct column's fields (Spark reads a first part that names a column this way when
  // no table has that name); t.s.a: the same, qualified by the table.
  if (!star && parts.size() >= 2 && (is_table(parts[0]) ? parts.size() >= 3 : is_column(parts[0]))) {
    const size_t first_field = is_table(parts[0]) ? 2 : 1;
    ExprPtr e = Remember(Expr::Column(ColumnName(parts[first_field - 1])), location);
    for (size_t i = first_field; i < parts.size(); ++i) {
      e = Remember(Expr::Call("get_field", {e, Expr::Literal(std::make_shared<arrow::StringScalar>(parts[i]))}), location);
    }
    return e;
  }
  if (parts.size() > (star ? 1u : 2u)) {
    return text_.ErrorAt(location, "column reference with " + std::to_string(parts.size()) +
                                       " parts is not supported; write column, table.column or struct_column.field");
  }
  if ((star && parts.size() == 1) || (!star && parts.size() == 2)) {
    const std::string& qualifier = parts[0];
    if (!is_table(qualifier)) {
      std::string list;
      for (const auto& t : table_names_) list += (list.empty() ? "" : ", ") + t;
      return text_.ErrorAt(location, "unknown table '" + qualifier + "' in column reference; the query reads " +
                                         (list.empty() ? std::string("no table") : list));
    }
  }
  if (star) return Remember(Expr::Column("*"), location);
  if (parts.size() == 2 && input_) {
    // A column a join renamed because both sides have it (sql_join.h): "<table>.<column>".
    for (const auto& f : input_->fields()) {
      if (SameIdentifier(f->name(), parts[0] + "." + parts[1])) return Remember(Expr::Column(f->name()), location);
    }
  }
  return Remember(Expr::Column(ColumnName(parts.back())), location);
}

// x[i] (array element, 0-based), s['a'] and (s).a (struct field).
Result<ExprPtr> ExprTranslator::TranslateIndirection(const json& body) {
  const int location = sql::LocationOf(body);
  ARROW_ASSIGN_OR_RAISE(ExprPtr e, Translate(Field(body, "arg")));
  for (const auto& step : Field(body, "indirection")) {
    const std::string kind = NodeKind(step);
    if (kind == "String") {
      auto name = Expr::Literal(std::make_shared<arrow::StringScalar>(StringField(Field(step, "String"), "sval")));
      e = Remember(Expr::Call("get_field", {e, name}), location);
      continue;
    }
    const json& indices = Field(step, "A_Indices");
    if (kind != "A_Indices" || Field(indices, "is_slice").is_boolean() || Field(indices, "uidx").is_null()) {
      return text_.ErrorAt(location, "only x[index] and s['field'] are supported here (no slices x[a:b] or s.*)");
    }
    ARROW_ASSIGN_OR_RAISE(ExprPtr index, Translate(Field(indices, "uidx")));
    const bool by_name = index->kind == Expr::Kind::kLiteral && index->value &&
                         index->value->type->id() == arrow::Type::STRING;
    e = Remember(Expr::Call(by_name ? "get_field" : "get_item", {e, index}), location);
  }
  return e;
}

namespace {

// A literal with a fraction or an exponent, typed as Spark types it: 1.5 is DECIMAL(2,1) (the
// digits as written), 1e3 and decimals of more than 38 digits are DOUBLE.
Result<std::shared_ptr<arrow::Scalar>> NumericLiteral(const std::string& text) {
  if (text.find_first_of("eE") == std::string::npos) {
    arrow::Decimal128 value;
    int32_t precision = 0, scale = 0;
    if (arrow::Decimal128::FromString(text, &value, &precision, &scale).ok()) {
      precision = std::max({precision, scale, 1});
      if (precision <= 38) {
        return std::make_shared<arrow::Decimal128Scalar>(value, arrow::decimal128(precision, scale));
      }
    }
  }
  return std::make_shared<arrow::DoubleScalar>(std::strtod(text.c_str(), nullptr));
}

}  // namespace

Result<ExprPtr> ExprTranslator::TranslateConst(const json& body) {
  const int location = sql::LocationOf(body);
  std::shared_ptr<arrow::Scalar> value;
  if (Field(body, "isnull").is_boolean()) {
    value = std::make_shared<arrow::NullScalar>();
  } else if (body.contains("ival")) {
    // Postgres gives 32-bit integers as ival; like lit(int) in C++.
    ARROW_ASSIGN_OR_RAISE(int64_t v, sql::IntegerConstant(Field(body, "ival"), location, text_));
    value = std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(v));
  } else if (body.contains("fval")) {
    std::string text = StringField(Field(body, "fval"), "fval");
    if (text.find_first_of(".eE") == std::string::npos) {
      // An integer too large for 32 bits: BIGINT, like lit(int64_t).
      char* end = nullptr;
      errno = 0;
      long long v = std::strtoll(text.c_str(), &end, 10);
      if (errno == ERANGE || *end != '\0') return text_.ErrorAt(location, "integer literal " + text + " is out of range");
      // -2147483648 arrives here (Postgres folds the sign into the text): still an INT, as Spark.
      if (v >= INT32_MIN && v <= INT32_MAX) {
        value = std::make_shared<arrow::Int32Scalar>(static_cast<int32_t>(v));
      } else {
        value = std::make_shared<arrow::Int64Scalar>(v);
      }
    } else {
      ARROW_ASSIGN_OR_RAISE(value, NumericLiteral(text));
    }
  } else if (body.contains("sval")) {
    value = std::make_shared<arrow::StringScalar>(StringField(Field(body, "sval"), "sval"));
  } else if (body.contains("boolval")) {
    const json& b = Field(Field(body, "boolval"), "boolval");
    value = std::make_shared<arrow::BooleanScalar>(b.is_boolean() && b.get<bool>());
  } else if (body.contains("bsval")) {
    return text_.ErrorAt(location, "bit-string literals are not supported");
  } else {
    return text_.ErrorAt(location, "unsupported literal");
  }
  return Remember(Expr::Literal(std::move(value)), location);
}

Result<ExprPtr> ExprTranslator::TranslateAExpr(const json& body) {
  const int location = sql::LocationOf(body);
  const std::string kind = StringField(body, "kind");
  const std::string op = LastName(Field(body, "name"));
  const json& lexpr = Field(body, "lexpr");
  const json& rexpr = Field(body, "rexpr");
  if (kind == "AEXPR_OP") {
    if (lexpr.is_null()) {  // unary
      ARROW_ASSIGN_OR_RAISE(ExprPtr arg, Translate(rexpr));
      if (op == "-") return Remember(Expr::Call("negative", {arg}), location);
      if (op == "+") return arg;
      return text_.ErrorAt(location, "unsupported unary operator '" + op + "'");
    }
    if (op == "+" || op == "-") {  // t +/- INTERVAL ..., INTERVAL ... + t
      const bool right_interval = IsIntervalNode(rexpr), left_interval = op == "+" && IsIntervalNode(lexpr);
      if (right_interval || left_interval) {
        ARROW_ASSIGN_OR_RAISE(ExprPtr t, Translate(right_interval ? lexpr : rexpr));
        ARROW_ASSIGN_OR_RAISE(IntervalValue v, IntervalOf(right_interval ? rexpr : lexpr));
        const int64_t sign = op == "-" ? -1 : 1;
        auto int64 = [](int64_t x) { return Expr::Literal(std::make_shared<arrow::Int64Scalar>(x)); };
        return Remember(Expr::Call("add_interval", {t, int64(sign * v.months), int64(sign * v.days), int64(sign * v.micros)}),
                        location);
      }
    }
    ARROW_ASSIGN_OR_RAISE(ExprPtr left, Translate(lexpr));
    ARROW_ASSIGN_OR_RAISE(ExprPtr right, Translate(rexpr));
    if (op == "||") return Remember(Expr::Call("concat", {left, right}), location);
    if (op == "~" || op == "!~") {  // RLIKE / REGEXP (sql_spark_spelling.h), PostgreSQL's ~
      if (right->kind != Expr::Kind::kLiteral) return text_.ErrorAt(LocationOf(right.get()), "the RLIKE pattern must be a string literal");
      ExprPtr like = Remember(Expr::Call("regexp_like", {left, right}), location);
      return op == "~" ? like : Remember(Expr::Call("not", {like}), location);
    }
    if (op == "<=>") {  // Spark's null-safe equality (IS NOT DISTINCT FROM)
      return text_.ErrorAt(location, "the null-safe equality '<=>' is not supported (and in a join ON a NULL key "
                                     "never matches); compare with '=' after replacing NULLs, e.g. "
                                     "coalesce(a, '') = coalesce(b, '')");
    }
    auto fn = BinaryOperator(op);
    if (!fn) return text_.ErrorAt(location, "unsupported operator '" + op + "'");
    return Remember(Expr::Call(*fn, {left, right}), location);
  }
  if (kind == "AEXPR_IN") {
    ARROW_ASSIGN_OR_RAISE(ExprPtr left, Translate(lexpr));
    std::vector<ExprPtr> args{left};
    ARROW_ASSIGN_OR_RAISE(auto values, TranslateList(Field(Field(rexpr, "List"), "items")));
    args.insert(args.end(), values.begin(), values.end());
    ExprPtr in = Remember(Expr::Call("in", std::move(args)), location);
    return op == "<>" ? Remember(Expr::Call("not", {in}), location) : in;
  }
  if (kind == "AEXPR_LIKE") {
    ARROW_ASSIGN_OR_RAISE(ExprPtr left, Translate(lexpr));
    ARROW_ASSIGN_OR_RAISE(ExprPtr pattern, TranslateLikePattern(rexpr, "LIKE"));
    ExprPtr like = Remember(Expr::Call("like", {left, pattern}), location);
    return op == "!~~" ? Remember(Expr::Call("not", {like}), location) : like;
  }
  if (kind == "AEXPR_BETWEEN" || kind == "AEXPR_NOT_BETWEEN") {
    ARROW_ASSIGN_OR_RAISE(ExprPtr x, Translate(lexpr));
    ARROW_ASSIGN_OR_RAISE(auto bounds, TranslateList(Field(Field(rexpr, "List"), "items")));
    if (bounds.size() != 2) return text_.ErrorAt(location, "BETWEEN needs two bounds");
    ExprPtr both = Remember(Expr::Call("and", {Remember(Expr::Call(">=", {x, bounds[0]}), location),
                                               Remember(Expr::Call("<=", {x, bounds[1]}), location)}),
                            location);
    return kind == "AEXPR_BETWEEN" ? both : Remember(Expr::Call("not", {both}), location);
  }
  if (kind == "AEXPR_ILIKE") {
    ARROW_ASSIGN_OR_RAISE(ExprPtr left, Translate(lexpr));
    ARROW_ASSIGN_OR_RAISE(ExprPtr pattern, TranslateLikePattern(rexpr, "ILIKE"));
    ExprPtr like = Remember(Expr::Call("ilike", {left, pattern}), location);
    return op == "!~~*" ? Remember(Expr::Call("not", {like}), location) : like;
  }
  if (kind == "AEXPR_DISTINCT" || kind == "AEXPR_NOT_DISTINCT") {
    return text_.ErrorAt(location, "IS [NOT] DISTINCT FROM (Spark's '<=>') is not supported; compare with '=' "
                                   "after replacing NULLs, e.g. coalesce(a, '') = coalesce(b, '')");
  }
  if (kind == "AEXPR_NULLIF") {
    ARROW_ASSIGN_OR_RAISE(ExprPtr left, Translate(lexpr));
    ARROW_ASSIGN_OR_RAISE(ExprPtr right, Translate(rexpr));
    return Remember(Expr::Call("nullif", {left, right}), location);
  }
  if (kind == "AEXPR_OP_ANY" || kind == "AEXPR_OP_ALL") return text_.ErrorAt(location, "ANY/ALL are not supported");
  if (kind == "AEXPR_SIMILAR") return text_.ErrorAt(location, "SIMILAR TO is not supported; use LIKE");
  return text_.ErrorAt(location, "unsupported operator expression (" + kind + ")");
}

Result<ExprPtr> ExprTranslator::TranslateBool(const json& body) {
  const int location = sql::LocationOf(body);
  const std::string op = StringField(body, "boolop");
  ARROW_ASSIGN_OR_RAISE(auto args, TranslateList(Field(body, "args")));
  if (args.empty()) return text_.ErrorAt(location, "empty boolean expression");
  if (op == "NOT_EXPR") return Remember(Expr::Call("not", {args[0]}), location);
  const std::string fn = op == "AND_EXPR" ? "and" : "or";
  // a AND b AND c -> ((a AND b) AND c), as a && b && c in C++.
  ExprPtr acc = args[0];
  int begin = LocationOf(acc.get()) >= 0 ? LocationOf(acc.get()) : location;
  for (size_t i = 1; i < args.size(); ++i) acc = Remember(Expr::Call(fn, {acc, args[i]}), begin);
  return acc;
}

Result<ExprPtr> ExprTranslator::TranslateCase(const json& body) {
  const int location = sql::LocationOf(body);
  ExprPtr subject;
  if (!Field(body, "arg").is_null()) {
    ARROW_ASSIGN_OR_RAISE(subject, Translate(Field(body, "arg")));
  }
  std::vector<ExprPtr> args;
  for (const auto& w : Field(body, "args")) {
    const json& when = Field(w, "CaseWhen");
    ARROW_ASSIGN_OR_RAISE(ExprPtr cond, Translate(Field(when, "expr")));
    // CASE x WHEN v THEN ... is CASE WHEN x = v THEN ...
    if (subject) cond = Remember(Expr::Call("=", {subject, cond}), sql::LocationOf(when));
    ARROW_ASSIGN_OR_RAISE(ExprPtr result, Translate(Field(when, "result")));
    args.push_back(cond);
    args.push_back(result);
  }
  if (!Field(body, "defresult").is_null()) {
    ARROW_ASSIGN_OR_RAISE(ExprPtr otherwise, Translate(Field(body, "defresult")));
    args.push_back(otherwise);
  }
  return Remember(Expr::Call("casewhen", std::move(args)), location);
}

Result<ExprPtr> ExprTranslator::TranslateLikePattern(const json& rexpr, const std::string& what) {
  const json& func = Field(rexpr, "FuncCall");
  const bool escaped = !func.is_null() && LastName(Field(func, "funcname")) == "like_escape";
  std::vector<ExprPtr> parts;
  if (escaped) {
    ARROW_ASSIGN_OR_RAISE(parts, TranslateList(Field(func, "args")));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto pattern, Translate(rexpr));
    parts.push_back(std::move(pattern));
  }
  for (const auto& part : parts) {
    if (part->kind != Expr::Kind::kLiteral || !part->value || part->value->type->id() != arrow::Type::STRING) {
      return text_.ErrorAt(LocationOf(part.get()), "the " + what + (&part == &parts[0] ? " pattern" : " ESCAPE character") +
                                                       " must be a string literal");
    }
  }
  if (!escaped) return parts[0];
  const std::string escape = parts[1]->value->ToString();
  if (escape.size() != 1) {
    return text_.ErrorAt(LocationOf(parts[1].get()), "the " + what + " ESCAPE character must be one character, not '" +
                                                         escape + "'");
  }
  // The evaluator (Arrow's match_like) escapes with a backslash: "c%" -> "\%", a literal
  // backslash -> "\\". As Spark, the escape character may only precede _, % or itself.
  const std::string pattern = parts[0]->value->ToString();
  std::string rewritten;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == escape[0]) {
      if (i + 1 == pattern.size() || (pattern[i + 1] != '_' && pattern[i + 1] != '%' && pattern[i + 1] != escape[0])) {
        return text_.ErrorAt(LocationOf(parts[0].get()),
                             "the escape character '" + escape + "' must be followed by _, % or itself in the " + what +
                                 " pattern '" + pattern + "'");
      }
      const char next = pattern[++i];
      rewritten += next == '\\' || next == '_' || next == '%' ? std::string("\\") + next : std::string(1, next);
    } else if (c == '\\') {
      rewritten += "\\\\";
    } else {
      rewritten += c;
    }
  }
  return Remember(Expr::Literal(std::make_shared<arrow::StringScalar>(rewritten)), LocationOf(parts[0].get()));
}

Result<ExprPtr> ExprTranslator::TranslateFuncCall(const json& body) {
  SqlFunctionCall call;
  call.location = sql::LocationOf(body);
  call.name = LastName(Field(body, "funcname"));
  if (call.name == kSparkWindowFunction) call.name = "window";  // Spark's window(...), see sql_spark_spelling.h
  if (call.name == kSparkArrayFunction) call.name = "array";
  if (!Field(body, "over").is_null()) {
    return text_.ErrorAt(call.location, "window functions (" + call.name + "(...) OVER ...) are not supported; for "
                                        "event-time windows use GROUP BY tumble(ts, INTERVAL '10 minutes'), hop(...) "
                                        "or session(...); to keep the first row of each key write QUALIFY "
                                        "ROW_NUMBER() OVER (PARTITION BY key ORDER BY ts) = 1");
  }
  if (!Field(body, "agg_filter").is_null()) {
    ARROW_ASSIGN_OR_RAISE(call.filter, Translate(Field(body, "agg_filter")));
  }
  if (!Field(body, "agg_order").is_null()) {
    return text_.ErrorAt(call.location, "ORDER BY inside aggregate '" + call.name + "' is not supported");
  }
  call.star = Field(body, "agg_star").is_boolean() && Field(body, "agg_star").get<bool>();
  call.distinct = Field(body, "agg_distinct").is_boolean() && Field(body, "agg_distinct").get<bool>();
  const bool window = IsSqlWindowFunction(call.name);
  const json& args = Field(body, "args");
  for (size_t i = 0; i < args.size(); ++i) {
    ExprPtr e;
    if (window && i > 0) {
      ARROW_ASSIGN_OR_RAISE(e, TranslateIntervalLiteral(args[i]));
    } else {
      ARROW_ASSIGN_OR_RAISE(e, Translate(args[i]));
    }
    int at = LocationOf(e.get());
    call.arg_locations.push_back(at >= 0 ? at : call.location);
    call.args.push_back(std::move(e));
  }
  if (call.filter && !IsSqlAggregate(call.name)) {
    return text_.ErrorAt(call.location, "FILTER (WHERE ...) is only allowed on aggregate functions, not on " + call.name + "()");
  }
  ARROW_ASSIGN_OR_RAISE(ExprPtr out, BuildFunctionCall(call, text_));
  return Remember(out, call.location);
}

bool ExprTranslator::IsIntervalNode(const json& node) const {
  return NodeKind(node) == "TypeCast" && IsIntervalType(Field(Field(node, "TypeCast"), "typeName"));
}

Result<IntervalValue> ExprTranslator::IntervalOf(const json& node) const {
  const json& body = Field(node, "TypeCast");
  const json& type_name = Field(body, "typeName");
  const int location = sql::LocationOf(type_name);
  const json& arg = Field(Field(body, "arg"), "A_Const");
  auto unit = IntervalUnit(type_name);
  if (arg.is_null() || !arg.contains("sval") || !unit) {
    return text_.ErrorAt(location, "expected an interval literal such as INTERVAL '1' HOUR or INTERVAL '1 hour 30 minutes'");
  }
  auto value = ParseInterval(StringField(Field(arg, "sval"), "sval"), *unit);
  if (!value.ok()) return text_.ErrorAt(location, value.status().message());
  return *value;
}

Result<ExprPtr> ExprTranslator::TranslateIntervalLiteral(const json& node) {
  const std::string kind = NodeKind(node);
  const json& body = Field(node, kind.c_str());
  int location = sql::LocationOf(body);
  const char* what = "an interval literal such as INTERVAL '10 minutes' or '10 minutes'";
  if (kind == "A_Const" && body.contains("sval")) {
    return Remember(Expr::Literal(std::make_shared<arrow::StringScalar>(StringField(Field(body, "sval"), "sval"))),
                    location);
  }
  if (kind == "TypeCast" && IsIntervalType(Field(body, "typeName"))) {
    const json& type_name = Field(body, "typeName");
    const json& arg = Field(Field(body, "arg"), "A_Const");
    location = sql::LocationOf(type_name);
    auto unit = IntervalUnit(type_name);
    if (arg.is_null() || !arg.contains("sval") || !unit) {
      return text_.ErrorAt(location, std::string("expected ") + what);
    }
    std::string value = StringField(Field(arg, "sval"), "sval");
    if (!unit->empty()) value += " " + *unit;
    return Remember(Expr::Literal(std::make_shared<arrow::StringScalar>(value)), location);
  }
  return text_.ErrorAt(location, std::string("expected ") + what);
}

std::optional<Status> ExprTranslator::InnermostError(const Expr& e, int inherited_location) const {
  int here = LocationOf(&e);
  if (here < 0) here = inherited_location;
  for (const auto& arg : e.args) {
    if (auto st = InnermostError(*arg, here)) return st;
  }
  if (plan::IsStar(e)) return std::nullopt;
  auto resolved = plan::ResolveExpr(e, *input_);
  if (resolved.ok()) return std::nullopt;
  return text_.ErrorAt(here, resolved.status().message());
}

Status ExprTranslator::LocateError(const ExprPtr& root, const Status& error, int fallback_location) const {
  if (input_ && root) {
    if (auto st = InnermostError(*root, fallback_location)) return *st;
  }
  return text_.ErrorAt(fallback_location, error.message());
}

}  // namespace sluice::sql
