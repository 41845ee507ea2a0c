#include "sql/sql_relation.h"

#include <arrow/type.h>

#include "sql/sql_parse.h"

namespace sluice::sql {
namespace {

using nlohmann::json;

// The SelectStmt body of a node that is either the body itself or {"SelectStmt": body}.
const json& SelectBody(const json& node) {
  const json& wrapped = Field(node, "SelectStmt");
  return wrapped.is_null() ? node : wrapped;
}

}  // namespace

Result<Script> ScopeWithCtes(const json& select, const Script& script, const SqlText& text) {
  const json& with = Field(select, "withClause");
  if (with.is_null()) return script;
  const json& body = Field(with, "WithClause").is_null() ? with : Field(with, "WithClause");
  if (Field(body, "recursive").is_boolean() && Field(body, "recursive").get<bool>()) {
    return text.ErrorAt(LocationOf(body), "WITH RECURSIVE is not supported");
  }
  Script scoped = script;
  const size_t first = scoped.views.size();
  for (const auto& item : Field(body, "ctes")) {
    const json& cte = Field(item, "CommonTableExpr");
    ViewDecl view;
    view.location = LocationOf(cte);
    view.name = text.IdentifierAt(view.location, StringField(cte, "ctename"));
    view.cte = true;
    if (!Field(cte, "aliascolnames").is_null()) {
      return text.ErrorAt(view.location, "WITH " + view.name + " (columns) AS (...) is not supported; name the "
                                         "columns with AS in its SELECT");
    }
    const json& query = Field(Field(cte, "ctequery"), "SelectStmt");
    if (query.is_null()) return text.ErrorAt(view.location, "WITH " + view.name + " AS (...) must hold a SELECT");
    for (size_t i = first; i < scoped.views.size(); ++i) {
      if (FoldCase(scoped.views[i].name) == FoldCase(view.name)) {
        return text.ErrorAt(view.location, "WITH names '" + view.name + "' twice (first at " +
                                               text.Where(scoped.views[i].location) + "); give each a different name");
      }
    }
    view.select = query;
    scoped.views.push_back(std::move(view));
  }
  return scoped;
}

Result<std::optional<DataFrame>> PlanView(const std::string& name, int use_location, const Script& script,
                                          const SqlText& text, const ConnectorContext& ctx) {
  const ViewDecl* view = script.FindView(name);
  if (!view) return std::optional<DataFrame>();
  // The view sees the script as it was where the view was declared.
  Script before = script;
  before.views.resize(static_cast<size_t>(view - script.views.data()));
  auto planned = PlanSelect(view->select, view->location, view->end >= 0 ? view->end : static_cast<int>(text.text().size()),
                            before, text, ctx);
  if (!planned.ok()) {
    return Status(planned.status().code(), planned.status().message() + "\n(in " + std::string(view->cte ? "WITH " : "view ") +
                                               view->name + ", used at " + text.Where(use_location) + ")");
  }
  return std::optional<DataFrame>(planned->frame);
}

Result<DataFrame> PlanSubquery(const json& subselect, int begin, int end, const Script& script, const SqlText& text,
                               const ConnectorContext& ctx, std::string* alias) {
  const int location = FirstLocation(subselect, begin);
  if (Field(subselect, "lateral").is_boolean() && Field(subselect, "lateral").get<bool>()) {
    return text.ErrorAt(location, "LATERAL subqueries are not supported");
  }
  const json& a = Field(subselect, "alias");
  *alias = a.is_null() ? std::string() : StringField(Field(a, "Alias"), "aliasname", StringField(a, "aliasname"));
  const json& query = Field(Field(subselect, "subquery"), "SelectStmt");
  if (query.is_null()) return text.ErrorAt(location, "a subquery in FROM must be a SELECT");
  ARROW_ASSIGN_OR_RAISE(PlannedSelect planned, PlanSelect(query, location, end, script, text, ctx));
  return planned.frame;
}

Result<PlannedSelect> PlanSetOperation(const json& select, int begin, int end, const Script& script, const SqlText& text,
                                       const ConnectorContext& ctx) {
  const std::string op = StringField(select, "op", "SETOP_NONE");
  const json& left = SelectBody(Field(select, "larg"));
  const json& right = SelectBody(Field(select, "rarg"));
  // Errors point at the second query's select list.
  const int right_location = FirstLocation(Field(right, "targetList"), FirstLocation(right, begin));
  const bool all = Field(select, "all").is_boolean() && Field(select, "all").get<bool>();
  const std::string name = std::string(op == "SETOP_UNION" ? "UNION" : op == "SETOP_INTERSECT" ? "INTERSECT" : "EXCEPT") +
                           (all ? " ALL" : "");
  if (op != "SETOP_UNION" && all) {
    return text.ErrorAt(right_location, name + " is not supported; " + name.substr(0, name.size() - 4) +
                                            " (which also removes duplicates) is");
  }
  if (!Field(select, "sortClause").is_null() || !Field(select, "limitCount").is_null() ||
      !Field(select, "limitOffset").is_null()) {
    return text.ErrorAt(FirstLocation(Field(select, "sortClause"), right_location),
                        "ORDER BY or LIMIT after " + name + " is not supported; wrap it in a subquery: "
                        "SELECT * FROM (... " + name + " ...) ORDER BY ...");
  }
  ARROW_ASSIGN_OR_RAISE(PlannedSelect l, PlanSelect(left, begin, end, script, text, ctx));
  ARROW_ASSIGN_OR_RAISE(PlannedSelect r, PlanSelect(right, right_location, end, script, text, ctx));
  if (op != "SETOP_UNION" && (l.frame.isStreaming() || r.frame.isStreaming())) {
    // Spark refuses INTERSECT of two streams and EXCEPT with a stream on the right; sluice refuses
    // every stream here (docs/spark-compatibility.md).
    const bool intersect = op == "SETOP_INTERSECT";
    return text.ErrorAt(right_location, name + " on a stream is not supported (it would keep every row of both "
                                        "inputs as state); against a static table write a LEFT " +
                                        std::string(intersect ? "SEMI" : "ANTI") + " JOIN on the columns, or run the "
                                        "query in sluice batch");
  }
  DataFrame both = l.frame.unionAll(r.frame);
  if (!both.ok()) return text.ErrorAt(right_location, both.status().message());
  if (op == "SETOP_UNION") {
    // UNION (distinct) is UNION ALL then a GROUP BY every column, as Spark plans it (and as SELECT
    // DISTINCT): on a stream its output modes and watermark rules are an aggregation's.
    if (!all) {
      std::vector<Column> every;
      for (const auto& f : both.schema()->fields()) every.push_back(col(f->name()));
      both = both.groupBy(every).agg({});
    }
    if (!both.ok()) return text.ErrorAt(right_location, both.status().message());
    return PlannedSelect{both, l.column_locations};
  }
  // INTERSECT / EXCEPT (distinct, batch): each distinct row with how many times each side has it;
  // grouping treats NULLs as equal, as Spark's set operations do.
  const std::string from_left = "__sluice_setop_left", from_right = "__sluice_setop_right";
  std::vector<Column> keys, tagged_left, tagged_right;
  for (const auto& f : l.frame.schema()->fields()) keys.push_back(col(f->name()));
  tagged_left = keys;
  tagged_left.push_back(lit(int64_t{1}).alias(from_left));
  tagged_left.push_back(lit(int64_t{0}).alias(from_right));
  for (const auto& f : r.frame.schema()->fields()) tagged_right.push_back(col(f->name()));
  tagged_right.push_back(lit(int64_t{0}).alias(from_left));
  tagged_right.push_back(lit(int64_t{1}).alias(from_right));
  DataFrame counted = l.frame.select(tagged_left)
                          .unionAll(r.frame.select(tagged_right))
                          .groupBy(keys)
                          .agg({sum(col(from_left)).alias(from_left), sum(col(from_right)).alias(from_right)});
  const Column keep = op == "SETOP_INTERSECT" ? (col(from_left) > lit(int64_t{0})) && (col(from_right) > lit(int64_t{0}))
                                              : (col(from_left) > lit(int64_t{0})) && (col(from_right) == lit(int64_t{0}));
  DataFrame result = counted.filter(keep).select(keys);
  if (!result.ok()) return text.ErrorAt(right_location, result.status().message());
  return PlannedSelect{result, l.column_locations};
}

}  // namespace sluice::sql
