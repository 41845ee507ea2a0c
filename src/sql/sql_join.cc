#include "sql/sql_join.h"

#include <arrow/api.h>

#include <algorithm>

#include "api/access.h"
#include "plan/stream_join_eviction.h"
#include "sql/sql_expr.h"
#include "sql/sql_parse.h"
#include "sql/sql_relation.h"
#include "sql/sql_select.h"
#include "sql/sql_spark_spelling.h"

namespace sluice::sql {
namespace {

using nlohmann::json;

// One side of a join: a DataFrame whose columns may be qualified with `names`; `rename_as` is
// the qualifier a clashing column gets ("" for a nested join: its columns keep their names).
struct Side {
  DataFrame frame;
  std::vector<std::string> names;
  std::string rename_as;
  int location = -1;
};

Result<Side> PlanItem(const json& item, int begin, const Script& script, const SqlText& text, const ConnectorContext& ctx);


Result<Side> PlanTable(const json& body, const Script& script, const SqlText& text, const ConnectorContext& ctx) {
  const int location = LocationOf(body);
  const std::string name = text.IdentifierAt(location, StringField(body, "relname"));
  const json& alias = Field(body, "alias");
  const std::string alias_name =
      alias.is_null() ? std::string() : StringField(Field(alias, "Alias"), "aliasname", StringField(alias, "aliasname"));
  // A view or WITH name (which shadows a table of that name): its plan joins like a table, static
  // when its tables are.
  ARROW_ASSIGN_OR_RAISE(std::optional<DataFrame> view, PlanView(name, location, script, text, ctx));
  if (view) {
    Side side{*view, {name}, alias_name.empty() ? name : alias_name, location};
    if (!alias_name.empty()) side.names.push_back(alias_name);
    return side;
  }
  const TableDecl* table = script.FindTable(name);
  if (!table) return text.ErrorAt(location, "unknown table '" + name + "'");
  auto is_static = IsStaticTable(*table);
  if (!is_static.ok()) return LocateTableError(*table, is_static.status(), location, text);
  ConnectorContext read_ctx = ctx;
  if (*is_static) read_ctx.streaming = false;
  ARROW_ASSIGN_OR_RAISE(DataFrame raw, ReadTable(*table, location, text, read_ctx));
  ARROW_ASSIGN_OR_RAISE(DataFrame marked, ApplyEventTime(*table, raw, text));
  Side side{marked, {table->name}, table->name, location};
  if (!alias.is_null()) {
    side.rename_as = alias_name;
    side.names.push_back(side.rename_as);
  }
  return side;
}

// Renames the columns of `side` named in `clashing` to "<rename_as>.<column>".
Result<DataFrame> Qualify(const Side& side, const std::vector<std::string>& clashing) {
  if (clashing.empty() || side.rename_as.empty()) return side.frame;
  DataFrame df = side.frame;
  for (const auto& c : clashing) df = df.withColumnRenamed(c, side.rename_as + "." + c);
  if (!df.ok()) return df.status();
  return df;
}

Result<std::string> JoinTypeOf(const json& body, int right_location, const SqlText& text) {
  const std::string type = StringField(body, "jointype");
  auto word = SparkJoinWordBefore(text.text(), right_location);
  if (word) {
    if (type != "JOIN_LEFT" && type != "JOIN_INNER") {
      return text.ErrorAt(right_location, "SEMI and ANTI joins are written LEFT SEMI JOIN and LEFT ANTI JOIN");
    }
    return *word == "semi" ? std::string("left_semi") : std::string("left_anti");
  }
  if (type == "JOIN_INNER") return std::string("inner");
  if (type == "JOIN_LEFT") return std::string("left_outer");
  if (type == "JOIN_RIGHT") return std::string("right_outer");
  if (type == "JOIN_FULL") return std::string("full_outer");
  return text.ErrorAt(right_location, "unsupported join type " + type);
}

// The input (0 left, 1 right) whose columns are all that `e` reads, or -1 (both, none, or a
// column of `pair` it cannot place); `left_fields` = how many of `pair`'s fields are the left's.
int InputOf(const plan::Expr& e, const arrow::Schema& pair, int left_fields) {
  if (e.kind == plan::Expr::Kind::kColumn) {
    const int i = pair.GetFieldIndex(e.name);
    return i < 0 ? -2 : i < left_fields ? 0 : 1;
  }
  int side = -1;
  for (const auto& a : e.args) {
    const int s = InputOf(*a, pair, left_fields);
    if (s == -2 || (s >= 0 && side >= 0 && s != side)) return -2;
    if (s >= 0) side = s;
  }
  return side;
}

// True when every column `e` reads is a column of `input` under the same name (not a clashing
// column renamed "<table>.<column>" for the join).
bool ReadsOnly(const plan::Expr& e, const arrow::Schema& input) {
  if (e.kind == plan::Expr::Kind::kColumn) return input.GetFieldIndex(e.name) >= 0;
  return std::all_of(e.args.begin(), e.args.end(), [&](const plan::ExprPtr& a) { return ReadsOnly(*a, input); });
}

// Spark's optimizer moves a join condition's conjunct that reads one input only into that input
// where the join type keeps the answer (inner and left semi: either input; left outer and left
// anti: the right one; right outer: the left one; full outer: none). The rows it drops then never
// reach the join's state and (LogicalPlan::Filter moves it below an input's watermark) never move
// the watermark. Returns the condition the join keeps (`condition` itself when nothing moved;
// never empty).
Result<plan::ExprPtr> PushIntoInputs(const plan::ExprPtr& condition, const std::string& how, const arrow::Schema& pair,
                                     Side* left, Side* right) {
  const bool to_left = how == "inner" || how == "left_semi" || how == "right_outer";
  const bool to_right = how == "inner" || how == "left_semi" || how == "left_outer" || how == "left_anti";
  std::vector<plan::ExprPtr> conjuncts, kept, pushed[2];
  plan::SplitConjuncts(condition, &conjuncts);
  Side* sides[2] = {left, right};
  const int left_fields = left->frame.schema()->num_fields();
  for (const auto& c : conjuncts) {
    const int input = InputOf(*c, pair, left_fields);
    const bool allowed = input == 0 ? to_left : input == 1 ? to_right : false;
    if (allowed && ReadsOnly(*c, *sides[input]->frame.schema())) {
      pushed[input].push_back(c);
    } else {
      kept.push_back(c);
    }
  }
  if (kept.empty() || (pushed[0].empty() && pushed[1].empty())) return condition;
  for (int i = 0; i < 2; ++i) {
    if (pushed[i].empty()) continue;
    sides[i]->frame = sides[i]->frame.filter(api::MakeColumn(plan::AllOf(pushed[i])));
    if (!sides[i]->frame.ok()) return sides[i]->frame.status();
  }
  return plan::AllOf(kept);
}

Result<Side> PlanJoin(const json& body, int begin, const Script& script, const SqlText& text, const ConnectorContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(Side left, PlanItem(Field(body, "larg"), begin, script, text, ctx));
  ARROW_ASSIGN_OR_RAISE(Side right, PlanItem(Field(body, "rarg"), begin, script, text, ctx));
  if (Field(body, "isNatural").is_boolean() && Field(body, "isNatural").get<bool>()) {
    return text.ErrorAt(right.location, "NATURAL JOIN is not supported; name the columns with USING (...)");
  }
  ARROW_ASSIGN_OR_RAISE(std::string how, JoinTypeOf(body, right.location, text));
  std::vector<std::string> using_columns;
  for (const auto& u : Field(body, "usingClause")) {
    const std::string folded = StringField(Field(u, "String"), "sval");
    // USING names a column of both sides: take the left side's spelling.
    std::string spelled = folded;
    for (const auto& f : left.frame.schema()->fields()) {
      if (SameIdentifier(f->name(), folded)) spelled = f->name();
    }
    using_columns.push_back(spelled);
  }
  std::vector<std::string> clashing;
  for (const auto& f : left.frame.schema()->fields()) {
    if (right.frame.schema()->GetFieldIndex(f->name()) < 0) continue;
    if (std::find(using_columns.begin(), using_columns.end(), f->name()) != using_columns.end()) continue;
    clashing.push_back(f->name());
  }
  ARROW_ASSIGN_OR_RAISE(DataFrame l, Qualify(left, clashing));
  ARROW_ASSIGN_OR_RAISE(DataFrame r, Qualify(right, clashing));
  std::vector<std::string> names = left.names;
  names.insert(names.end(), right.names.begin(), right.names.end());
  DataFrame joined = l;
  const json& quals = Field(body, "quals");
  if (!using_columns.empty()) {
    joined = l.join(r, using_columns, how);
  } else if (quals.is_null()) {
    joined = l.join(r, std::vector<std::string>{}, how);
  } else {
    arrow::FieldVector pair = l.schema()->fields();
    for (const auto& f : r.schema()->fields()) pair.push_back(f);
    const std::string ansi = FoldCase(ctx.session->conf("spark.sql.ansi.enabled", "true"));
    ExprTranslator translator(text, arrow::schema(pair), names,
                              ansi == "false" ? plan::EvalMode::kLegacy : plan::EvalMode::kAnsi);
    ARROW_ASSIGN_OR_RAISE(plan::ExprPtr condition, translator.Translate(quals));
    ARROW_ASSIGN_OR_RAISE(plan::ExprPtr kept, PushIntoInputs(condition, how, *arrow::schema(pair), &left, &right));
    if (kept != condition) {
      ARROW_ASSIGN_OR_RAISE(l, Qualify(left, clashing));
      ARROW_ASSIGN_OR_RAISE(r, Qualify(right, clashing));
    }
    joined = l.join(r, api::MakeColumn(kept), how);
    if (!joined.ok() && !plan::CheckPredicate(*condition, *arrow::schema(pair)).ok()) {
      return translator.LocateError(condition, joined.status(), FirstLocation(quals, begin));
    }
  }
  if (!joined.ok()) return text.ErrorAt(right.location, joined.status().message());
  if ((how == "left_semi" || how == "left_anti") && !left.rename_as.empty()) {
    // Only the left columns remain: they get their own names back.
    for (const auto& c : clashing) joined = joined.withColumnRenamed(left.rename_as + "." + c, c);
    if (!joined.ok()) return joined.status();
  }
  return Side{joined, names, "", left.location};
}

Result<Side> PlanItem(const json& item, int begin, const Script& script, const SqlText& text, const ConnectorContext& ctx) {
  const std::string kind = NodeKind(item);
  const json& body = Field(item, kind.c_str());
  if (kind == "RangeVar") return PlanTable(body, script, text, ctx);
  if (kind == "JoinExpr") return PlanJoin(body, begin, script, text, ctx);
  if (kind == "RangeSubselect") {  // (SELECT ...) AS s
    std::string alias;
    const int location = FirstLocation(body, begin);
    ARROW_ASSIGN_OR_RAISE(DataFrame frame, PlanSubquery(body, begin, static_cast<int>(text.text().size()), script,
                                                        text, ctx, &alias));
    if (alias.empty()) return text.ErrorAt(location, "a subquery joined in FROM needs an alias: (SELECT ...) AS s");
    return Side{frame, {alias}, alias, location};
  }
  return text.ErrorAt(FirstLocation(body, begin), "unsupported item in a join (" + kind + "): join declared tables");
}

}  // namespace

Result<bool> IsStaticTable(const TableDecl& table) {
  if (table.connector == "iceberg") return true;
  const TableOption* o = table.Find("static");
  if (!o) return false;
  const std::string v = FoldCase(o->value);
  if (v != "true" && v != "false") {
    return Status::Invalid("option 'static' of table '", table.name, "' must be true or false, not '", o->value, "'");
  }
  return v == "true";
}

Result<JoinedFrom> PlanJoinedFrom(const json& join, int begin, const Script& script, const SqlText& text,
                                  const ConnectorContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(Side side, PlanJoin(join, begin, script, text, ctx));
  return JoinedFrom{side.frame, side.names, side.location};
}

bool IsJoinQualifiedColumn(const std::string& name) {
  const size_t dot = name.find('.');
  return dot != std::string::npos && dot > 0 && dot + 1 < name.size();
}

}  // namespace sluice::sql
