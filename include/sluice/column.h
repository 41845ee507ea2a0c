// Column expressions, Spark-style: col("price") * 1.1, when(...).otherwise(...), upper(col("s")).
// A Column is an immutable value describing an expression; it is resolved against a schema
// when a DataFrame uses it (select, filter, withColumn), which reports unknown columns and
// type mismatches by name.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace arrow {
class DataType;
class Scalar;
}  // namespace arrow

namespace sluice {
namespace detail {
struct Access;  // the library's own access to the private parts below
}

class Column {
 public:

  /// Renames the result column.
  Column alias(const std::string& name) const;
  Column as(const std::string& name) const { return alias(name); }
  /// Casts to a type given by Spark/SQL name ("bigint", "double", "string", "timestamp",
  /// "date", "decimal(10,2)", ...) or by Arrow type.
  Column cast(const std::string& type_name) const;
  Column cast(std::shared_ptr<arrow::DataType> type) const;

  Column isNull() const;
  Column isNotNull() const;
  Column isin(std::vector<Column> values) const;
  /// SQL LIKE with % and _ wildcards.
  Column like(const std::string& pattern) const;
  /// The field `name` of a struct (SQL s.name); the element at 0-based `index` of an array (SQL a[i]).
  Column getField(const std::string& name) const;
  Column getItem(int index) const;
  /// CASE WHEN chaining: when(c1, v1).when(c2, v2).otherwise(v3).
  Column when(const Column& condition, const Column& value) const;
  Column otherwise(const Column& value) const;

  /// Canonical text of the expression, e.g. "(price * 1.1)".
  std::string toString() const;

 private:
  friend struct detail::Access;
  struct Impl;  // the expression
  explicit Column(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  std::shared_ptr<const Impl> impl_;
};

/// A reference to a column by name; "*" selects every column.
Column col(const std::string& name);
/// Literals.
Column lit(int64_t v);
Column lit(int v);
Column lit(double v);
Column lit(bool v);
Column lit(const std::string& v);
Column lit(const char* v);
/// A typed NULL literal.
Column litNull(const std::string& type_name);

// Arithmetic ("/" is always floating-point division, as in Spark), comparison and logic.
Column operator+(const Column& a, const Column& b);
Column operator-(const Column& a, const Column& b);
Column operator*(const Column& a, const Column& b);
Column operator/(const Column& a, const Column& b);
Column operator%(const Column& a, const Column& b);
Column operator-(const Column& a);
Column operator==(const Column& a, const Column& b);
Column operator!=(const Column& a, const Column& b);
Column operator<(const Column& a, const Column& b);
Column operator<=(const Column& a, const Column& b);
Column operator>(const Column& a, const Column& b);
Column operator>=(const Column& a, const Column& b);
Column operator&&(const Column& a, const Column& b);
Column operator||(const Column& a, const Column& b);
Column operator!(const Column& a);

Column coalesce(std::vector<Column> values);
/// Starts a CASE WHEN; continue with .when(...) and finish with .otherwise(...).
Column when(const Column& condition, const Column& value);

// Strings.
Column upper(const Column& c);
Column lower(const Column& c);
Column concat(std::vector<Column> values);
/// 1-based start, as in SQL.
Column substring(const Column& c, int64_t pos, int64_t len);
Column length(const Column& c);
Column trim(const Column& c);

// Time. Formats use Spark's pattern letters (yyyy-MM-dd HH:mm:ss); without a format the
// ISO-8601 forms are accepted.
Column to_timestamp(const Column& c);
Column to_timestamp(const Column& c, const std::string& format);
/// unit: year, quarter, month, week, day, hour, minute, second.
Column date_trunc(const std::string& unit, const Column& c);
Column year(const Column& c);
Column month(const Column& c);
Column dayofmonth(const Column& c);
Column hour(const Column& c);
Column minute(const Column& c);
Column second(const Column& c);
Column dayofweek(const Column& c);

// Aggregate functions, for groupBy(...).agg(...). count(col("*")) counts rows (named "count(1)").
Column count(const Column& c);
Column countDistinct(const Column& c);
Column sum(const Column& c);
Column avg(const Column& c);
Column min(const Column& c);
Column max(const Column& c);
/// The first / last value in arrival order (nulls included), as Spark's first()/last().
Column first(const Column& c);
Column last(const Column& c);
/// Spark's sum_distinct / avg over the distinct non-null values.
Column sum_distinct(const Column& c);
/// The value of `c` in the row with the largest / smallest `ord` (rows with a NULL ord skipped).
Column max_by(const Column& c, const Column& ord);
Column min_by(const Column& c, const Column& ord);
/// The non-null values as an array: every one in arrival order / the distinct ones.
Column collect_list(const Column& c);
Column collect_set(const Column& c);
/// HyperLogLog++ estimate of the number of distinct values; rsd: the relative standard deviation.
Column approx_count_distinct(const Column& c, double rsd = 0.05);
/// The value at `percentage` (0..1) of the sorted non-null values (docs/sql.md: exact in sluice).
Column percentile_approx(const Column& c, double percentage, int64_t accuracy = 10000);
/// Spark's percentile_approx(c, array(p1, p2, ...)): an array with the value at each percentage,
/// in the given order (NULL while there is no non-null value), e.g. {0.25, 0.5, 0.75}.
Column percentile_approx(const Column& c, const std::vector<double>& percentages, int64_t accuracy = 10000);

// Arrays and structs (Spark's complex types) and JSON.
/// array(a, b, ...) of the values' common type; struct_(a, b, ...) names fields after the columns
/// (Spark's struct(); `struct` is a C++ keyword); named_struct({lit("a"), x, lit("b"), y}).
Column array(std::vector<Column> values);
Column struct_(std::vector<Column> values);
Column named_struct(std::vector<Column> names_and_values);
/// element_at: 1-based, negative from the end. size: the number of elements.
Column element_at(const Column& array, int index);
Column size(const Column& array);
Column array_contains(const Column& array, const Column& value);
/// split(str, regex[, limit]) -> array<string>, Java's String.split rules.
Column split(const Column& str, const std::string& regex, int limit = -1);
/// Generators: one output row per array element, only as a whole item of select(); explode
/// drops rows whose array is NULL or empty, explode_outer keeps them with NULL; posexplode adds
/// the position column `pos` before the element column `col`.
Column explode(const Column& array);
Column explode_outer(const Column& array);
Column posexplode(const Column& array);
Column posexplode_outer(const Column& array);
/// from_json(str, "a INT, b STRING") -> struct (malformed text: every field NULL);
/// to_json(struct or array) -> string; get_json_object(str, "$.a.b[0]") -> string.
Column from_json(const Column& str, const std::string& schema_ddl);
Column to_json(const Column& value);
Column get_json_object(const Column& str, const std::string& path);

// Event-time windows, as grouping expressions of groupBy(). They contribute the columns
// window_start and window_end (timestamps) to the result. Durations: "10 minutes", "30 seconds".
/// Tumbling window (slide == duration) or, with a slide, sliding windows.
Column window(const Column& time, const std::string& duration);
Column window(const Column& time, const std::string& duration, const std::string& slide);
/// Session windows per key: a session closes after `gap` without events.
Column session_window(const Column& time, const std::string& gap);

}  // namespace sluice
