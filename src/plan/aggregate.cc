#include "plan/aggregate.h"

#include <arrow/api.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <sstream>
#include <set>

#include "plan/expr_resolve.h"
#include "plan/logical_plan.h"
#include "util/duration.h"
#include "util/strings.h"

namespace sluice::plan {
namespace {

const std::vector<std::string> kAggregateFunctions = {
    "count",     "count_distinct", "sum",    "avg",         "min",        "max",      "first",   "last",
    "count_if",  "bool_and",       "bool_or", "any_value",  "stddev",     "stddev_samp", "stddev_pop",
    "variance",  "var_samp",       "var_pop",  "sum_distinct", "avg_distinct", "max_by",    "min_by",
    "collect_list", "collect_set", "approx_count_distinct", "percentile_approx"};

// Spark's moments aggregates: sample (n - 1) or population (n), standard deviation or variance.
bool IsMomentsAggregate(const std::string& fn) {
  return fn == "stddev" || fn == "stddev_samp" || fn == "stddev_pop" || fn == "variance" || fn == "var_samp" ||
         fn == "var_pop";
}

const Expr& Unalias(const Expr& e) { return e.kind == Expr::Kind::kAlias && !e.args.empty() ? Unalias(*e.args[0]) : e; }

bool IsAggCall(const Expr& e) { return e.kind == Expr::Kind::kCall && IsAggregateFunction(e.name); }

bool IsWindowCall(const Expr& e) { return e.kind == Expr::Kind::kCall && IsWindowFunction(e.name); }

Result<std::string> StringLiteralArg(const Expr& call, size_t i, const std::string& what) {
  if (i >= call.args.size() || call.args[i]->kind != Expr::Kind::kLiteral || !call.args[i]->value ||
      !call.args[i]->value->is_valid) {
    return Status::Invalid(call.name, "(): the ", what, " must be an interval literal such as '10 minutes', in ",
                           call.ToString());
  }
  const auto& v = *call.args[i]->value;
  if (v.type->id() == arrow::Type::STRING) return static_cast<const arrow::StringScalar&>(v).ToString();
  return Status::Invalid(call.name, "(): the ", what, " must be an interval such as '10 minutes', not ",
                         call.args[i]->ToString(), " (in ", call.ToString(), ")");
}

bool IsOrderable(const arrow::DataType& t) {
  return IsNumericType(t) || IsStringType(t) || IsTemporalType(t) || t.id() == arrow::Type::BOOL;
}

// Argument counts of the aggregates that take more than one argument.
std::pair<size_t, size_t> AggArity(const std::string& fn) {
  if (fn == "max_by" || fn == "min_by") return {2, 2};
  if (fn == "approx_count_distinct") return {1, 2};
  if (fn == "percentile_approx") return {2, 3};
  return {1, 1};
}

std::string AggUsage(const std::string& fn) {
  if (fn == "count_distinct") return "count(DISTINCT x)";
  if (fn == "sum_distinct") return "sum(DISTINCT x)";
  if (fn == "avg_distinct") return "avg(DISTINCT x)";
  if (fn == "max_by" || fn == "min_by") return fn + "(x, ord)";
  if (fn == "approx_count_distinct") return "approx_count_distinct(x[, rsd])";
  if (fn == "percentile_approx") return "percentile_approx(x, percentage | array(percentage, ...)[, accuracy])";
  return fn + "(x)";
}

// A numeric literal (a constant such as 0.5 or 100) as a double. `what` names it in errors ("the
// accuracy"); `call` is the aggregate call it belongs to.
Result<double> NumberLiteral(const Expr& e, const Expr& call, const std::string& what) {
  if (e.kind != Expr::Kind::kLiteral || !e.value || !e.value->is_valid || !IsNumericType(*e.value->type)) {
    return Status::Invalid(call.name, "(): ", what, " must be a numeric literal, but it is ", e.ToString(), " (in ",
                           call.ToString(), ")");
  }
  if (e.value->type->id() == arrow::Type::DECIMAL128) {  // 0.5 in SQL is DECIMAL(1,1)
    // Through the text, so 0.3 is the double nearest 0.3 (Decimal128::ToDouble can be one ulp off).
    const auto& dec = static_cast<const arrow::Decimal128Scalar&>(*e.value);
    return std::strtod(dec.value.ToString(static_cast<const arrow::Decimal128Type&>(*dec.type).scale()).c_str(),
                       nullptr);
  }
  ARROW_ASSIGN_OR_RAISE(auto d, e.value->CastTo(arrow::float64()));
  return static_cast<const arrow::DoubleScalar&>(*d).value;
}

// The numeric literal argument `i` of `call`.
Result<double> NumberLiteralArg(const Expr& call, size_t i, const std::string& what) {
  return NumberLiteral(*call.args[i], call, "the " + what);
}

// percentile_approx's percentages: one literal, or array(...) of literals (Spark's ARRAY<DOUBLE>,
// whose result is an array with one value per percentage, in order). Each must be in [0, 1].
Status ResolvePercentages(const Expr& call, AggCall* a) {
  const Expr& p = *call.args[1];
  std::vector<const Expr*> given;
  if (p.kind == Expr::Kind::kCall && p.name == "array") {
    a->percentage_array = true;
    for (const auto& e : p.args) {
      ARROW_ASSIGN_OR_RAISE(double v, NumberLiteral(*e, call, "each percentage in " + p.ToString()));
      a->percentages.push_back(v);
      given.push_back(e.get());
    }
  } else {
    ARROW_ASSIGN_OR_RAISE(double v, NumberLiteralArg(call, 1, "percentage"));
    a->percentages.push_back(v);
    given.push_back(&p);
  }
  for (size_t j = 0; j < given.size(); ++j) {
    if (!(a->percentages[j] >= 0.0 && a->percentages[j] <= 1.0)) {
      return Status::Invalid("percentile_approx(): the percentage must be between 0.0 and 1.0, but it is ",
                             given[j]->ToString(), " (in ", call.ToString(), ")");
    }
  }
  return Status::OK();
}

// Spark's HyperLogLog++ precision for a relative standard deviation: ceil(2 log2(1.106 / rsd)),
// at least 4. Beyond 18 bits (rsd < 0.0017) the registers would take over 256 KiB per group.
Result<int> HllPrecision(double rsd, const std::string& text) {
  const double p = std::ceil(2.0 * std::log(1.106 / rsd) / std::log(2.0));
  if (!(rsd > 0) || p < 4) {
    return Status::Invalid("approx_count_distinct(): HLL++ requires at least 4 bits for addressing; use a relative "
                           "standard deviation of at most 0.39 (in ", text, ")");
  }
  if (p > 18) {
    return Status::Invalid("approx_count_distinct(): a relative standard deviation below 0.0017 needs more than 18 "
                           "index bits; use 0.0017 or more, or count(DISTINCT x) for an exact count (in ", text, ")");
  }
  return static_cast<int>(p);
}

Result<WindowSpec> ResolveWindow(const Expr& call, const arrow::Schema& input, int group_index) {
  WindowSpec w;
  w.group_index = group_index;
  const bool session = call.name == "session_window";
  const size_t max_args = session ? 2 : 3;
  if (call.args.size() < 2 || call.args.size() > max_args) {
    return Status::Invalid(session ? "session_window(time, gap)" : "window(time, size[, slide])",
                           " takes ", session ? "2" : "2 or 3", " arguments: ", call.ToString());
  }
  w.time = call.args[0];
  ARROW_ASSIGN_OR_RAISE(auto tf, ResolveExpr(*w.time, input));
  if (tf->type()->id() != arrow::Type::TIMESTAMP) {
    return Status::TypeError(call.name, "() needs a timestamp time column, but ", w.time->ToString(), " is ",
                             TypeName(*tf->type()), " (in ", call.ToString(), ")");
  }
  ARROW_ASSIGN_OR_RAISE(auto size_text, StringLiteralArg(call, 1, session ? "gap" : "window duration"));
  ARROW_ASSIGN_OR_RAISE(int64_t size_ms, ParseIntervalMs(call.name + "() " + (session ? "gap" : "duration"), size_text));
  if (size_ms <= 0) return Status::Invalid(call.name, "(): the duration must be positive in ", call.ToString());
  w.size_us = size_ms * 1000;
  w.slide_us = w.size_us;
  if (session) {
    w.kind = WindowSpec::Kind::kSession;
  } else if (call.args.size() == 3) {
    ARROW_ASSIGN_OR_RAISE(auto slide_text, StringLiteralArg(call, 2, "slide duration"));
    ARROW_ASSIGN_OR_RAISE(int64_t slide_ms, ParseIntervalMs("window() slide", slide_text));
    if (slide_ms <= 0 || slide_ms > size_ms) {
      return Status::Invalid("window(): the slide duration must be positive and at most the window duration, in ",
                             call.ToString());
    }
    w.slide_us = slide_ms * 1000;
    w.kind = w.slide_us == w.size_us ? WindowSpec::Kind::kTumbling : WindowSpec::Kind::kSliding;
  }
  return w;
}

Result<AggCall> ResolveAgg(const Expr& e, const arrow::Schema& input) {
  const Expr& call = Unalias(e);
  AggCall a;
  a.fn = call.name;
  a.name = OutputName(e);
  a.mode = call.mode;
  const std::string text = call.ToString();
  const auto [min_args, max_args] = AggArity(a.fn);
  if (call.args.size() < min_args || call.args.size() > max_args) {
    return Status::Invalid(AggUsage(a.fn), " takes ", min_args == max_args ? std::to_string(min_args)
                                                     : std::to_string(min_args) + " or " + std::to_string(max_args),
                           min_args == 1 && max_args == 1 ? " argument: " : " arguments: ", text);
  }
  a.arg = call.args[0];
  if (IsStar(*a.arg)) {
    if (a.fn != "count") return Status::Invalid(a.fn, "(*) is not allowed; only count(*) takes *");
    a.arg = Expr::Literal(std::make_shared<arrow::Int64Scalar>(1));
  }
  if (ContainsAggregate(*a.arg)) {
    return Status::Invalid("Aggregate functions cannot be nested: ", text);
  }
  ARROW_ASSIGN_OR_RAISE(auto f, ResolveExpr(*a.arg, input));
  a.arg_type = f->type();
  const auto& t = *a.arg_type;
  auto type_error = [&](const std::string& need) {
    return Status::TypeError(a.fn, "() needs ", need, ", but ", a.arg->ToString(), " is ", TypeName(t), " (in ", text,
                             ")");
  };
  if (a.fn == "count" || a.fn == "count_distinct") {
    a.out_type = arrow::int64();
    a.nullable = false;
  } else if (a.fn == "sum") {
    if (IsIntegerType(t)) {
      a.out_type = arrow::int64();
    } else if (t.id() == arrow::Type::FLOAT || t.id() == arrow::Type::DOUBLE) {
      a.out_type = arrow::float64();
    } else if (t.id() == arrow::Type::DECIMAL128) {
      const auto& d = static_cast<const arrow::Decimal128Type&>(t);
      a.out_type = arrow::decimal128(std::min(38, d.precision() + 10), d.scale());
    } else {
      return type_error("a numeric argument");
    }
  } else if (a.fn == "avg") {
    if (!IsNumericType(t)) return type_error("a numeric argument");
    if (t.id() == arrow::Type::DECIMAL128) {
      // Spark: DECIMAL(p+4, s+4), each bounded at 38.
      const auto& d = static_cast<const arrow::Decimal128Type&>(t);
      a.out_type = arrow::decimal128(std::min(38, d.precision() + 4), std::min(38, d.scale() + 4));
    } else {
      a.out_type = arrow::float64();
    }
  } else if (a.fn == "count_if" || a.fn == "bool_and" || a.fn == "bool_or") {
    if (t.id() != arrow::Type::BOOL && t.id() != arrow::Type::NA) return type_error("a boolean argument");
    // count_if(c) counts the rows where c is true; bool_and/bool_or are min/max over booleans
    // (false < true): the existing states, so they restore and merge as those do.
    if (a.fn == "count_if") {
      a.arg = Expr::Call("casewhen", {a.arg, Expr::Literal(std::make_shared<arrow::Int64Scalar>(1))});
      a.arg_type = arrow::int64();
      a.fn = "count";
      a.out_type = arrow::int64();
      a.nullable = false;
    } else {
      a.fn = a.fn == "bool_and" ? "min" : "max";
      a.arg_type = arrow::boolean();
      if (t.id() == arrow::Type::NA) a.arg = Expr::Cast(a.arg, arrow::boolean());
      a.out_type = arrow::boolean();
    }
  } else if (a.fn == "any_value") {  // Spark's any_value(x) is first(x)
    if (t.id() == arrow::Type::NA) return type_error("a typed argument");
    a.fn = "first";
    a.out_type = a.arg_type;
  } else if (IsMomentsAggregate(a.fn)) {
    if (!IsNumericType(t) && t.id() != arrow::Type::NA) return type_error("a numeric argument");
    if (a.fn == "stddev") a.fn = "stddev_samp";
    if (a.fn == "variance") a.fn = "var_samp";
    a.out_type = arrow::float64();
  } else if (a.fn == "sum_distinct" || a.fn == "avg_distinct") {
    // The distinct values are kept; the sum/average over them has sum()'s/avg()'s type.
    auto plain_call = Expr::Call(a.fn == "sum_distinct" ? "sum" : "avg", {a.arg});
    ARROW_ASSIGN_OR_RAISE(auto resolved, ResolveAgg(*plain_call, input));
    a.out_type = resolved.out_type;
  } else if (a.fn == "max_by" || a.fn == "min_by") {
    if (t.id() == arrow::Type::NA) return type_error("a typed value argument");
    a.ordering = call.args[1];
    if (ContainsAggregate(*a.ordering)) return Status::Invalid("Aggregate functions cannot be nested: ", text);
    ARROW_ASSIGN_OR_RAISE(auto of, ResolveExpr(*a.ordering, input));
    a.ordering_type = of->type();
    if (!IsOrderable(*a.ordering_type)) {
      return Status::TypeError(a.fn, "() needs an orderable ordering argument (number, string, date, timestamp, "
                               "boolean), but ", a.ordering->ToString(), " is ", TypeName(*a.ordering_type), " (in ",
                               text, ")");
    }
    a.out_type = a.arg_type;
  } else if (a.fn == "collect_list" || a.fn == "collect_set") {
    if (t.id() == arrow::Type::NA) return type_error("a typed argument");
    a.out_type = arrow::list(arrow::field("element", a.arg_type, false));
    a.nullable = false;
  } else if (a.fn == "approx_count_distinct") {
    if (t.id() == arrow::Type::NA) return type_error("a typed argument");
    double rsd = 0.05;
    if (call.args.size() == 2) {
      ARROW_ASSIGN_OR_RAISE(rsd, NumberLiteralArg(call, 1, "relative standard deviation"));
    }
    ARROW_ASSIGN_OR_RAISE(a.hll_precision, HllPrecision(rsd, text));
    a.out_type = arrow::int64();
    a.nullable = false;
  } else if (a.fn == "percentile_approx") {
    if (!IsNumericType(t) && t.id() != arrow::Type::DATE32 && t.id() != arrow::Type::TIMESTAMP) {
      return type_error("a numeric, date or timestamp argument");
    }
    ARROW_RETURN_NOT_OK(ResolvePercentages(call, &a));
    double accuracy = 10000;
    if (call.args.size() == 3) {
      ARROW_ASSIGN_OR_RAISE(accuracy, NumberLiteralArg(call, 2, "accuracy"));
    }
    if (!(accuracy > 0 && accuracy <= 2147483647.0) || accuracy != std::floor(accuracy)) {
      return Status::Invalid("percentile_approx(): the accuracy must be a positive integer literal (at most "
                             "2147483647), but it is ", call.args[2]->ToString(), " (in ", text, ")");
    }
    a.accuracy = static_cast<int64_t>(accuracy);
    // Spark's ArrayType(x's type, containsNull = false): NULL is the whole result's (no value yet).
    a.out_type = a.percentage_array ? arrow::list(arrow::field("element", a.arg_type, false)) : a.arg_type;
  } else if (a.fn == "min" || a.fn == "max") {
    if (!IsOrderable(t)) {
      return type_error("an orderable argument (number, string, date, timestamp, boolean)");
    }
    a.out_type = a.arg_type;
  } else {  // first, last
    if (t.id() == arrow::Type::NA) return type_error("a typed argument");
    a.out_type = a.arg_type;
  }
  return a;
}

// What an Aggregate node outputs, for rewriting expressions over it.
struct AggOutput {
  std::vector<std::pair<std::string, std::string>> group_text_to_name;  // grouping expr text -> column
  std::set<std::string> names;                                          // every output column
  const arrow::Schema* input = nullptr;
};

Result<ExprPtr> Rewrite(const ExprPtr& e, const AggOutput& out, const std::vector<std::pair<std::string, std::string>>& aggs) {
  const std::string text = e->ToString();
  for (const auto& [gtext, name] : out.group_text_to_name) {
    if (gtext == text) return Expr::Column(name);
  }
  if (IsAggCall(*e)) {
    for (const auto& [atext, name] : aggs) {
      if (atext == text) return Expr::Column(name);
    }
    return Status::Invalid("internal: aggregate ", text, " was not collected");
  }
  if (IsWindowCall(*e)) {
    return Status::Invalid(e->name, "() can only be used as a grouping expression; select window_start and window_end "
                           "to get the window's bounds: ", text);
  }
  switch (e->kind) {
    case Expr::Kind::kColumn:
      if (IsStar(*e)) return Status::Invalid("SELECT * cannot be used with GROUP BY or aggregate functions");
      if (out.names.count(e->name)) return e;
      if (out.input && out.input->GetFieldByName(e->name)) {
        return Status::Invalid("Column '", e->name, "' must appear in the GROUP BY clause or be used in an aggregate "
                               "function");
      }
      return Status::Invalid("Column '", e->name, "' does not exist after the aggregation");
    case Expr::Kind::kLiteral: return e;
    case Expr::Kind::kAlias: {
      ARROW_ASSIGN_OR_RAISE(auto inner, Rewrite(e->args[0], out, aggs));
      return Expr::Alias(inner, e->name);
    }
    case Expr::Kind::kCast: {
      ARROW_ASSIGN_OR_RAISE(auto inner, Rewrite(e->args[0], out, aggs));
      return Expr::Cast(inner, e->type);
    }
    case Expr::Kind::kCall: {
      std::vector<ExprPtr> args;
      for (const auto& a : e->args) {
        ARROW_ASSIGN_OR_RAISE(auto r, Rewrite(a, out, aggs));
        args.push_back(std::move(r));
      }
      return Expr::Call(e->name, std::move(args));
    }
  }
  return e;
}

void CollectAggCalls(const ExprPtr& e, std::vector<ExprPtr>* calls) {
  if (IsAggCall(*e)) {
    calls->push_back(e);
    return;
  }
  for (const auto& a : e->args) CollectAggCalls(a, calls);
}

}  // namespace

bool IsAggregateFunction(const std::string& fn) {
  return std::find(kAggregateFunctions.begin(), kAggregateFunctions.end(), fn) != kAggregateFunctions.end();
}

bool IsWindowFunction(const std::string& fn) { return fn == "window" || fn == "session_window"; }

bool ContainsAggregate(const Expr& e) {
  if (IsAggCall(e)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return ContainsAggregate(*a); });
}

std::string AggCall::ToString() const {
  std::string call;
  if (fn == "count_distinct" || fn == "sum_distinct" || fn == "avg_distinct") {
    call = fn.substr(0, fn.find('_')) + "(DISTINCT " + arg->ToString() + ")";
  } else {
    call = fn + "(" + arg->ToString();
    if (ordering) call += ", " + ordering->ToString();
    if (fn == "approx_count_distinct") call += ", p=" + std::to_string(hll_precision);
    if (fn == "percentile_approx") {
      std::ostringstream p;
      for (size_t j = 0; j < percentages.size(); ++j) p << (j ? ", " : "") << percentages[j];
      call += ", " + (percentage_array ? "array(" + p.str() + ")" : p.str()) + ", " + std::to_string(accuracy);
    }
    call += ")";
  }
  return call == name ? call : call + " AS " + name;
}

std::string WindowSpec::ToString() const {
  auto dur = [](int64_t us) { return std::to_string(us / 1000) + " ms"; };
  switch (kind) {
    case Kind::kTumbling: return "tumbling window(" + time->ToString() + ", " + dur(size_us) + ")";
    case Kind::kSliding: return "sliding window(" + time->ToString() + ", " + dur(size_us) + ", slide " + dur(slide_us) + ")";
    case Kind::kSession: return "session window(" + time->ToString() + ", gap " + dur(size_us) + ")";
  }
  return "?";
}

Result<int64_t> ParseIntervalMs(const std::string& what, const std::string& text) {
  std::string t = util::Trim(text);
  if (util::ToLower(t).starts_with("interval")) t = util::Trim(t.substr(8));
  if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front()) {
    t = util::Trim(t.substr(1, t.size() - 2));
  }
  return util::ParseDurationMs(what, t);
}

Result<PlanPtr> LogicalPlan::Aggregate(PlanPtr input, std::vector<ExprPtr> group_exprs, std::vector<ExprPtr> agg_exprs) {
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kAggregate;
  arrow::FieldVector fields;
  std::set<std::string> names;
  auto add_field = [&](std::shared_ptr<arrow::Field> f) -> Status {
    if (!names.insert(f->name()).second) {
      return Status::Invalid("The aggregation would output two columns named '", f->name(),
                             "'; give one of them another name with alias()/AS");
    }
    fields.push_back(std::move(f));
    return Status::OK();
  };
  for (size_t i = 0; i < group_exprs.size(); ++i) {
    const auto& g = group_exprs[i];
    if (ContainsAggregate(*g)) {
      return Status::Invalid("Aggregate functions are not allowed in GROUP BY: ", g->ToString());
    }
    if (IsWindowCall(Unalias(*g))) {
      if (node->window) return Status::Invalid("Only one window()/session_window() per aggregation: ", g->ToString());
      ARROW_ASSIGN_OR_RAISE(auto w, ResolveWindow(Unalias(*g), *input->schema, static_cast<int>(i)));
      node->window = std::move(w);
      ARROW_RETURN_NOT_OK(add_field(arrow::field("window_start", DefaultTimestampType(), false)));
      ARROW_RETURN_NOT_OK(add_field(arrow::field("window_end", DefaultTimestampType(), false)));
      continue;
    }
    if (IsStar(*g)) return Status::Invalid("GROUP BY * is not supported; name the grouping columns");
    ARROW_ASSIGN_OR_RAISE(auto f, ResolveExpr(*g, *input->schema));
    ARROW_RETURN_NOT_OK(add_field(f));
  }
  for (const auto& e : agg_exprs) {
    if (!IsAggCall(Unalias(*e))) {
      return Status::Invalid("Expected an aggregate function call (count, sum, avg, min, max, first, last), got ",
                             e->ToString());
    }
    ARROW_ASSIGN_OR_RAISE(auto a, ResolveAgg(*e, *input->schema));
    ARROW_RETURN_NOT_OK(add_field(arrow::field(a.name, a.out_type, a.nullable)));
    node->aggs.push_back(std::move(a));
  }
  node->group_exprs = std::move(group_exprs);
  node->schema = arrow::schema(std::move(fields));
  node->input = std::move(input);
  return PlanPtr(node);
}

Result<PlanPtr> PlanAggregation(PlanPtr input, const std::vector<ExprPtr>& group_exprs,
                                const std::vector<ExprPtr>& select_exprs, ExprPtr having) {
  // 1. The aggregate calls, named: a top-level (aliased) call gets the select item's name;
  //    others their text. The same call text is computed once.
  std::vector<std::pair<std::string, std::string>> aggs;  // call text -> column name
  std::vector<ExprPtr> agg_exprs;
  std::set<std::string> used;
  for (const auto& g : group_exprs) {
    if (!IsWindowCall(Unalias(*g))) used.insert(OutputName(*g));
  }
  auto add = [&](const ExprPtr& call, const std::string& wanted) {
    const std::string text = call->ToString();
    for (const auto& a : aggs) {
      if (a.first == text) return;
    }
    std::string name = used.count(wanted) ? text : wanted;
    used.insert(name);
    aggs.emplace_back(text, name);
    agg_exprs.push_back(name == text ? call : Expr::Alias(call, name));
  };
  for (const auto& s : select_exprs) {
    if (IsAggCall(Unalias(*s))) {
      add(std::make_shared<Expr>(Unalias(*s)), OutputName(*s));
      continue;
    }
    std::vector<ExprPtr> calls;
    CollectAggCalls(s, &calls);
    for (const auto& c : calls) add(c, c->ToString());
  }
  if (having) {
    std::vector<ExprPtr> calls;
    CollectAggCalls(having, &calls);
    for (const auto& c : calls) add(c, c->ToString());
  }
  ARROW_ASSIGN_OR_RAISE(auto agg, LogicalPlan::Aggregate(input, group_exprs, agg_exprs));

  // 2. Rewrite select items and HAVING over the aggregate's output columns.
  AggOutput out;
  out.input = input->schema.get();
  for (const auto& f : agg->schema->fields()) out.names.insert(f->name());
  for (const auto& g : group_exprs) {
    if (!IsWindowCall(Unalias(*g))) out.group_text_to_name.emplace_back(Unalias(*g).ToString(), OutputName(*g));
  }
  PlanPtr plan = agg;
  if (having) {
    ARROW_ASSIGN_OR_RAISE(auto pred, Rewrite(having, out, aggs));
    ARROW_ASSIGN_OR_RAISE(plan, LogicalPlan::Filter(plan, pred));
  }
  std::vector<ExprPtr> projected;
  for (const auto& s : select_exprs) {
    ARROW_ASSIGN_OR_RAISE(auto r, Rewrite(s, out, aggs));
    // "count(1) AS n" became "n AS n": just the column.
    if (r->kind == Expr::Kind::kAlias && r->args[0]->kind == Expr::Kind::kColumn && r->args[0]->name == r->name) {
      r = r->args[0];
    }
    // Keep the item's own output name (e.g. "k" for k, "sum(x)" for sum(x)).
    if (OutputName(*r) != OutputName(*s)) r = Expr::Alias(r, OutputName(*s));
    projected.push_back(std::move(r));
  }
  bool identity = projected.size() == static_cast<size_t>(agg->schema->num_fields()) && plan == agg;
  for (size_t i = 0; identity && i < projected.size(); ++i) {
    identity = projected[i]->kind == Expr::Kind::kColumn && projected[i]->name == agg->schema->field(static_cast<int>(i))->name();
  }
  if (identity) return plan;
  return LogicalPlan::Project(plan, std::move(projected));
}

}  // namespace sluice::plan
