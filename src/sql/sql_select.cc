#include "sql/sql_select.h"

#include <arrow/api.h>

#include <algorithm>

#include "plan/logical_plan.h"
#include "sql/sql_expr.h"
#include "sql/sql_parse.h"

namespace sluice::sql {
namespace {

using nlohmann::json;
using plan::ExprPtr;

// The first location found anywhere inside `node` (depth first), or `fallback`.
int FirstLocation(const json& node, int fallback) {
  if (node.is_object()) {
    int here = LocationOf(node);
    if (here >= 0) return here;
    for (const auto& [key, value] : node.items()) {
      int inner = FirstLocation(value, -1);
      if (inner >= 0) return inner;
    }
  } else if (node.is_array()) {
    for (const auto& item : node) {
      int inner = FirstLocation(item, -1);
      if (inner >= 0) return inner;
    }
  }
  return fallback;
}

// Clauses a streaming query cannot have yet, in the order a reader meets them.
Status RefuseUnsupportedClauses(const json& select, int begin, const SqlText& text) {
  if (StringField(select, "op", "SETOP_NONE") != "SETOP_NONE") {
    return text.ErrorAt(FirstLocation(Field(select, "rarg"), begin), "UNION, INTERSECT and EXCEPT are not supported");
  }
  if (!Field(select, "withClause").is_null()) return text.ErrorAt(begin, "WITH (common table expressions) is not supported");
  if (!Field(select, "distinctClause").is_null()) {
    return text.ErrorAt(begin, "SELECT DISTINCT is not supported yet: deduplication comes with stateful streaming");
  }
  if (!Field(select, "intoClause").is_null()) return text.ErrorAt(begin, "SELECT INTO is not supported; use INSERT INTO");
  if (!Field(select, "groupClause").is_null()) {
    return text.ErrorAt(FirstLocation(Field(select, "groupClause"), begin),
                        "GROUP BY is not supported yet: aggregations come with stateful streaming");
  }
  if (!Field(select, "havingClause").is_null()) {
    return text.ErrorAt(FirstLocation(Field(select, "havingClause"), begin), "HAVING is not supported yet");
  }
  if (!Field(select, "windowClause").is_null()) {
    return text.ErrorAt(FirstLocation(Field(select, "windowClause"), begin), "WINDOW clauses are not supported");
  }
  if (!Field(select, "sortClause").is_null()) {
    return text.ErrorAt(FirstLocation(Field(select, "sortClause"), begin),
                        "ORDER BY is not supported: a stream has no order (sort the sink's rows when you read them)");
  }
  if (!Field(select, "limitCount").is_null() || !Field(select, "limitOffset").is_null()) {
    int at = FirstLocation(Field(select, "limitCount"), FirstLocation(Field(select, "limitOffset"), begin));
    return text.ErrorAt(at, "LIMIT and OFFSET are not supported in a streaming query");
  }
  if (!Field(select, "lockingClause").is_null()) return text.ErrorAt(begin, "FOR UPDATE/SHARE is not supported");
  return Status::OK();
}

// The one table of FROM: its declaration, the names columns may be qualified with, and where it is.
struct FromTable {
  const TableDecl* table = nullptr;
  std::vector<std::string> names;
  int location = -1;
};

Result<FromTable> ResolveFrom(const json& select, int begin, const Script& script, const SqlText& text) {
  const json& from = Field(select, "fromClause");
  if (!from.is_array() || from.empty()) {
    return text.ErrorAt(begin, "a query needs FROM <table>: SELECT without FROM is not supported");
  }
  if (from.size() > 1) {
    return text.ErrorAt(FirstLocation(from[1], begin), "several tables in FROM (a join) are not supported yet");
  }
  const std::string kind = NodeKind(from[0]);
  const json& body = Field(from[0], kind.c_str());
  if (kind == "JoinExpr") {
    return text.ErrorAt(FirstLocation(Field(body, "rarg"), FirstLocation(body, begin)), "JOIN is not supported yet");
  }
  if (kind == "RangeSubselect") return text.ErrorAt(FirstLocation(body, begin), "subqueries in FROM are not supported");
  if (kind != "RangeVar") return text.ErrorAt(FirstLocation(body, begin), "unsupported FROM item (" + kind + ")");
  FromTable out;
  out.location = LocationOf(body);
  std::string name = text.IdentifierAt(out.location, StringField(body, "relname"));
  if (!StringField(body, "schemaname").empty()) {
    return text.ErrorAt(out.location, "qualified table names are not supported; declare the table with CREATE TABLE");
  }
  out.table = script.FindTable(name);
  if (!out.table) {
    std::vector<std::string> declared;
    for (const auto& t : script.tables) declared.push_back(t.name);
    return text.ErrorAt(out.location, "unknown table '" + name + "'. Declared tables: " +
                                          (declared.empty() ? std::string("none (declare one with CREATE TABLE)") : JoinNames(declared)));
  }
  out.names.push_back(out.table->name);
  const json& alias = Field(body, "alias");
  if (!alias.is_null()) out.names.push_back(StringField(Field(alias, "Alias"), "aliasname", StringField(alias, "aliasname")));
  return out;
}

}  // namespace

Status LocateTableError(const TableDecl& table, const Status& error, int fallback_location, const SqlText& text) {
  std::string message = error.message();
  std::string lower = FoldCase(message);
  int at = fallback_location;
  for (const auto& o : table.options) {
    size_t pos = lower.find("'" + FoldCase(o.key) + "'");
    if (pos == std::string::npos) pos = lower.find("'" + FoldCase(o.written_key) + "'");
    if (pos != std::string::npos) {
      at = o.location;
      // Name the option as the user wrote it (max_files_per_trig, not maxFilesPerTrig).
      message.replace(pos + 1, o.key.size(), o.written_key);
      break;
    }
  }
  if (message.find("Valid options: ") != std::string::npos) {
    message += " (and in SQL: connector, format, path; snake_case spellings such as max_files_per_trigger are accepted)";
  }
  return text.ErrorAt(at, message);
}

Result<DataFrame> ReadTable(const TableDecl& table, int use_location, const SqlText& text, const ConnectorContext& ctx) {
  auto connector = FindSqlConnector(table.connector);
  if (!connector || !connector->unavailable.empty()) {
    // ParseScript's caller checks connectors up front; this is the same message for safety.
    return text.ErrorAt(table.connector_location, "connector '" + table.connector + "' is not available");
  }
  if (!connector->read) {
    return text.ErrorAt(use_location, "table '" + table.name + "' (connector '" + table.connector +
                                          "') cannot be read: it is a sink; use it with INSERT INTO");
  }
  auto df = connector->read(table, ctx);
  if (!df.ok()) return LocateTableError(table, df.status(), table.location, text);
  return df;
}

Result<PlannedSelect> PlanSelect(const json& select, int begin, int end, const Script& script, const SqlText& text,
                                 const ConnectorContext& ctx) {
  ARROW_RETURN_NOT_OK(RefuseUnsupportedClauses(select, begin, text));
  ARROW_ASSIGN_OR_RAISE(FromTable from, ResolveFrom(select, begin, script, text));
  ARROW_ASSIGN_OR_RAISE(DataFrame df, ReadTable(*from.table, from.location, text, ctx));

  ExprTranslator where_translator(text, df.schema(), from.names);
  const json& where = Field(select, "whereClause");
  if (!where.is_null()) {
    ARROW_ASSIGN_OR_RAISE(ExprPtr predicate, where_translator.Translate(where));
    DataFrame filtered = df.filter(Column(predicate));
    if (!filtered.ok()) {
      return where_translator.LocateError(predicate, filtered.status(), FirstLocation(where, begin));
    }
    df = filtered;
  }

  ExprTranslator translator(text, df.schema(), from.names);
  const json& targets = Field(select, "targetList");
  std::vector<Column> columns;
  std::vector<int> locations;
  for (size_t i = 0; i < targets.size(); ++i) {
    const json& target = Field(targets[i], "ResTarget");
    const int location = LocationOf(target);
    ARROW_ASSIGN_OR_RAISE(ExprPtr e, translator.Translate(Field(target, "val")));
    const std::string alias = StringField(target, "name");
    if (!alias.empty()) {
      // The alias is the last token of this item: before the next item, or before FROM.
      int next = i + 1 < targets.size() ? LocationOf(Field(targets[i + 1], "ResTarget")) : from.location;
      e = plan::Expr::Alias(e, text.SpellingIn(alias, location, next >= 0 ? next : end));
    }
    size_t expanded = plan::IsStar(*e) ? static_cast<size_t>(df.schema()->num_fields()) : 1;
    locations.insert(locations.end(), expanded, location);
    columns.emplace_back(e);
  }
  DataFrame projected = df.select(columns);
  if (!projected.ok()) {
    // Find the select item at fault and point inside it.
    for (size_t i = 0; i < columns.size(); ++i) {
      const ExprPtr& e = columns[i].expr();
      if (plan::IsStar(*e)) continue;
      if (!plan::ResolveExpr(*e, *df.schema()).ok()) {
        return translator.LocateError(e, projected.status(), LocationOf(Field(targets[i], "ResTarget")));
      }
    }
    return text.ErrorAt(begin, projected.status().message());
  }
  return PlannedSelect{projected, locations};
}

}  // namespace sluice::sql
