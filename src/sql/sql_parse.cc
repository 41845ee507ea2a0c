#include "sql/sql_parse.h"

#include <pg_query.h>

#include "sql/sql_spark_spelling.h"

namespace sluice::sql {

Result<nlohmann::json> ParseStatements(const SqlText& text) {
  const std::string rewritten =
      RewriteSparkOperators(RewriteSparkJoinSpelling(RewriteSparkWindowSpelling(text.text())));
  PgQueryParseResult parsed = pg_query_parse(rewritten.c_str());
  if (parsed.error) {
    // cursorpos is 1-based; 0 means unknown.
    const int pos = parsed.error->cursorpos - 1;
    auto reserved = ExplainReservedWindow(text.text(), pos);
    Status st = reserved ? text.ErrorAt(reserved->first, reserved->second)
                         : text.ErrorAt(pos, std::string("SQL ") + parsed.error->message);
    pg_query_free_parse_result(parsed);
    return st;
  }
  nlohmann::json tree;
  try {
    tree = nlohmann::json::parse(parsed.parse_tree);
  } catch (const nlohmann::json::exception& e) {
    pg_query_free_parse_result(parsed);
    return Status::Invalid(text.file_name(), ": cannot read the SQL parse tree: ", e.what());
  }
  pg_query_free_parse_result(parsed);
  if (!tree.contains("stmts")) return nlohmann::json::array();
  return tree["stmts"];
}

int LocationOf(const nlohmann::json& node_body) {
  if (!node_body.is_object()) return -1;
  auto it = node_body.find("location");
  return it != node_body.end() && it->is_number_integer() ? it->get<int>() : -1;
}

int FirstLocation(const nlohmann::json& node, int fallback) {
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

const nlohmann::json& Field(const nlohmann::json& body, const char* key) {
  static const nlohmann::json kNull;
  if (!body.is_object()) return kNull;
  auto it = body.find(key);
  return it == body.end() ? kNull : *it;
}

std::string StringField(const nlohmann::json& body, const char* key, const std::string& def) {
  const auto& v = Field(body, key);
  return v.is_string() ? v.get<std::string>() : def;
}

int64_t IntField(const nlohmann::json& body, const char* key, int64_t def) {
  const auto& v = Field(body, key);
  return v.is_number_integer() ? v.get<int64_t>() : def;
}

Result<int64_t> IntegerConstant(const nlohmann::json& ival, int location, const SqlText& text, bool assigned) {
  const auto& v = Field(ival, "ival");
  if (v.is_number_integer()) return v.get<int64_t>();
  std::optional<int64_t> read = assigned ? text.AssignedIntegerAt(location) : text.IntegerAt(location);
  if (!read) return text.ErrorAt(location, "cannot read the integer literal here; write it as a plain number");
  return *read;
}

std::vector<std::string> StringList(const nlohmann::json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& item : list) out.push_back(StringField(Field(item, "String"), "sval"));
  return out;
}

std::string NodeKind(const nlohmann::json& node) {
  if (!node.is_object() || node.size() != 1) return "";
  return node.begin().key();
}

}  // namespace sluice::sql
