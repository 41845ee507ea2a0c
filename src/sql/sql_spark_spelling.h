// Spark's spelling of event-time windows in a grammar that reserves `window` (PostgreSQL's):
// before libpg_query reads the text, `window(` becomes a private function name and
// `window.start` / `window.end` (also `session_window.start` / `.end`) become the columns
// window_start / window_end. Every rewrite keeps the text's length and byte offsets, so parse-
// tree locations and error carets still point into the text the user wrote. String literals,
// quoted identifiers and comments are left alone.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sluice::sql {

/// The function name `window(` is rewritten to; the SQL layer reads it as "window".
extern const char* const kSparkWindowFunction;

/// `sql` with Spark's window spellings replaced (same length).
std::string RewriteSparkWindowSpelling(const std::string& sql);

/// Spark's LEFT SEMI JOIN / LEFT ANTI JOIN (also SEMI JOIN, ANTI JOIN): the word SEMI or ANTI
/// becomes spaces, so the grammar reads a (LEFT) JOIN; SparkJoinWordBefore finds it again.
std::string RewriteSparkJoinSpelling(const std::string& sql);
/// "semi" or "anti" when the text just before the right-hand table starting at
/// `table_location` is `SEMI JOIN` / `ANTI JOIN`; nullopt otherwise.
std::optional<std::string> SparkJoinWordBefore(const std::string& sql, int table_location);

/// The function name Spark's `array(` is rewritten to (PostgreSQL reserves ARRAY for
/// ARRAY[...] and ARRAY(subquery)); the SQL layer reads it as "array".
extern const char* const kSparkArrayFunction;

/// `sql` with Spark's operators the PostgreSQL grammar lacks rewritten (same length): `array(`
/// becomes kSparkArrayFunction,
/// `current_timestamp()` / `current_date()` lose their empty parentheses (the keywords), a
/// generator's `AS (a, b)` becomes `, kGeneratorAliasList(a, b)`,
/// `try_cast(` becomes `    cast(` (the translator sees "try_" before the CAST in the user's
/// text), `x RLIKE p` / `x REGEXP p` become `x ~ p`, `NOT RLIKE` / `NOT REGEXP` become `!~`,
/// Spark's unquoted `INTERVAL 1 HOUR` becomes `INTERVAL'1'HOUR`, and CREATE TABLE's
/// `PARTITIONED BY (...)` (Spark's and Flink's clause) becomes PostgreSQL's `PARTITION BY s (...)`
/// with the strategy kSparkPartitionStrategy.
std::string RewriteSparkOperators(const std::string& sql);

/// `sql` with the clauses of Spark and Databricks SQL that the PostgreSQL grammar lacks
/// rewritten (same length): `QUALIFY` becomes `HAVING ` (IsQualifyClause tells them apart
/// again), and `GROUP BY ALL` that ends the clause becomes `GROUP BY () ` (an empty grouping
/// set; IsGroupByAllAt recognises it).
std::string RewriteSparkClauses(const std::string& sql);
/// Also `DESCRIBE [TABLE] t` at the start of a statement becomes `TABLE t`, and `DESC [TABLE] t`
/// becomes `SHOW t` (IsDescribeAt; the script reads that SHOW as `TABLE t`).
/// True when the statement starting at byte `at` of the user's text is DESCRIBE or DESC.
bool IsDescribeAt(const std::string& sql, int at);
/// True when the last HAVING or QUALIFY keyword in the user's text in [begin, pos) is QUALIFY.
bool IsQualifyClause(const std::string& sql, int begin, int pos);
/// True when the user's text has the word ALL at byte `at` (where the grammar saw `()`).
bool IsGroupByAllAt(const std::string& sql, int at);

/// Flink's spellings in CREATE TABLE, rewritten (same length): a quoted option key in WITH (...)
/// (`'connector' = 'filesystem'`) becomes a "quoted" identifier, and a `WATERMARK FOR ...`
/// clause of the column list becomes spaces (FindFlinkWatermarks reads it from the user's text).
std::string RewriteFlinkSpellings(const std::string& sql);

/// One `, WATERMARK FOR col AS col [- INTERVAL '5' SECOND]` of a CREATE TABLE column list.
struct FlinkWatermark {
  int location = -1;  // of the word WATERMARK
  std::string column;
  std::string delay;  // "5 second"; "0 seconds" for `AS col`
  std::string error;  // non-empty: the clause is not of that form (the message says why)
};
/// Every WATERMARK FOR clause of the user's text, in order.
std::vector<FlinkWatermark> FindFlinkWatermarks(const std::string& sql);

/// The function name a generator's alias list `AS (a, b)` is rewritten to (RewriteSparkOperators):
/// `posexplode(x) AS (p, v)` reads as the two select items `posexplode(x), ω(p, v)`.
extern const char* const kGeneratorAliasList;

/// The partition strategy `PARTITIONED BY` is read as; any other strategy was typed as
/// PostgreSQL's `PARTITION BY RANGE|LIST|HASH (...)`.
extern const char* const kSparkPartitionStrategy;

/// True when the CAST at byte `cast_at` of the user's text is spelled try_cast.
bool IsTryCastAt(const std::string& sql, int cast_at);

/// For a syntax error at byte `pos`: when an unquoted `window` (or `window_time`) word is at or
/// just before it, that word's offset and a message saying what to write instead.
std::optional<std::pair<int, std::string>> ExplainReservedWindow(const std::string& sql, int pos);

}  // namespace sluice::sql
