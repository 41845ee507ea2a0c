#include "sql/sql_parse.h"

#include <pg_query.h>

#include <cctype>
#include <optional>
#include <utility>

#include "sql/sql_spark_spelling.h"

namespace sluice::sql {
namespace {

constexpr size_t kMaxIdentifierBytes = 63;  // Postgres' NAMEDATALEN - 1

bool IdentStart(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool IdentChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

// The first identifier (plain, "quoted" or `quoted`) longer than the grammar's limit, as
// (offset, length in bytes). The Postgres scanner would cut it to 63 bytes without a word, so
// two long names sharing their first 63 bytes would silently become one.
std::optional<std::pair<int, size_t>> FirstLongIdentifier(const std::string& s) {
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '-' && i + 1 < n && s[i + 1] == '-') {  // -- comment
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {  // /* comment */
      const size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 2;
    } else if (c == '\'' || c == '"' || c == '`') {  // literal or quoted identifier; doubled = escaped
      size_t j = i + 1;
      size_t length = 0;
      while (j < n) {
        if (s[j] == static_cast<char>(c)) {
          if (j + 1 < n && s[j + 1] == static_cast<char>(c)) {
            j += 2;
            ++length;
            continue;
          }
          break;
        }
        ++j;
        ++length;
      }
      if (c != '\'' && length > kMaxIdentifierBytes) return std::make_pair(static_cast<int>(i), length);
      i = j + 1;
    } else if (IdentStart(c)) {
      size_t j = i;
      while (j < n && IdentChar(static_cast<unsigned char>(s[j]))) ++j;
      if (j - i > kMaxIdentifierBytes) return std::make_pair(static_cast<int>(i), j - i);
      i = j;
    } else if (std::isdigit(c)) {
      while (i < n && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    } else {
      ++i;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<nlohmann::json> ParseStatements(const SqlText& text) {
  if (auto long_name = FirstLongIdentifier(text.text())) {
    return text.ErrorAt(long_name->first, "this name is " + std::to_string(long_name->second) +
                                              " bytes long; names are limited to 63 bytes (the SQL grammar would "
                                              "cut it silently): use a shorter name");
  }
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
