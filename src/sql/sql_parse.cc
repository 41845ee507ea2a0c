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

namespace {

// PostgreSQL's reserved key words that people use as column or table names.
bool IsReservedWord(const std::string& w) {
  static const char* const kWords[] = {
      "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "both", "case", "cast", "check", "collate",
      "column", "constraint", "create", "current_date", "current_time", "current_timestamp", "current_user",
      "default", "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign", "from",
      "grant", "group", "having", "in", "intersect", "into", "leading", "limit", "localtime", "localtimestamp", "not",
      "null", "offset", "on", "only", "or", "order", "placing", "primary", "references", "returning", "select",
      "session_user", "some", "table", "then", "to", "trailing", "true", "union", "unique", "user", "using",
      "variadic", "when", "where", "window", "with"};
  for (const char* k : kWords) {
    if (w == k) return true;
  }
  return false;
}

// The word (letters, digits, '_') starting at byte `pos` of `sql`, lower case; empty if none.
std::string WordAt(const std::string& sql, int pos) {
  std::string w;
  for (size_t i = static_cast<size_t>(pos); pos >= 0 && i < sql.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(sql[i]);
    if (!std::isalnum(c) && c != '_') break;
    w += static_cast<char>(std::tolower(c));
  }
  return w;
}

}  // namespace

Result<nlohmann::json> ParseStatements(const SqlText& text) {
  if (auto long_name = FirstLongIdentifier(text.text())) {
    return text.ErrorAt(long_name->first, "this name is " + std::to_string(long_name->second) +
                                              " bytes long; names are limited to 63 bytes (the SQL grammar would "
                                              "cut it silently): use a shorter name");
  }
  const std::string rewritten =
      RewriteFlinkSpellings(RewriteSparkClauses(
      RewriteSparkOperators(RewriteSparkJoinSpelling(RewriteSparkWindowSpelling(text.text())))));
  PgQueryParseResult parsed = pg_query_parse(rewritten.c_str());
  if (parsed.error) {
    // cursorpos is 1-based; 0 means unknown.
    const int pos = parsed.error->cursorpos - 1;
    auto reserved = ExplainReservedWindow(text.text(), pos);
    std::string message = std::string("SQL ") + parsed.error->message;
    const std::string word = WordAt(text.text(), pos);
    if (!reserved && IsReservedWord(word)) {
      message += "; '" + word + "' is a reserved word in this SQL grammar: to use it as a name, quote it (\"" + word +
                 "\") or rename it";
    }
    Status st = reserved ? text.ErrorAt(reserved->first, reserved->second) : text.ErrorAt(pos, message);
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
