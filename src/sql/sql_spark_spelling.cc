#include "sql/sql_spark_spelling.h"

#include <cctype>
#include <cstring>
#include <functional>

namespace sluice::sql {

// "wind" + U+03C9 (two bytes): six bytes like "window"; an identifier to the lexer that nobody types.
const char* const kSparkWindowFunction = "wind\xCF\x89";

const char* const kSparkPartitionStrategy = "s";

namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }

bool WordAt(const std::string& s, size_t i, const char* word) {
  const size_t n = std::strlen(word);
  if (i + n > s.size() || (i > 0 && (IsWordChar(s[i - 1]) || s[i - 1] == '.'))) return false;
  for (size_t k = 0; k < n; ++k) {
    if (std::tolower(static_cast<unsigned char>(s[i + k])) != word[k]) return false;
  }
  return i + n == s.size() || !IsWordChar(s[i + n]);
}

// Calls visit(i) for each byte offset outside string literals, quoted identifiers and comments.
void ForEachCodeByte(const std::string& s, const std::function<void(size_t)>& visit) {
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '\'' || s[i] == '"') {
      const char quote = s[i];
      for (++i; i < s.size(); ++i) {
        if (s[i] == quote) {
          if (i + 1 < s.size() && s[i + 1] == quote) {
            ++i;  // a doubled quote inside
          } else {
            break;
          }
        }
      }
      ++i;
    } else if (s.compare(i, 2, "--") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
    } else {
      visit(i);
      ++i;
    }
  }
}

size_t SkipSpaces(const std::string& s, size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

}  // namespace

std::string RewriteSparkWindowSpelling(const std::string& sql) {
  std::string out = sql;
  ForEachCodeByte(sql, [&](size_t i) {
    for (const char* prefix : {"session_window", "window"}) {
      if (!WordAt(sql, i, prefix)) continue;
      const size_t n = std::strlen(prefix);
      for (const char* field : {".start", ".end"}) {
        if (sql.compare(i + n, std::strlen(field), field) == 0 &&
            (i + n + std::strlen(field) == sql.size() || !IsWordChar(sql[i + n + std::strlen(field)]))) {
          // "window.start" -> "window_start"; "session_window.start" -> "window_start" + spaces.
          std::string column = std::string("window_") + (field + 1);
          std::string replacement = column + std::string(n + std::strlen(field) - column.size(), ' ');
          out.replace(i, replacement.size(), replacement);
          return;
        }
      }
      if (std::strcmp(prefix, "window") == 0 && SkipSpaces(sql, i + n) < sql.size() && sql[SkipSpaces(sql, i + n)] == '(') {
        out.replace(i, n, kSparkWindowFunction);
      }
      return;
    }
  });
  return out;
}

std::string RewriteSparkOperators(const std::string& sql) {
  std::string out = sql;
  ForEachCodeByte(sql, [&](size_t i) {
    // PARTITIONED BY -> "PARTITION BY" + spaces + "s" (the strategy), the same length.
    if (WordAt(sql, i, "partitioned") && WordAt(sql, SkipSpaces(sql, i + 11), "by") && SkipSpaces(sql, i + 11) > i + 11) {
      const size_t span = SkipSpaces(sql, i + 11) + 2 - i;
      out.replace(i, span, "PARTITION BY" + std::string(span - 13, ' ') + kSparkPartitionStrategy);
      return;
    }
    if (WordAt(sql, i, "try_cast") && SkipSpaces(sql, i + 8) < sql.size() && sql[SkipSpaces(sql, i + 8)] == '(') {
      out.replace(i, 8, "    cast");
      return;
    }
    // INTERVAL 1 HOUR -> INTERVAL'1'HOUR (the spaces around the number become quotes);
    // INTERVAL 3 SECONDS -> INTERVAL'3 SECONDS' (the space after the plural unit closes it).
    if (WordAt(sql, i, "interval") && i + 9 < sql.size() && sql[i + 8] == ' ') {
      size_t end = i + 9;
      if (end < sql.size() && sql[end] == '-') ++end;
      const size_t digits = end;
      while (end < sql.size() && (std::isdigit(static_cast<unsigned char>(sql[end])) || sql[end] == '.')) ++end;
      if (end == digits || end + 1 >= sql.size() || sql[end] != ' ') return;
      size_t unit_end = end + 1;
      while (unit_end < sql.size() && std::isalpha(static_cast<unsigned char>(sql[unit_end]))) ++unit_end;
      if (unit_end == end + 1) return;
      const bool plural = std::tolower(static_cast<unsigned char>(sql[unit_end - 1])) == 's';
      if (!plural) {
        out[i + 8] = '\'';
        out[end] = '\'';
      } else if (unit_end < sql.size() && std::isspace(static_cast<unsigned char>(sql[unit_end]))) {
        out[i + 8] = '\'';
        out[unit_end] = '\'';
      }
      return;
    }
    for (const char* op : {"rlike", "regexp"}) {
      if (!WordAt(sql, i, op)) continue;
      const size_t n = std::strlen(op);
      if (SkipSpaces(sql, i + n) < sql.size() && sql[SkipSpaces(sql, i + n)] == '(') return;  // rlike(s, p): a function
      // "NOT RLIKE": the NOT before it (already copied) becomes "!~" and the operator spaces.
      size_t before = i;
      while (before > 0 && std::isspace(static_cast<unsigned char>(sql[before - 1]))) --before;
      if (before >= 3 && WordAt(sql, before - 3, "not")) {
        out.replace(before - 3, 3, "!~ ");
        out.replace(i, n, std::string(n, ' '));
      } else {
        out.replace(i, n, "~" + std::string(n - 1, ' '));
      }
      return;
    }
  });
  return out;
}

bool IsTryCastAt(const std::string& sql, int cast_at) {
  return cast_at >= 4 && WordAt(sql, static_cast<size_t>(cast_at) - 4, "try_cast");
}

std::optional<std::pair<int, std::string>> ExplainReservedWindow(const std::string& sql, int pos) {
  std::optional<std::pair<int, std::string>> message;
  ForEachCodeByte(sql, [&](size_t i) {
    if (message || !(WordAt(sql, i, "window") || WordAt(sql, i, "window_time"))) return;
    const size_t end = i + (WordAt(sql, i, "window") ? 6 : 11);
    if (pos < 0 || static_cast<size_t>(pos) + 1 < i || static_cast<size_t>(pos) > SkipSpaces(sql, end) + 7) return;
    message.emplace(static_cast<int>(i),
        "'window' is a reserved word in this SQL grammar: group with GROUP BY window(ts, '10 seconds') (or "
        "tumble(ts, INTERVAL '10 seconds')) and select window.start and window.end (or window_start and "
        "window_end); the window struct itself and window_time(window) are not available, select window_end instead");
  });
  return message;
}

std::string RewriteSparkJoinSpelling(const std::string& sql) {
  std::string out = sql;
  ForEachCodeByte(sql, [&](size_t i) {
    for (const char* word : {"semi", "anti"}) {
      if (!WordAt(sql, i, word)) continue;
      const size_t next = SkipSpaces(sql, i + 4);
      if (!WordAt(sql, next, "join")) return;
      out.replace(i, 4, "    ");
      return;
    }
  });
  return out;
}

std::optional<std::string> SparkJoinWordBefore(const std::string& sql, int table_location) {
  if (table_location <= 0 || static_cast<size_t>(table_location) > sql.size()) return std::nullopt;
  size_t i = static_cast<size_t>(table_location);
  auto previous_word = [&]() -> std::string {
    while (i > 0 && std::isspace(static_cast<unsigned char>(sql[i - 1]))) --i;
    size_t end = i;
    while (i > 0 && IsWordChar(sql[i - 1])) --i;
    std::string w = sql.substr(i, end - i);
    for (auto& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return w;
  };
  if (previous_word() != "join") return std::nullopt;
  std::string w = previous_word();
  if (w == "semi" || w == "anti") return w;
  return std::nullopt;
}

}  // namespace sluice::sql
