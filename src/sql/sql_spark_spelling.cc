#include "sql/sql_spark_spelling.h"

#include <cctype>
#include <cstring>
#include <functional>

#include "util/strings.h"

namespace sluice::sql {

// "wind" + U+03C9 (two bytes): six bytes like "window"; an identifier to the lexer that nobody types.
const char* const kSparkWindowFunction = "wind\xCF\x89";
const char* const kSparkArrayFunction = "arr\xCF\x89";

const char* const kSparkPartitionStrategy = "s";

const char* const kGeneratorAliasList = "\xCF\x89";

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
    if (WordAt(sql, i, "array") && SkipSpaces(sql, i + 5) < sql.size() && sql[SkipSpaces(sql, i + 5)] == '(') {
      out.replace(i, 5, kSparkArrayFunction);
      return;
    }
    // PARTITIONED BY -> "PARTITION BY" + spaces + "s" (the strategy), the same length.
    if (WordAt(sql, i, "partitioned") && WordAt(sql, SkipSpaces(sql, i + 11), "by") && SkipSpaces(sql, i + 11) > i + 11) {
      const size_t span = SkipSpaces(sql, i + 11) + 2 - i;
      out.replace(i, span, "PARTITION BY" + std::string(span - 13, ' ') + kSparkPartitionStrategy);
      return;
    }
    // Spark's nested types ARRAY<...>, STRUCT<...>, MAP<...> (the word directly followed by '<'):
    // one placeholder type name of underscores; TypeFromSql reads the type from the user's text.
    for (const char* word : {"array", "struct", "map"}) {
      const size_t n = std::strlen(word);
      if (!WordAt(sql, i, word) || i + n >= sql.size() || sql[i + n] != '<') continue;
      int depth = 0;
      size_t end = i + n;
      for (; end < sql.size(); ++end) {
        depth += sql[end] == '<' ? 1 : sql[end] == '>' ? -1 : 0;
        if (depth == 0 || sql[end] == ';' || sql[end] == '\'' || sql[end] == '"') break;
      }
      if (end < sql.size() && depth == 0 && sql[end] == '>') out.replace(i, end + 1 - i, std::string(end + 1 - i, '_'));
      return;
    }
    // Spark's current_timestamp() / current_date(): the grammar knows only the keywords.
    for (const char* word : {"current_timestamp", "current_date"}) {
      const size_t open = SkipSpaces(sql, i + std::strlen(word));
      if (WordAt(sql, i, word) && open < sql.size() && sql[open] == '(') {
        const size_t close = SkipSpaces(sql, open + 1);
        if (close < sql.size() && sql[close] == ')') {
          out[open] = ' ';
          out[close] = ' ';
        }
        return;
      }
    }
    // A generator's alias list, `posexplode(a) AS (p, v)`: the space before AS becomes a comma and
    // AS the private function name, so the grammar reads one more select item `ω(p, v)`.
    if (WordAt(sql, i, "as") && i > 0 && std::isspace(static_cast<unsigned char>(sql[i - 1])) &&
        SkipSpaces(sql, i + 2) < sql.size() && sql[SkipSpaces(sql, i + 2)] == '(') {
      size_t close = i;
      while (close > 0 && std::isspace(static_cast<unsigned char>(sql[close - 1]))) --close;
      if (close == 0 || sql[close - 1] != ')') return;
      int depth = 0;
      size_t open = close - 1;
      for (;; --open) {  // the generator call's opening parenthesis
        depth += sql[open] == ')' ? 1 : sql[open] == '(' ? -1 : 0;
        if (depth == 0 || open == 0) break;
      }
      size_t word = open;
      while (word > 0 && IsWordChar(sql[word - 1])) --word;
      const std::string name = sql.substr(word, open - word);
      for (const char* generator : {"explode", "explode_outer", "posexplode", "posexplode_outer"}) {
        if (depth == 0 && WordAt(sql, word, generator) && name.size() == std::strlen(generator)) {
          out[i - 1] = ',';
          out.replace(i, 2, kGeneratorAliasList);
          return;
        }
      }
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

std::string RewriteSparkClauses(const std::string& sql) {
  std::string out = sql;
  ForEachCodeByte(sql, [&](size_t i) {
    if (WordAt(sql, i, "qualify")) {
      out.replace(i, 7, "HAVING ");
      return;
    }
    if (WordAt(sql, i, "describe")) {
      size_t before = i;
      while (before > 0 && std::isspace(static_cast<unsigned char>(sql[before - 1]))) --before;
      if (before > 0 && sql[before - 1] != ';') return;  // not at a statement's start
      out.replace(i, 8, "TABLE   ");
      const size_t table = SkipSpaces(sql, i + 8);
      if (WordAt(sql, table, "table")) out.replace(table, 5, "     ");
      return;
    }
    // DESC [TABLE] t (the grammar's TABLE is one byte longer than DESC): SHOW t, read back as
    // DESCRIBE by IsDescribeAt.
    if (WordAt(sql, i, "desc")) {
      size_t before = i;
      while (before > 0 && std::isspace(static_cast<unsigned char>(sql[before - 1]))) --before;
      if (before > 0 && sql[before - 1] != ';') return;  // ORDER BY x DESC
      out.replace(i, 4, "SHOW");
      const size_t table = SkipSpaces(sql, i + 4);
      if (WordAt(sql, table, "table")) out.replace(table, 5, "     ");
      return;
    }
    if (!WordAt(sql, i, "group")) return;
    const size_t by = SkipSpaces(sql, i + 5);
    if (!WordAt(sql, by, "by")) return;
    const size_t all = SkipSpaces(sql, by + 2);
    if (!WordAt(sql, all, "all")) return;
    // GROUP BY ALL x is PostgreSQL's set quantifier before a list; only a bare ALL is Spark's.
    const size_t next = SkipSpaces(sql, all + 3);
    bool ends = next >= sql.size() || sql[next] == ';' || sql[next] == ')';
    for (const char* word : {"having", "qualify", "order", "limit", "union", "except", "intersect", "window"}) {
      ends = ends || WordAt(sql, next, word);
    }
    if (ends) out.replace(all, 3, "() ");
  });
  return out;
}

bool IsQualifyClause(const std::string& sql, int begin, int pos) {
  bool qualify = false;
  ForEachCodeByte(sql, [&](size_t i) {
    if (static_cast<int>(i) < begin || static_cast<int>(i) >= pos) return;
    if (WordAt(sql, i, "qualify")) qualify = true;
    if (WordAt(sql, i, "having")) qualify = false;
  });
  return qualify;
}

bool IsDescribeAt(const std::string& sql, int at) {
  return at >= 0 && (WordAt(sql, static_cast<size_t>(at), "describe") || WordAt(sql, static_cast<size_t>(at), "desc"));
}

bool IsGroupByAllAt(const std::string& sql, int at) { return at >= 0 && WordAt(sql, static_cast<size_t>(at), "all"); }

namespace {

size_t SkipQuoted(const std::string& s, size_t i) {  // s[i] is a quote; returns one past its end
  const char quote = s[i];
  for (++i; i < s.size(); ++i) {
    if (s[i] != quote) continue;
    if (i + 1 < s.size() && s[i + 1] == quote) {
      ++i;
    } else {
      return i + 1;
    }
  }
  return s.size();
}

// The WATERMARK FOR clause whose word WATERMARK is at `at`: [comma, end) is what it spans.
struct WatermarkSpan {
  size_t comma = std::string::npos;
  size_t end = 0;
  FlinkWatermark clause;
};

std::optional<WatermarkSpan> WatermarkAt(const std::string& sql, size_t at) {
  if (!WordAt(sql, at, "watermark")) return std::nullopt;
  size_t i = SkipSpaces(sql, at + 9);
  if (!WordAt(sql, i, "for")) return std::nullopt;
  WatermarkSpan span;
  span.clause.location = static_cast<int>(at);
  size_t before = at;
  while (before > 0 && std::isspace(static_cast<unsigned char>(sql[before - 1]))) --before;
  if (before > 0 && sql[before - 1] == ',') span.comma = before - 1;
  // The clause ends at the column list's ')' or a ',' outside parentheses and quotes.
  size_t end = i;
  for (int depth = 0; end < sql.size(); ++end) {
    if (sql[end] == '\'' || sql[end] == '"') {
      end = SkipQuoted(sql, end) - 1;
    } else if (sql[end] == '(') {
      ++depth;
    } else if (sql[end] == ')' || sql[end] == ',') {
      if (depth == 0) break;
      if (sql[end] == ')') --depth;
    }
  }
  span.end = end;
  const char* form = "write WATERMARK FOR ts AS ts - INTERVAL '5' SECOND (or AS ts for no delay)";
  auto word = [&](size_t* p) {
    *p = SkipSpaces(sql, *p);
    size_t b = *p;
    if (*p < end && sql[*p] == '"') {
      *p = SkipQuoted(sql, *p);
      return sql.substr(b + 1, *p - b - 2);
    }
    while (*p < end && IsWordChar(sql[*p])) ++*p;
    return sql.substr(b, *p - b);
  };
  size_t p = i + 3;
  span.clause.column = word(&p);
  const std::string as = util::ToLower(word(&p));
  const std::string again = word(&p);
  if (span.clause.column.empty() || as != "as" || util::ToLower(again) != util::ToLower(span.clause.column)) {
    span.clause.error = std::string("unsupported WATERMARK FOR clause: ") + form;
    return span;
  }
  p = SkipSpaces(sql, p);
  if (p >= end) {
    span.clause.delay = "0 seconds";
    return span;
  }
  if (sql[p] != '-' || util::ToLower(word(&++p)) != "interval") {
    span.clause.error = std::string("unsupported WATERMARK FOR expression: ") + form;
    return span;
  }
  p = SkipSpaces(sql, p);
  if (p >= end || sql[p] != '\'') {
    span.clause.error = std::string("unsupported WATERMARK FOR interval: ") + form;
    return span;
  }
  const size_t close = SkipQuoted(sql, p);
  std::string amount = sql.substr(p + 1, close - p - 2);
  p = close;
  const std::string unit = util::ToLower(word(&p));
  if (SkipSpaces(sql, p) < end) {
    span.clause.error = std::string("unsupported WATERMARK FOR expression: ") + form;
    return span;
  }
  span.clause.delay = unit.empty() ? amount : amount + " " + unit;
  return span;
}

}  // namespace

std::string RewriteFlinkSpellings(const std::string& sql) {
  std::string out = sql;
  size_t skip_until = 0;
  ForEachCodeByte(sql, [&](size_t i) {
    if (i < skip_until) return;
    if (auto span = WatermarkAt(sql, i)) {
      const size_t from = span->comma == std::string::npos ? i : span->comma;
      for (size_t k = from; k < span->end; ++k) out[k] = ' ';
      skip_until = span->end;
      return;
    }
    // WITH ( 'key' = ..., ... ): quoted keys become "quoted" identifiers.
    if (!WordAt(sql, i, "with")) return;
    size_t open = SkipSpaces(sql, i + 4);
    if (open >= sql.size() || sql[open] != '(') return;
    for (size_t k = open + 1; k < sql.size() && sql[k] != ')';) {
      k = SkipSpaces(sql, k);
      if (k < sql.size() && sql[k] == '\'') {
        const size_t close = SkipQuoted(sql, k);
        const size_t eq = SkipSpaces(sql, close);
        if (eq < sql.size() && sql[eq] == '=' && sql.substr(k + 1, close - k - 2).find('"') == std::string::npos &&
            close - k >= 3) {
          out[k] = '"';
          out[close - 1] = '"';
        }
        k = close;
        continue;
      }
      // Past this option's value, to the next ',' or the closing ')'.
      while (k < sql.size() && sql[k] != ',' && sql[k] != ')') {
        k = sql[k] == '\'' || sql[k] == '"' ? SkipQuoted(sql, k) : k + 1;
      }
      if (k < sql.size() && sql[k] == ',') ++k;
    }
  });
  return out;
}

std::vector<FlinkWatermark> FindFlinkWatermarks(const std::string& sql) {
  std::vector<FlinkWatermark> out;
  size_t skip_until = 0;
  ForEachCodeByte(sql, [&](size_t i) {
    if (i < skip_until) return;
    if (auto span = WatermarkAt(sql, i)) {
      out.push_back(span->clause);
      skip_until = span->end;
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
