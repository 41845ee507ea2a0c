#include "sql/sql_script.h"

#include <arrow/api.h>

#include <algorithm>
#include <cctype>

#include "sql/sql_flink_options.h"
#include "sql/sql_parse.h"
#include "sql/sql_spark_spelling.h"
#include "sql/sql_types.h"

namespace sluice::sql {
namespace {

using nlohmann::json;

// An option or SET value as text: 'string', number, true/false, or a bare word. `option_location`
// is where a WITH option's `name = value` starts (its Integer value node has no location).
Result<std::optional<std::string>> ValueText(const json& node, const SqlText& text, int option_location) {
  std::string kind = NodeKind(node);
  const json& body = Field(node, kind.c_str());
  if (kind == "String") return StringField(body, "sval");
  if (kind == "Integer") {
    ARROW_ASSIGN_OR_RAISE(int64_t v, IntegerConstant(body, option_location, text, /*assigned=*/true));
    return std::to_string(v);
  }
  if (kind == "Float") return StringField(body, "fval");
  if (kind == "Boolean") return Field(body, "boolval").is_boolean() && Field(body, "boolval").get<bool>() ? "true" : "false";
  if (kind == "TypeName") {
    auto names = StringList(Field(body, "names"));
    if (names.size() == 1) return names[0];
  }
  if (kind == "A_Const") {
    if (body.contains("sval")) return StringField(Field(body, "sval"), "sval");
    if (body.contains("ival")) {
      ARROW_ASSIGN_OR_RAISE(int64_t v, IntegerConstant(Field(body, "ival"), LocationOf(body), text));
      return std::to_string(v);
    }
    if (body.contains("fval")) return StringField(Field(body, "fval"), "fval");
    if (body.contains("boolval")) {
      const json& b = Field(Field(body, "boolval"), "boolval");
      return b.is_boolean() && b.get<bool>() ? "true" : "false";
    }
  }
  return std::optional<std::string>();
}

// The engine's spelling of an option key written in snake_case, camelCase or dashed: the
// options the engine spells with dashes (Iceberg's) in any of the three; other dashed keys
// without a dot (max-files-per-trigger) and snake_case keys in camelCase. Dotted keys (Flink's
// sink.rolling-policy.file-size, catalog.type) are kept: the connector maps or refuses them.
std::string EngineKey(const std::string& written) {
  static const char* const kDashed[] = {"target-file-size-bytes", "merge-schema"};
  auto squash = [](const std::string& k) {
    std::string out;
    for (char c : k) {
      if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
  };
  if (written.find('.') != std::string::npos) return written;
  for (const char* dashed : kDashed) {
    if (squash(written) == squash(dashed)) return dashed;
  }
  std::string snake = written;
  std::replace(snake.begin(), snake.end(), '-', '_');
  return SnakeToCamel(snake);
}

// Flink's WATERMARK FOR col AS col - INTERVAL ... inside the column list of the CREATE TABLE
// spanning [start, end): the options event_time and watermark.
Status AddFlinkWatermark(const std::vector<FlinkWatermark>& watermarks, int start, int end, const SqlText& text,
                         TableDecl* table) {
  for (const auto& w : watermarks) {
    if (w.location < start || w.location >= end) continue;
    if (!w.error.empty()) return text.ErrorAt(w.location, w.error);
    if (table->Find("eventTime") || table->Find("watermark")) {
      return text.ErrorAt(w.location, "table '" + table->name + "' has both WATERMARK FOR and the options "
                                      "event_time/watermark; keep one of them");
    }
    table->options.push_back(TableOption{"eventTime", "WATERMARK FOR", w.column, w.location});
    table->options.push_back(TableOption{"watermark", "WATERMARK FOR", w.delay, w.location});
  }
  return Status::OK();
}

// One element of PARTITIONED BY: a column name or a call whose arguments are columns and integers.
Result<PartitionElement> ReadPartitionElement(const json& elem, const SqlText& text, int fallback_location) {
  PartitionElement out;
  out.location = LocationOf(elem) >= 0 ? LocationOf(elem) : fallback_location;
  if (!StringField(elem, "name").empty()) {
    out.column = text.IdentifierAt(out.location, StringField(elem, "name"));
    return out;
  }
  const json& expr = Field(elem, "expr");
  const std::string kind = NodeKind(expr);
  const json& body = Field(expr, kind.c_str());
  if (LocationOf(body) >= 0) out.location = LocationOf(body);
  const std::string usage =
      "a partition is a column (dt) or a transform of one: year(ts), month(ts), day(ts), hour(ts), "
      "bucket(16, id), truncate(4, s), identity(c)";
  if (kind == "ColumnRef") {
    auto names = StringList(Field(body, "fields"));
    if (names.size() != 1) return text.ErrorAt(out.location, "PARTITIONED BY takes unqualified column names");
    out.column = text.IdentifierAt(out.location, names[0]);
    return out;
  }
  if (kind != "FuncCall") return text.ErrorAt(out.location, "cannot partition by this expression: " + usage);
  auto fname = StringList(Field(body, "funcname"));
  if (fname.size() != 1) return text.ErrorAt(out.location, "cannot partition by this expression: " + usage);
  out.transform = FoldCase(fname[0]);
  for (const auto& arg : Field(body, "args")) {
    const std::string akind = NodeKind(arg);
    const json& abody = Field(arg, akind.c_str());
    if (akind == "ColumnRef" && StringList(Field(abody, "fields")).size() == 1 && out.column.empty()) {
      out.column = text.IdentifierAt(LocationOf(abody), StringList(Field(abody, "fields"))[0]);
    } else if (akind == "A_Const" && abody.contains("ival")) {
      ARROW_ASSIGN_OR_RAISE(int64_t v, IntegerConstant(Field(abody, "ival"), LocationOf(abody), text));
      out.parameters.push_back(v);
    } else {
      return text.ErrorAt(FirstLocation(arg, out.location), "partition transform " + out.transform +
                                                                "(...) takes one column and integer literals; " + usage);
    }
  }
  if (out.column.empty()) {
    return text.ErrorAt(out.location, "partition transform " + out.transform + "(...) needs a column; " + usage);
  }
  return out;
}

Status ReadPartitionSpec(const json& spec_node, const SqlText& text, TableDecl* table) {
  const json& spec = NodeKind(spec_node) == "PartitionSpec" ? Field(spec_node, "PartitionSpec") : spec_node;
  table->partitioned_by_location = LocationOf(spec);
  if (StringField(spec, "strategy") != kSparkPartitionStrategy) {
    return text.ErrorAt(table->partitioned_by_location,
                        "PostgreSQL's PARTITION BY " + StringField(spec, "strategy") +
                            " is not supported; write PARTITIONED BY (column, ...) after the column list");
  }
  for (const auto& p : Field(spec, "partParams")) {
    const json& elem = NodeKind(p) == "PartitionElem" ? Field(p, "PartitionElem") : p;
    ARROW_ASSIGN_OR_RAISE(auto element, ReadPartitionElement(elem, text, table->partitioned_by_location));
    for (const auto& seen : table->partitioned_by) {
      if (seen.ToString() == element.ToString()) {
        return text.ErrorAt(element.location, "PARTITIONED BY names " + element.ToString() + " twice");
      }
    }
    table->partitioned_by.push_back(std::move(element));
  }
  return Status::OK();
}

Result<TableDecl> ReadCreateTable(const json& create, const SqlText& text, int stmt_start) {
  TableDecl table;
  const json& relation = Field(create, "relation");
  table.location = LocationOf(relation);
  table.name = text.IdentifierAt(table.location, StringField(relation, "relname"));
  if (!StringField(relation, "schemaname").empty()) {
    return text.ErrorAt(table.location, "qualified table names are not supported; write CREATE TABLE " +
                                            StringField(relation, "relname"));
  }
  if (Field(create, "if_not_exists").is_boolean()) {
    return text.ErrorAt(stmt_start, "CREATE TABLE IF NOT EXISTS is not supported: a pipeline file declares each table once");
  }
  arrow::FieldVector fields;
  for (const auto& element : Field(create, "tableElts")) {
    const std::string kind = NodeKind(element);
    const json& body = Field(element, kind.c_str());
    if (kind != "ColumnDef") {
      return text.ErrorAt(LocationOf(body) >= 0 ? LocationOf(body) : table.location,
                          "only column definitions are supported in CREATE TABLE (found " + kind + ")");
    }
    const int location = LocationOf(body);
    std::string name = text.IdentifierAt(location, StringField(body, "colname"));
    ARROW_ASSIGN_OR_RAISE(auto type, TypeFromSql(Field(body, "typeName"), text));
    bool nullable = true;
    for (const auto& c : Field(body, "constraints")) {
      const json& con = Field(c, "Constraint");
      std::string contype = StringField(con, "contype");
      if (contype == "CONSTR_NOTNULL") {
        nullable = false;
      } else if (contype != "CONSTR_NULL") {
        return text.ErrorAt(LocationOf(con), "column constraints other than NOT NULL are not supported");
      }
    }
    for (const auto& f : fields) {
      if (FoldCase(f->name()) == FoldCase(name)) {
        return text.ErrorAt(location, "column '" + name + "' is declared twice in table '" + table.name + "'");
      }
    }
    fields.push_back(arrow::field(name, type, nullable));
    table.column_locations.push_back(location);
  }
  if (!fields.empty()) table.schema = arrow::schema(std::move(fields));
  if (!Field(create, "partspec").is_null()) ARROW_RETURN_NOT_OK(ReadPartitionSpec(Field(create, "partspec"), text, &table));

  for (const auto& opt : Field(create, "options")) {
    const json& def = Field(opt, "DefElem");
    TableOption option;
    option.location = LocationOf(def);
    option.written_key = text.IdentifierAt(option.location, StringField(def, "defname"));
    option.key = EngineKey(option.written_key);
    ARROW_ASSIGN_OR_RAISE(auto value, ValueText(Field(def, "arg"), text, option.location));
    if (!value) {
      return text.ErrorAt(option.location, "option '" + option.written_key + "' needs a value: " +
                                                option.written_key + " = 'value'");
    }
    option.value = *value;
    if (FoldCase(option.key) == "connector") {
      table.connector = FoldCase(option.value);
      if (table.connector == "filesystem") table.connector = "files";  // Flink's name
      table.connector_location = option.location;
      continue;
    }
    for (const auto& seen : table.options) {
      if (FoldCase(seen.key) == FoldCase(option.key)) {
        return text.ErrorAt(option.location, "option '" + option.written_key + "' is given twice");
      }
    }
    table.options.push_back(std::move(option));
  }
  if (table.connector.empty()) {
    return text.ErrorAt(table.location, "table '" + table.name +
                                             "' has no connector: add WITH (connector = 'files', format = 'json', "
                                             "path = '...') or connector = 'console'");
  }
  ARROW_RETURN_NOT_OK(MapFlinkOptions(&table, text));
  return table;
}

Result<SetStmt> ReadSet(const json& set, const SqlText& text, int stmt_start, int stmt_end) {
  const std::string kind = StringField(set, "kind");
  if (kind != "VAR_SET_VALUE") return text.ErrorAt(stmt_start, "only SET key = value is supported");
  SetStmt out;
  out.location = stmt_start;
  out.key = text.SpellingIn(StringField(set, "name"), stmt_start, stmt_end);
  const json& args = Field(set, "args");
  if (!args.is_array() || args.size() != 1) return text.ErrorAt(stmt_start, "SET " + out.key + " needs one value");
  ARROW_ASSIGN_OR_RAISE(auto value, ValueText(args[0], text, -1));
  if (!value) return text.ErrorAt(stmt_start, "SET " + out.key + ": the value must be a literal");
  out.value = *value;
  return out;
}

Result<QueryStmt> ReadInsert(const json& insert, const SqlText& text, int stmt_start) {
  QueryStmt q;
  q.location = stmt_start;
  const json& relation = Field(insert, "relation");
  q.sink_location = LocationOf(relation);
  q.sink = text.IdentifierAt(q.sink_location, StringField(relation, "relname"));
  if (!Field(insert, "cols").is_null()) {
    return text.ErrorAt(LocationOf(Field(Field(insert, "cols")[0], "ResTarget")),
                        "INSERT INTO " + q.sink + " (columns) is not supported: the query's columns go to the sink by position");
  }
  if (!Field(insert, "onConflictClause").is_null() || !Field(insert, "returningList").is_null()) {
    return text.ErrorAt(stmt_start, "ON CONFLICT and RETURNING are not supported");
  }
  const json& select = Field(Field(insert, "selectStmt"), "SelectStmt");
  if (select.is_null()) return text.ErrorAt(stmt_start, "INSERT INTO needs a SELECT");
  if (!Field(select, "valuesLists").is_null()) {
    return text.ErrorAt(stmt_start, "INSERT ... VALUES is not supported: a pipeline inserts the rows of a SELECT");
  }
  q.select = select;
  // WITH x AS (...) INSERT INTO t SELECT ...: the CTEs belong to the SELECT.
  const json& with = Field(insert, "withClause");
  if (!with.is_null()) {
    if (!Field(select, "withClause").is_null()) {
      return text.ErrorAt(stmt_start, "two WITH clauses (before INSERT and before SELECT); merge them into one");
    }
    q.select["withClause"] = with;
  }
  return q;
}

Result<ViewDecl> ReadCreateView(const json& view, const SqlText& text, int stmt_start, int stmt_end) {
  ViewDecl out;
  const json& relation = Field(view, "view");
  out.location = LocationOf(relation);
  out.name = text.IdentifierAt(out.location, StringField(relation, "relname"));
  out.end = stmt_end;
  if (!StringField(relation, "schemaname").empty()) {
    return text.ErrorAt(out.location, "qualified view names are not supported; write CREATE VIEW " +
                                          StringField(relation, "relname"));
  }
  if (!Field(view, "aliases").is_null()) {
    return text.ErrorAt(out.location, "CREATE VIEW " + out.name + " (columns) is not supported; name the columns "
                                      "with AS in the SELECT");
  }
  const json& select = Field(Field(view, "query"), "SelectStmt");
  if (select.is_null() || !Field(select, "valuesLists").is_null()) {
    return text.ErrorAt(stmt_start, "CREATE VIEW " + out.name + " needs AS SELECT ...");
  }
  out.select = select;
  return out;
}

}  // namespace

std::string PartitionElement::ToString() const {
  if (transform.empty()) return column;
  std::string out = transform + "(";
  for (int64_t p : parameters) out += std::to_string(p) + ", ";
  return out + column + ")";
}

const TableOption* TableDecl::Find(const std::string& key) const {
  for (const auto& o : options) {
    if (FoldCase(o.key) == FoldCase(key)) return &o;
  }
  return nullptr;
}

const ViewDecl* Script::FindView(const std::string& name) const {
  for (auto it = views.rbegin(); it != views.rend(); ++it) {
    if (FoldCase(it->name) == FoldCase(name)) return &*it;
  }
  return nullptr;
}

const TableDecl* Script::FindTable(const std::string& name) const {
  for (const auto& t : tables) {
    if (FoldCase(t.name) == FoldCase(name)) return &t;
  }
  return nullptr;
}

std::string SnakeToCamel(const std::string& key) {
  if (key.find('_') == std::string::npos) return key;
  std::string out;
  bool upper_next = false;
  for (char c : key) {
    if (c == '_') {
      upper_next = !out.empty();
      continue;
    }
    out += upper_next ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                      : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    upper_next = false;
  }
  return out;
}

namespace {

// The byte offset of the table name in `DESC [TABLE] name` starting at `start`.
int NameAfterDesc(const SqlText& text, int start) {
  int at = text.SkipBlanks(start + 4);
  const std::string& sql = text.text();
  if (sql.size() >= static_cast<size_t>(at) + 6 && FoldCase(sql.substr(static_cast<size_t>(at), 5)) == "table" &&
      std::isspace(static_cast<unsigned char>(sql[static_cast<size_t>(at) + 5]))) {
    at = text.SkipBlanks(at + 5);
  }
  return at;
}

// The parse tree of `TABLE name` (SELECT * FROM name) with the name at `location`.
json DescribedTable(const std::string& name, int location) {
  json star = {{"ColumnRef", {{"fields", json::array({{{"A_Star", json::object()}}})}, {"location", location}}}};
  json target = {{"ResTarget", {{"val", star}, {"location", location}}}};
  json range = {{"RangeVar", {{"relname", name}, {"inh", true}, {"relpersistence", "p"}, {"location", location}}}};
  return {{"targetList", json::array({target})},
          {"fromClause", json::array({range})},
          {"limitOption", "LIMIT_OPTION_DEFAULT"},
          {"op", "SETOP_NONE"}};
}

}  // namespace

Result<Script> ParseScript(const SqlText& text) {
  ARROW_ASSIGN_OR_RAISE(json stmts, ParseStatements(text));
  Script script;
  const std::vector<FlinkWatermark> watermarks = FindFlinkWatermarks(text.text());
  for (const auto& raw : stmts) {
    const int stmt_location = static_cast<int>(IntField(raw, "stmt_location"));
    const int stmt_len = static_cast<int>(IntField(raw, "stmt_len"));
    const int start = text.SkipBlanks(stmt_location);
    const int end = stmt_len > 0 ? stmt_location + stmt_len : static_cast<int>(text.text().size());
    const json& stmt = Field(raw, "stmt");
    const std::string kind = NodeKind(stmt);
    const json& body = Field(stmt, kind.c_str());
    if (kind == "CreateStmt") {
      ARROW_ASSIGN_OR_RAISE(TableDecl table, ReadCreateTable(body, text, start));
      ARROW_RETURN_NOT_OK(AddFlinkWatermark(watermarks, start, end, text, &table));
      if (const TableDecl* prev = script.FindTable(table.name)) {
        return text.ErrorAt(table.location, "table '" + table.name + "' is already declared at " + text.Where(prev->location));
      }
      if (const ViewDecl* prev = script.FindView(table.name)) {
        return text.ErrorAt(table.location, "'" + table.name + "' is already declared as a view at " + text.Where(prev->location));
      }
      script.tables.push_back(std::move(table));
    } else if (kind == "ViewStmt") {
      ARROW_ASSIGN_OR_RAISE(ViewDecl view, ReadCreateView(body, text, start, end));
      if (script.FindTable(view.name) || script.FindView(view.name)) {
        const int prev = script.FindTable(view.name) ? script.FindTable(view.name)->location : script.FindView(view.name)->location;
        return text.ErrorAt(view.location, "'" + view.name + "' is already declared at " + text.Where(prev) +
                                               "; give the view another name");
      }
      script.views.push_back(std::move(view));
    } else if (kind == "VariableSetStmt") {
      ARROW_ASSIGN_OR_RAISE(SetStmt set, ReadSet(body, text, start, end));
      script.settings.push_back(std::move(set));
    } else if (kind == "InsertStmt") {
      ARROW_ASSIGN_OR_RAISE(QueryStmt q, ReadInsert(body, text, start));
      q.end = end;
      script.queries.push_back(std::move(q));
    } else if (kind == "SelectStmt") {
      if (!Field(body, "valuesLists").is_null()) return text.ErrorAt(start, "VALUES is not supported");
      QueryStmt q;
      q.location = start;
      q.end = end;
      q.select = body;
      q.describe = IsDescribeAt(text.text(), start);
      script.queries.push_back(std::move(q));
    } else if (kind == "VariableShowStmt" && IsDescribeAt(text.text(), start)) {
      QueryStmt q;  // DESC [TABLE] t, parsed as SHOW t: the SELECT * FROM t that `TABLE t` parses to
      q.location = start;
      q.end = end;
      q.select = DescribedTable(StringField(body, "name"), NameAfterDesc(text, start));
      q.describe = true;
      script.queries.push_back(std::move(q));
    } else {
      std::string what = kind.size() > 4 && kind.compare(kind.size() - 4, 4, "Stmt") == 0 ? kind.substr(0, kind.size() - 4) : kind;
      return text.ErrorAt(start, "unsupported statement (" + what +
                                     "); a pipeline file holds CREATE TABLE, CREATE VIEW, SET, INSERT INTO ... SELECT and SELECT");
    }
  }
  return script;
}

}  // namespace sluice::sql
