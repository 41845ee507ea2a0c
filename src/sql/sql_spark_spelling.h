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

/// `sql` with Spark's operators the PostgreSQL grammar lacks rewritten (same length):
/// `try_cast(` becomes `    cast(` (the translator sees "try_" before the CAST in the user's
/// text), `x RLIKE p` / `x REGEXP p` become `x ~ p`, `NOT RLIKE` / `NOT REGEXP` become `!~`,
/// Spark's unquoted `INTERVAL 1 HOUR` becomes `INTERVAL'1'HOUR`, and CREATE TABLE's
/// `PARTITIONED BY (...)` (Spark's and Flink's clause) becomes PostgreSQL's `PARTITION BY s (...)`
/// with the strategy kSparkPartitionStrategy.
std::string RewriteSparkOperators(const std::string& sql);

/// The partition strategy `PARTITIONED BY` is read as; any other strategy was typed as
/// PostgreSQL's `PARTITION BY RANGE|LIST|HASH (...)`.
extern const char* const kSparkPartitionStrategy;

/// True when the CAST at byte `cast_at` of the user's text is spelled try_cast.
bool IsTryCastAt(const std::string& sql, int cast_at);

/// For a syntax error at byte `pos`: when an unquoted `window` (or `window_time`) word is at or
/// just before it, that word's offset and a message saying what to write instead.
std::optional<std::pair<int, std::string>> ExplainReservedWindow(const std::string& sql, int pos);

}  // namespace sluice::sql
