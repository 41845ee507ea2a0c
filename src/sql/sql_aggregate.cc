#include "sql/sql_aggregate.h"

#include <arrow/api.h>

#include <functional>

#include "api/access.h"
#include "plan/aggregate.h"
#include "plan/logical_plan.h"
#include "sql/sql_parse.h"

namespace sluice::sql {
namespace {

using nlohmann::json;
using plan::Expr;
using plan::ExprPtr;

const Expr& Unalias(const Expr& e) { return e.kind == Expr::Kind::kAlias && !e.args.empty() ? Unalias(*e.args[0]) : e; }

bool IsAggCall(const Expr& e) { return e.kind == Expr::Kind::kCall && plan::IsAggregateFunction(e.name); }
bool IsWindowCall(const Expr& e) { return e.kind == Expr::Kind::kCall && plan::IsWindowFunction(e.name); }

// The first node of `e` (pre-order) that `pred` accepts, or null.
const Expr* FindNode(const Expr& e, const std::function<bool(const Expr&)>& pred) {
  if (pred(e)) return &e;
  for (const auto& a : e.args) {
    if (const Expr* found = FindNode(*a, pred)) return found;
  }
  return nullptr;
}

int Where(const ExprTranslator& translator, const Expr* e, int fallback) {
  int at = e ? translator.LocationOf(e) : -1;
  return at >= 0 ? at : fallback;
}

const char* kWindowHint =
    "an event-time window in GROUP BY: tumble(ts, INTERVAL '10 minutes'), hop(ts, INTERVAL '<slide>', INTERVAL "
    "'<size>') or session(ts, INTERVAL '<gap>')";

// Nested aggregates, window functions and window_start/window_end without a window, in an
// expression of the select list or HAVING.
Status CheckAggregateExpr(const ExprPtr& e, bool has_window, const arrow::Schema& input,
                          const ExprTranslator& translator, const SqlText& text, int fallback) {
  if (const Expr* w = FindNode(*e, IsWindowCall)) {
    return text.ErrorAt(Where(translator, w, fallback),
                        "window functions (tumble, hop, session) can only be used in GROUP BY; select window_start "
                        "and window_end for the window's bounds");
  }
  const Expr* nested = nullptr;
  FindNode(*e, [&](const Expr& n) {
    if (!IsAggCall(n)) return false;
    for (const auto& a : n.args) nested = nested ? nested : FindNode(*a, IsAggCall);
    return nested != nullptr;
  });
  if (nested) {
    return text.ErrorAt(Where(translator, nested, fallback),
                        "aggregate function calls cannot be nested: " + nested->ToString() + " is inside another aggregate");
  }
  if (!has_window) {
    const Expr* bound = FindNode(*e, [&](const Expr& n) {
      return n.kind == Expr::Kind::kColumn && (n.name == "window_start" || n.name == "window_end") &&
             input.GetFieldIndex(n.name) < 0;
    });
    if (bound) {
      return text.ErrorAt(Where(translator, bound, fallback),
                          bound->name + " needs " + kWindowHint);
    }
  }
  return Status::OK();
}

// One GROUP BY item: a position in the select list, a select-list alias, or an expression.
Result<ExprPtr> TranslateGroupItem(const json& node, const std::vector<SelectItem>& items, const arrow::Schema& input,
                                   ExprTranslator& translator, const SqlText& text) {
  const std::string kind = NodeKind(node);
  const json& body = Field(node, kind.c_str());
  const int location = LocationOf(body);
  if (kind == "GroupingSet") return text.ErrorAt(location, "GROUPING SETS, ROLLUP and CUBE are not supported");
  if (kind == "A_Const" && body.contains("ival")) {
    ARROW_ASSIGN_OR_RAISE(const int64_t k, IntegerConstant(Field(body, "ival"), location, text));
    if (k < 1 || k > static_cast<int64_t>(items.size())) {
      return text.ErrorAt(location, "GROUP BY position " + std::to_string(k) + " is not in the select list (1.." +
                                        std::to_string(items.size()) + ")");
    }
    const SelectItem& item = items[k - 1];
    if (const Expr* agg = FindNode(*item.expr, IsAggCall)) {
      return text.ErrorAt(location, "GROUP BY " + std::to_string(k) + " refers to an aggregate (" + agg->ToString() +
                                        "); group by a column or expression");
    }
    return item.expr;
  }
  ARROW_ASSIGN_OR_RAISE(ExprPtr e, translator.Translate(node));
  // A name that is not an input column may be a select-list alias (as in Postgres).
  if (e->kind == Expr::Kind::kColumn && !plan::IsStar(*e) && input.GetFieldIndex(e->name) < 0) {
    for (const auto& item : items) {
      if (item.expr->kind == Expr::Kind::kAlias && SameIdentifier(item.expr->name, e->name) &&
          !FindNode(*item.expr, IsAggCall)) {
        return item.expr;
      }
    }
  }
  return e;
}

// Where an engine error about `e` points: at the column the message quotes, else at `e`.
int LocateIn(const ExprPtr& e, const std::string& message, const ExprTranslator& translator, int fallback) {
  size_t q = message.find("Column '");
  if (q != std::string::npos) {
    size_t begin = q + 8;
    size_t end = message.find('\'', begin);
    std::string name = message.substr(begin, end - begin);
    const Expr* c = FindNode(*e, [&](const Expr& n) { return n.kind == Expr::Kind::kColumn && n.name == name; });
    if (c && translator.LocationOf(c) >= 0) return translator.LocationOf(c);
  }
  if (message.find("SELECT *") != std::string::npos) {
    const Expr* star = FindNode(*e, [](const Expr& n) { return plan::IsStar(n); });
    if (star && translator.LocationOf(star) >= 0) return translator.LocationOf(star);
  }
  return Where(translator, e.get(), fallback);
}

}  // namespace

bool IsAggregation(const json& select, const std::vector<SelectItem>& items) {
  if (!Field(select, "groupClause").is_null() || !Field(select, "havingClause").is_null()) return true;
  for (const auto& item : items) {
    if (plan::ContainsAggregate(*item.expr)) return true;
  }
  return false;
}

Status RefuseAggregatesAndWindows(const ExprPtr& e, const std::string& clause, const ExprTranslator& translator,
                                  const SqlText& text) {
  if (const Expr* agg = FindNode(*e, IsAggCall)) {
    return text.ErrorAt(Where(translator, agg, -1),
                        "aggregate functions are not allowed in " + clause +
                            (clause == "WHERE" ? "; filter the groups with HAVING" : std::string()));
  }
  if (const Expr* w = FindNode(*e, IsWindowCall)) {
    return text.ErrorAt(Where(translator, w, -1), "window functions (tumble, hop, session) can only be used in "
                                                  "GROUP BY, e.g. GROUP BY tumble(ts, INTERVAL '10 minutes')");
  }
  return Status::OK();
}

Result<DataFrame> PlanGroupedSelect(const DataFrame& input, const json& select, std::vector<SelectItem> items,
                                    ExprTranslator& translator, const SqlText& text, int begin,
                                    std::vector<int>* locations) {
  const arrow::Schema& schema = *input.schema();

  // GROUP BY: at most one window, no aggregates, a window only as an item of its own.
  std::vector<SelectItem> groups;
  bool has_window = false;
  for (const auto& node : Field(select, "groupClause")) {
    const int location = LocationOf(Field(node, NodeKind(node).c_str()));
    ARROW_ASSIGN_OR_RAISE(ExprPtr g, TranslateGroupItem(node, items, schema, translator, text));
    if (const Expr* agg = FindNode(*g, IsAggCall)) {
      return text.ErrorAt(Where(translator, agg, location), "aggregate functions are not allowed in GROUP BY");
    }
    if (const Expr* w = FindNode(*g, IsWindowCall)) {
      if (w != &Unalias(*g)) {
        return text.ErrorAt(Where(translator, w, location),
                            "a window function must be a GROUP BY item of its own, not inside an expression");
      }
      if (has_window) return text.ErrorAt(location, "only one window function (tumble, hop, session) per GROUP BY");
      has_window = true;
    }
    groups.push_back({g, location});
  }

  for (const auto& item : items) {
    ARROW_RETURN_NOT_OK(CheckAggregateExpr(item.expr, has_window, schema, translator, text, item.location));
  }
  ExprPtr having;
  const json& having_node = Field(select, "havingClause");
  if (!having_node.is_null()) {
    ARROW_ASSIGN_OR_RAISE(having, translator.Translate(having_node));
    ARROW_RETURN_NOT_OK(CheckAggregateExpr(having, has_window, schema, translator, text, begin));
  }

  // `SELECT upper(name) AS u ... GROUP BY upper(name)` names the grouping column u, as the C++
  // groupBy(upper(col("name")).alias("u")) does: the group takes the alias, the item its column.
  for (auto& item : items) {
    if (item.expr->kind != Expr::Kind::kAlias || plan::ContainsAggregate(*item.expr)) continue;
    const std::string inner = Unalias(*item.expr).ToString();
    for (auto& g : groups) {
      if (IsWindowCall(Unalias(*g.expr)) || Unalias(*g.expr).ToString() != inner) continue;
      if (g.expr->kind != Expr::Kind::kAlias) g.expr = item.expr;
      if (g.expr->name == item.expr->name) item.expr = Expr::Column(item.expr->name);
      break;
    }
  }

  std::vector<ExprPtr> group_exprs, select_exprs;
  for (const auto& g : groups) group_exprs.push_back(g.expr);
  for (const auto& item : items) select_exprs.push_back(item.expr);
  auto planned = plan::PlanAggregation(api::PlanOf(input), group_exprs, select_exprs, having);
  if (!planned.ok()) {
    // Find the part at fault: a grouping expression, a select item, or HAVING.
    for (const auto& g : groups) {
      auto alone = plan::LogicalPlan::Aggregate(api::PlanOf(input), {g.expr}, {});
      if (!alone.ok()) {
        return text.ErrorAt(LocateIn(g.expr, alone.status().message(), translator, g.location), alone.status().message());
      }
    }
    for (const auto& item : items) {
      auto alone = plan::PlanAggregation(api::PlanOf(input), group_exprs, {item.expr});
      if (!alone.ok()) {
        return text.ErrorAt(LocateIn(item.expr, alone.status().message(), translator, item.location),
                            alone.status().message());
      }
    }
    if (having) {
      int at = LocateIn(having, planned.status().message(), translator, FirstLocation(having_node, begin));
      return text.ErrorAt(at, planned.status().message());
    }
    return text.ErrorAt(begin, planned.status().message());
  }
  locations->clear();
  for (const auto& item : items) locations->push_back(item.location);
  return api::MakeDataFrame(input.session(), *planned);
}

}  // namespace sluice::sql
