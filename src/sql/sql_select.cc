#include "sql/sql_select.h"

#include <arrow/api.h>

#include <algorithm>
#include <optional>

#include "api/access.h"
#include "plan/expr_resolve.h"
#include "plan/generate.h"
#include "plan/logical_plan.h"
#include "sql/sql_aggregate.h"
#include "sql/sql_dedupe.h"
#include "sql/sql_expr.h"
#include "sql/sql_functions.h"
#include "sql/sql_join.h"
#include "sql/sql_order.h"
#include "sql/sql_parse.h"
#include "sql/sql_relation.h"
#include "sluice/session.h"
#include "sql/sql_spark_spelling.h"

namespace sluice::sql {
namespace {

// spark.sql.ansi.enabled, default true as in Spark 4.
bool AnsiEnabled(const Session& session) {
  std::string v = session.conf("spark.sql.ansi.enabled", "true");
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v != "false";
}

using nlohmann::json;
using plan::ExprPtr;

// Clauses a streaming query cannot have, in the order a reader meets them.
Status RefuseUnsupportedClauses(const json& select, int begin, const SqlText& text) {
  if (!Field(select, "distinctClause").is_null()) {
    return text.ErrorAt(begin, "SELECT DISTINCT ON (...) is not supported; use GROUP BY the selected columns");
  }
  if (!Field(select, "intoClause").is_null()) return text.ErrorAt(begin, "SELECT INTO is not supported; use INSERT INTO");
  if (!Field(select, "windowClause").is_null()) {
    return text.ErrorAt(FirstLocation(Field(select, "windowClause"), begin), "WINDOW clauses are not supported");
  }
  if (!Field(select, "lockingClause").is_null()) return text.ErrorAt(begin, "FOR UPDATE/SHARE is not supported");
  return Status::OK();
}

// SELECT DISTINCT a, f(b) AS c ... is SELECT a, f(b) AS c ... GROUP BY a, f(b), as Spark plans
// it (an aggregation without aggregates: its output modes and watermark rules apply). Nullopt
// when the query has no plain DISTINCT.
Result<std::optional<json>> DistinctAsGroupBy(const json& select, int begin, const SqlText& text) {
  const json& distinct = Field(select, "distinctClause");
  if (!distinct.is_array() || distinct.size() != 1 || !distinct[0].empty()) return std::nullopt;  // none, or ON (...)
  if (!Field(select, "groupClause").is_null() || !Field(select, "havingClause").is_null()) {
    return text.ErrorAt(begin, "SELECT DISTINCT with GROUP BY or HAVING is not supported; group by the selected "
                               "columns instead");
  }
  json out = select;
  out.erase("distinctClause");
  json groups = json::array();
  for (const auto& target : Field(select, "targetList")) {
    const json& val = Field(Field(target, "ResTarget"), "val");
    if (NodeKind(val) == "ColumnRef" && Field(Field(val, "ColumnRef"), "fields").dump().find("A_Star") != std::string::npos) {
      return text.ErrorAt(FirstLocation(val, begin), "SELECT DISTINCT * is not supported; list the columns");
    }
    groups.push_back(val);
  }
  out["groupClause"] = groups;
  return out;
}

bool CallsAggregate(const json& node) {
  if (node.is_array()) return std::any_of(node.begin(), node.end(), CallsAggregate);
  if (!node.is_object()) return false;
  const json& call = Field(node, "FuncCall");
  if (!call.is_null() && Field(call, "over").is_null()) {
    const json& names = Field(call, "funcname");
    if (names.is_array() && !names.empty() && IsSqlAggregate(FoldCase(StringField(Field(names.back(), "String"), "sval")))) {
      return true;
    }
  }
  for (const auto& [key, value] : node.items()) {
    if (CallsAggregate(value)) return true;
  }
  return false;
}

// Spark's GROUP BY ALL (the grammar read `GROUP BY ()`, sql_spark_spelling.h): GROUP BY every
// select item that calls no aggregate. Nullopt when the query has no GROUP BY ALL.
Result<std::optional<json>> GroupByAllAsList(const json& select, const SqlText& text) {
  const json& groups = Field(select, "groupClause");
  if (!groups.is_array() || groups.size() != 1) return std::nullopt;
  const json& set = Field(groups[0], "GroupingSet");
  if (StringField(set, "kind") != "GROUPING_SET_EMPTY" || !IsGroupByAllAt(text.text(), LocationOf(set))) return std::nullopt;
  json out = select;
  json list = json::array();
  for (const auto& target : Field(select, "targetList")) {
    const json& val = Field(Field(target, "ResTarget"), "val");
    if (Field(Field(val, "ColumnRef"), "fields").dump().find("A_Star") != std::string::npos) {
      return text.ErrorAt(FirstLocation(val, LocationOf(set)), "GROUP BY ALL with SELECT * is not supported; list the columns");
    }
    if (!CallsAggregate(val)) list.push_back(val);
  }
  if (list.empty()) {
    out.erase("groupClause");  // only aggregates: a global aggregate, as in Spark
  } else {
    out["groupClause"] = list;
  }
  return std::optional<json>(std::move(out));
}

// The one table of FROM: its declaration, the names columns may be qualified with, and where it is.
struct FromTable {
  const TableDecl* table = nullptr;
  const json* join = nullptr;  // FROM a JOIN b: the JoinExpr body (sql_join.h), table is null
  std::optional<DataFrame> frame;  // FROM a view, a CTE or a subquery (sql_relation.h): planned; table is null
  std::vector<std::string> names;
  int location = -1;
};

Result<FromTable> ResolveFrom(const json& select, int begin, int end, const Script& script, const SqlText& text,
                              const ConnectorContext& ctx) {
  const json& from = Field(select, "fromClause");
  if (!from.is_array() || from.empty()) {
    if (ctx.streaming) {
      return text.ErrorAt(begin, "a streaming query needs FROM <table>; SELECT without FROM (one row of constants) "
                                 "runs in sluice batch");
    }
    // Spark's one-row relation (a batch has rows only through its columns: one the select list
    // does not name).
    arrow::Int32Builder one;
    ARROW_RETURN_NOT_OK(one.Append(1));
    ARROW_ASSIGN_OR_RAISE(auto column, one.Finish());
    auto one_row = arrow::Table::Make(arrow::schema({arrow::field("__one_row", arrow::int32(), false)}), {column});
    FromTable out;  // location -1: nothing to point at
    ARROW_ASSIGN_OR_RAISE(out.frame, ctx.session->createDataFrame(one_row));
    return out;
  }
  if (from.size() > 1) {
    return text.ErrorAt(FirstLocation(from[1], begin), "several tables in FROM (a join) are not supported yet");
  }
  const std::string kind = NodeKind(from[0]);
  const json& body = Field(from[0], kind.c_str());
  if (kind == "JoinExpr") {
    FromTable out;
    out.join = &body;
    return out;
  }
  if (kind == "RangeSubselect") {
    FromTable out;
    std::string alias;
    out.location = FirstLocation(body, begin);
    ARROW_ASSIGN_OR_RAISE(DataFrame frame, PlanSubquery(body, begin, end, script, text, ctx, &alias));
    out.frame = frame;
    if (!alias.empty()) out.names.push_back(alias);
    return out;
  }
  if (kind != "RangeVar") return text.ErrorAt(FirstLocation(body, begin), "unsupported FROM item (" + kind + ")");
  FromTable out;
  out.location = LocationOf(body);
  std::string name = text.IdentifierAt(out.location, StringField(body, "relname"));
  if (!StringField(body, "schemaname").empty()) {
    return text.ErrorAt(out.location, "qualified table names are not supported; declare the table with CREATE TABLE");
  }
  ARROW_ASSIGN_OR_RAISE(out.frame, PlanView(name, out.location, script, text, ctx));
  if (!out.frame) out.table = script.FindTable(name);
  if (out.frame) {
    out.names.push_back(name);
  } else if (!out.table) {
    std::vector<std::string> declared, views;
    for (const auto& t : script.tables) declared.push_back(t.name);
    for (const auto& v : script.views) views.push_back(v.name);
    return text.ErrorAt(out.location, "unknown table '" + name + "'. Declared tables: " +
                                          (declared.empty() ? std::string("none (declare one with CREATE TABLE)") : JoinNames(declared)) +
                                          (views.empty() ? std::string() : "; views: " + JoinNames(views)));
  } else {
    out.names.push_back(out.table->name);
  }
  const json& alias = Field(body, "alias");
  if (!alias.is_null()) out.names.push_back(StringField(Field(alias, "Alias"), "aliasname", StringField(alias, "aliasname")));
  return out;
}

// `gen(x) AS (a[, b])` (read as the items `gen(x), ω(a, b)`, see kGeneratorAliasList): names the
// previous item's generated columns: the element column by an alias, posexplode's position by a
// rename after the projection (`*renames`).
Status ApplyGeneratorAliases(const json& alias_list, int location, const SqlText& text, std::vector<SelectItem>* items,
                             std::vector<std::pair<std::string, std::string>>* renames) {
  const plan::Expr* generator = items->empty() ? nullptr : items->back().expr.get();
  if (generator && generator->kind == plan::Expr::Kind::kAlias) generator = nullptr;
  if (!generator || generator->kind != plan::Expr::Kind::kCall || !plan::IsGeneratorFunction(generator->name)) {
    return text.ErrorAt(location, "AS (a, b) names the columns of a generator (explode, posexplode, ...); write "
                                  "AS name for other expressions");
  }
  std::vector<std::string> names;
  for (const auto& arg : Field(alias_list, "args")) {
    const json& ref = Field(arg, "ColumnRef");
    const auto fields = ref.is_null() ? std::vector<std::string>{} : StringList(Field(ref, "fields"));
    if (fields.size() != 1) return text.ErrorAt(location, "AS (...) after " + generator->name + " takes column names");
    names.push_back(text.IdentifierAt(LocationOf(ref), fields[0]));
  }
  const size_t want = generator->name.rfind("posexplode", 0) == 0 ? 2 : 1;
  if (names.size() != want) {
    return text.ErrorAt(location, generator->name + " produces " + std::to_string(want) + " column(s) (" +
                                      (want == 2 ? "pos, col" : "col") + ") but AS (...) names " +
                                      std::to_string(names.size()));
  }
  if (want == 2) renames->emplace_back("pos", names[0]);
  items->back().expr = plan::Expr::Alias(items->back().expr, names.back());
  return Status::OK();
}

}  // namespace

// The source options event_time and watermark: withWatermark(event_time, watermark) on the scan.
Result<DataFrame> ApplyEventTime(const TableDecl& table, const DataFrame& df, const SqlText& text) {
  const TableOption* event_time = table.Find("eventTime");
  const TableOption* watermark = table.Find("watermark");
  if (!event_time && !watermark) return df;
  if (!watermark) {
    return text.ErrorAt(event_time->location, "option '" + event_time->written_key +
                                                  "' needs option 'watermark' too (how late rows may arrive), e.g. "
                                                  "watermark = '10 seconds'");
  }
  if (!event_time) {
    return text.ErrorAt(watermark->location, "option 'watermark' needs option 'event_time' too (the TIMESTAMP column "
                                             "it is measured on), e.g. event_time = 'ts'");
  }
  const arrow::Schema& schema = *df.schema();
  std::shared_ptr<arrow::Field> field = schema.GetFieldByName(event_time->value);
  for (int i = 0; !field && i < schema.num_fields(); ++i) {
    if (SameIdentifier(schema.field(i)->name(), event_time->value)) field = schema.field(i);
  }
  if (!field) {
    std::vector<std::string> names;
    for (const auto& f : schema.fields()) names.push_back(f->name());
    return text.ErrorAt(event_time->location, "option '" + event_time->written_key + "' names column '" +
                                                  event_time->value + "', which table '" + table.name +
                                                  "' does not have. Columns: " + JoinNames(names));
  }
  if (field->type()->id() != arrow::Type::TIMESTAMP) {
    const bool text_column = field->type()->id() == arrow::Type::STRING || field->type()->id() == arrow::Type::LARGE_STRING;
    return text.ErrorAt(event_time->location,
                        "option '" + event_time->written_key + "': column '" + field->name() + "' of table '" +
                            table.name + "' is " + plan::TypeName(*field->type()) + ", but event time must be a " +
                            "TIMESTAMP column" +
                            (text_column ? "; declare it as " + field->name() + " TIMESTAMP (ISO-8601 text such as "
                                           "'2024-05-01 10:00:00' in JSON and CSV files is read into TIMESTAMP columns)"
                                         : std::string()));
  }
  // Every use of the table is one watermark, as every use of a Spark view is one withWatermark.
  auto node = plan::LogicalPlan::Watermark(api::PlanOf(df), field->name(), watermark->value, "table " + table.name);
  if (!node.ok()) return LocateTableError(table, node.status(), watermark->location, text);
  return api::MakeDataFrame(df.session(), *node);
}

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
  if (ctx.views) {  // spark.sql: the table is a temporary view (sql_query.h)
    auto view = ctx.views->find(FoldCase(table.name));
    if (view != ctx.views->end()) return view->second;
  }
  auto connector = FindSqlConnector(table.connector);
  if (!connector || !connector->unavailable.empty()) {
    // ParseScript's caller checks connectors up front; this is the same message for safety.
    return text.ErrorAt(table.connector_location, "connector '" + table.connector + "' is not available");
  }
  if (!connector->read) {
    return text.ErrorAt(use_location, "table '" + table.name + "' (connector '" + table.connector +
                                          "') cannot be read: it is a sink; use it with INSERT INTO");
  }
  if (!table.partitioned_by.empty()) {
    return text.ErrorAt(table.partitioned_by_location, "table '" + table.name +
                                                           "' is read here, but PARTITIONED BY only says how INSERT "
                                                           "INTO writes a table; remove it from the source's declaration");
  }
  auto df = connector->read(table, ctx);
  if (!df.ok()) return LocateTableError(table, df.status(), table.location, text);
  return *df;
}

// WHERE on a table: its event time, then the filter. LogicalPlan::Filter moves the conjuncts that
// do not read the event-time column below the watermark, as Spark's optimizer does.
Result<DataFrame> FilterAroundWatermark(const DataFrame& raw, const TableDecl& table, const ExprPtr& predicate,
                                        const SqlText& text) {
  ARROW_ASSIGN_OR_RAISE(DataFrame df, ApplyEventTime(table, raw, text));
  df = df.filter(api::MakeColumn(predicate));
  if (!df.ok()) return df.status();
  return df;
}

Result<PlannedSelect> PlanSelect(const json& select, int begin, int end, const Script& script, const SqlText& text,
                                 const ConnectorContext& ctx) {
  // WITH, set operations and dedupe spellings rewrite the query (sql_relation.h, sql_dedupe.h).
  if (!Field(select, "withClause").is_null()) {
    ARROW_ASSIGN_OR_RAISE(Script scoped, ScopeWithCtes(select, script, text));
    json inner = select;
    inner.erase("withClause");
    return PlanSelect(inner, begin, end, scoped, text, ctx);
  }
  if (StringField(select, "op", "SETOP_NONE") != "SETOP_NONE") return PlanSetOperation(select, begin, end, script, text, ctx);
  ARROW_ASSIGN_OR_RAISE(std::optional<json> deduped, TakeRowNumberDedupe(select, begin, text));
  if (deduped) return PlanSelect(*deduped, begin, end, script, text, ctx);
  ARROW_ASSIGN_OR_RAISE(std::optional<json> all_grouped, GroupByAllAsList(select, text));
  if (all_grouped) return PlanSelect(*all_grouped, begin, end, script, text, ctx);
  ARROW_ASSIGN_OR_RAISE(std::optional<json> grouped, DistinctAsGroupBy(select, begin, text));
  if (grouped) return PlanSelect(*grouped, begin, end, script, text, ctx);
  ARROW_RETURN_NOT_OK(RefuseUnsupportedClauses(select, begin, text));
  ARROW_ASSIGN_OR_RAISE(FromTable from, ResolveFrom(select, begin, end, script, text, ctx));
  // The rows as read, and with the event time applied (a join applies each side's under it).
  auto read = [&]() -> Result<std::pair<DataFrame, DataFrame>> {
    if (from.join) {
      ARROW_ASSIGN_OR_RAISE(JoinedFrom joined, PlanJoinedFrom(*from.join, begin, script, text, ctx));
      from.names = joined.names;
      from.location = joined.location;
      return std::make_pair(joined.frame, joined.frame);
    }
    if (from.frame) return std::make_pair(*from.frame, *from.frame);
    // A static table stays static in a streaming query (e.g. a view over it joined to a stream).
    ConnectorContext read_ctx = ctx;
    auto is_static = IsStaticTable(*from.table);
    if (!is_static.ok()) return LocateTableError(*from.table, is_static.status(), from.location, text);
    if (*is_static) read_ctx.streaming = false;
    ARROW_ASSIGN_OR_RAISE(DataFrame scan, ReadTable(*from.table, from.location, text, read_ctx));
    ARROW_ASSIGN_OR_RAISE(DataFrame marked, ApplyEventTime(*from.table, scan, text));
    return std::make_pair(scan, marked);
  };
  ARROW_ASSIGN_OR_RAISE(auto frames, read());
  const DataFrame raw = frames.first;
  DataFrame df = frames.second;

  const plan::EvalMode mode = AnsiEnabled(*ctx.session) ? plan::EvalMode::kAnsi : plan::EvalMode::kLegacy;
  ExprTranslator where_translator(text, df.schema(), from.names, mode);
  const json& where = Field(select, "whereClause");
  if (!where.is_null()) {
    ARROW_ASSIGN_OR_RAISE(ExprPtr predicate, where_translator.Translate(where));
    ARROW_RETURN_NOT_OK(RefuseAggregatesAndWindows(predicate, "WHERE", where_translator, text));
    auto filtered = from.table ? FilterAroundWatermark(raw, *from.table, predicate, text)
                               : Result<DataFrame>(df.filter(api::MakeColumn(predicate)));
    if (filtered.ok() && !filtered->ok()) filtered = filtered->status();
    if (!filtered.ok()) {
      return where_translator.LocateError(predicate, filtered.status(), FirstLocation(where, begin));
    }
    df = *filtered;
  }
  ARROW_ASSIGN_OR_RAISE(df, ApplyRowNumberDedupe(select, df, text));

  ExprTranslator translator(text, df.schema(), from.names, mode);
  const json& targets = Field(select, "targetList");
  std::vector<SelectItem> items;
  std::vector<std::pair<std::string, std::string>> generator_renames;  // posexplode AS (p, v): pos -> p
  for (size_t i = 0; i < targets.size(); ++i) {
    const json& target = Field(targets[i], "ResTarget");
    const int location = LocationOf(target);
    if (const json& alias_list = Field(Field(target, "val"), "FuncCall");
        !alias_list.is_null() && StringList(Field(alias_list, "funcname")) == std::vector<std::string>{kGeneratorAliasList}) {
      ARROW_RETURN_NOT_OK(ApplyGeneratorAliases(alias_list, location, text, &items, &generator_renames));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(ExprPtr e, translator.Translate(Field(target, "val")));
    const std::string alias = StringField(target, "name");
    if (!alias.empty()) {
      // The alias is the last token of this item: before the next item, or before FROM.
      int next = i + 1 < targets.size() ? LocationOf(Field(targets[i + 1], "ResTarget")) : from.location;
      e = plan::Expr::Alias(e, text.SpellingIn(alias, location, next >= 0 ? next : end));
    } else if (from.join && e->kind == plan::Expr::Kind::kColumn && IsJoinQualifiedColumn(e->name)) {
      e = plan::Expr::Alias(e, e->name.substr(e->name.find('.') + 1));  // s.id is named id, as in Spark
    }
    items.push_back({e, location});
  }
  if (IsAggregation(select, items)) {
    PlannedSelect out{df, {}};
    ARROW_ASSIGN_OR_RAISE(out.frame, PlanGroupedSelect(df, select, items, translator, text, begin, &out.column_locations));
    ExprTranslator result_translator(text, out.frame.schema(), from.names, mode);
    ARROW_ASSIGN_OR_RAISE(out.frame, ApplyOrderByAndLimit(select, begin, out.frame, items, translator, result_translator, text));
    return out;
  }

  std::vector<Column> columns;
  std::vector<int> locations;
  for (const auto& item : items) {
    ARROW_RETURN_NOT_OK(RefuseAggregatesAndWindows(item.expr, "SELECT", translator, text));
    size_t expanded = plan::IsStar(*item.expr) ? static_cast<size_t>(df.schema()->num_fields()) : 1;
    locations.insert(locations.end(), expanded, item.location);
    columns.push_back(api::MakeColumn(item.expr));
  }
  DataFrame projected = df.select(columns);
  for (const auto& [from_name, to_name] : generator_renames) projected = projected.withColumnRenamed(from_name, to_name);
  if (!projected.ok()) {
    // Find the select item at fault and point inside it.
    for (const auto& item : items) {
      const ExprPtr& e = item.expr;
      if (plan::IsStar(*e)) continue;
      if (!plan::ResolveExpr(*e, *df.schema()).ok()) return translator.LocateError(e, projected.status(), item.location);
    }
    return text.ErrorAt(begin, projected.status().message());
  }
  ExprTranslator result_translator(text, projected.schema(), from.names, mode);
  ARROW_ASSIGN_OR_RAISE(projected, ApplyOrderByAndLimit(select, begin, projected, items, translator, result_translator, text));
  return PlannedSelect{projected, locations};
}

}  // namespace sluice::sql
