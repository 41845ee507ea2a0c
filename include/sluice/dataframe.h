// DataFrames: a logical plan plus the session. Transformations return new DataFrames; an
// error (unknown column, type mismatch) is kept in the DataFrame and reported by status()
// and by the first action (collect, writeStream().start()).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sluice/column.h"
#include "sluice/status.h"
#include "sluice/streaming_query.h"
#include "sluice/trigger.h"

namespace arrow {
class Schema;
class Table;
}  // namespace arrow

namespace sluice {

namespace detail {
struct Access;  // the library's own access to the private parts below
}
class Session;
class DataStreamWriter;
class DataFrameWriter;
class GroupedData;

/// One sort key of DataFrame::orderBy: ascending (NULLs first) unless `ascending` is false
/// (then NULLs last), as Spark's asc / desc; `nulls_first` overrides where the NULLs go.
struct SortOrder {
  SortOrder(Column column, bool ascending = true) : column(std::move(column)), ascending(ascending) {}  // NOLINT
  Column column;
  bool ascending = true;
  std::optional<bool> nulls_first;
};

class DataFrame {
 public:
  /// OK, or the first error met while building this DataFrame.
  const Status& status() const { return status_; }
  bool ok() const { return status_.ok(); }
  /// True when it reads from a streaming source (then only writeStream() runs it).
  bool isStreaming() const;
  std::shared_ptr<arrow::Schema> schema() const;

  DataFrame select(std::vector<Column> columns) const;
  DataFrame select(const std::vector<std::string>& names) const;
  DataFrame filter(const Column& condition) const;
  DataFrame where(const Column& condition) const { return filter(condition); }
  /// Adds a column, or replaces the one with that name in place.
  DataFrame withColumn(const std::string& name, const Column& value) const;
  DataFrame withColumnRenamed(const std::string& existing, const std::string& name) const;
  DataFrame drop(const std::vector<std::string>& names) const;

  /// Groups by columns or expressions, at most one of them a window()/session_window();
  /// finish with agg(...) or count(). No columns = a global aggregate.
  GroupedData groupBy(std::vector<Column> columns) const;
  GroupedData groupBy(const std::vector<std::string>& names) const;
  /// Declares `event_time` (a timestamp column) as event time, `delay` ("10 seconds") as how
  /// late its rows may be. Stateful operators below it then drop rows older than the
  /// watermark (max event time seen - delay) and close windows the watermark passed.
  DataFrame withWatermark(const std::string& event_time, const std::string& delay) const;
  /// Keeps the first row of each distinct value of `columns` (all columns when empty). With a
  /// watermark, state is dropped once the event-time column (which must be one of `columns`)
  /// is older than the watermark; without one it grows with the number of distinct keys.
  DataFrame dropDuplicates(const std::vector<std::string>& columns = {}) const;
  /// dropDuplicates whose state of each key lives until the watermark passes the key's first
  /// event time + delay; `columns` need not include the event time. Needs withWatermark.
  DataFrame dropDuplicatesWithinWatermark(const std::vector<std::string>& columns = {}) const;
  /// UNION ALL (Spark's union/unionAll): the rows of this frame and of `other`, duplicates
  /// kept, columns matched by position (names from this frame; numbers widen, other types
  /// must be equal). Both
  /// streaming or both static; a streaming union reads every source into one checkpoint and
  /// its watermark is the minimum over the inputs'.
  DataFrame unionAll(const DataFrame& other) const;
  /// Orders the rows by the keys (stable). On a stream only after an aggregation, in complete
  /// mode (each micro-batch sorts its complete result), as in Spark.
  DataFrame orderBy(std::vector<SortOrder> keys) const;
  DataFrame sort(std::vector<SortOrder> keys) const { return orderBy(std::move(keys)); }
  /// The first `n` rows. On a stream only in complete mode.
  DataFrame limit(int64_t n) const;

  /// Joins with `other` on the columns named `on` (each output once, then the other columns of
  /// this side, then those of `other`), as Spark's join(other, usingColumns, joinType). `how`:
  /// inner, left (left_outer), right (right_outer), full (full_outer, outer), left_semi (semi),
  /// left_anti (anti). A stream may be joined with a static DataFrame (read()): inner with either
  /// side static; left outer, semi and anti with the stream on the left; right outer with the
  /// stream on the right; other combinations are refused with Spark's reason (docs/joins.md).
  DataFrame join(const DataFrame& other, const std::vector<std::string>& on, const std::string& how = "inner") const;
  DataFrame join(const DataFrame& other, const std::string& on, const std::string& how = "inner") const {
    return join(other, std::vector<std::string>{on}, how);
  }
  /// Joins on a boolean condition over this side's columns and `other`'s (which must not share a
  /// column name: rename one side first), e.g. col("user_id") == col("id"). All columns of
  /// both sides are kept (this side's only, for semi and anti joins).
  DataFrame join(const DataFrame& other, const Column& condition, const std::string& how = "inner") const;

  /// Batch DataFrames only: runs the plan over everything the sources hold now.
  Result<std::shared_ptr<arrow::Table>> collect() const;
  /// Streaming DataFrames only.
  DataStreamWriter writeStream() const;
  /// Batch DataFrames only: writes files once (no streaming log).
  DataFrameWriter write() const;

  /// The logical plan's text.
  std::string explain() const;

  const std::shared_ptr<Session>& session() const { return session_; }

 private:
  friend struct detail::Access;
  struct Impl;  // the logical plan
  DataFrame(std::shared_ptr<Session> session, std::shared_ptr<const Impl> impl, Status status);

  std::shared_ptr<Session> session_;
  std::shared_ptr<const Impl> impl_;  // null when status_ is an error
  Status status_;
};

/// df.groupBy(...): the grouping of an aggregation.
class GroupedData {
 public:
  GroupedData(DataFrame df, std::vector<Column> keys) : df_(std::move(df)), keys_(std::move(keys)) {}
  /// One result row per group: the grouping columns (window -> window_start, window_end), then
  /// the aggregates, e.g. agg({count(col("*")).alias("n"), sum(col("price"))}).
  DataFrame agg(std::vector<Column> aggregates) const;
  /// agg({count(col("*")).alias("count")}).
  DataFrame count() const;

 private:
  DataFrame df_;
  std::vector<Column> keys_;
};

/// df.writeStream(): format, output mode, options, trigger, then start().
class DataStreamWriter {
 public:
  explicit DataStreamWriter(DataFrame df);
  DataStreamWriter& format(const std::string& f);
  DataStreamWriter& outputMode(const std::string& mode);
  DataStreamWriter& option(const std::string& key, const std::string& value);
  /// Numbers and booleans are passed as Spark spells them ("true", "10", "0.5").
  DataStreamWriter& option(const std::string& key, int64_t value);
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  DataStreamWriter& option(const std::string& key, Int value) { return option(key, std::to_string(value)); }
  DataStreamWriter& option(const std::string& key, double value);
  DataStreamWriter& option(const std::string& key, bool value);
  DataStreamWriter& option(const std::string& key, const char* value) { return option(key, std::string(value)); }
  DataStreamWriter& options(const std::map<std::string, std::string>& kv);
  DataStreamWriter& trigger(Trigger t);
  DataStreamWriter& queryName(const std::string& name);
  /// Calls `fn(batch_rows, batch_id)` once per micro-batch. A redone batch calls it again with
  /// the same id and rows: write idempotently by batch id for exactly-once.
  DataStreamWriter& foreachBatch(std::function<Status(const std::shared_ptr<arrow::Table>&, int64_t)> fn);
  /// Validates everything (refusing with a message naming the option or checkpoint at fault),
  /// then starts the query on its own thread.
  Result<StreamingQuery> start();
  /// start() with option("path", path).
  Result<StreamingQuery> start(const std::string& path);
  /// Streams into the Iceberg table "catalog.ns.table" (or "ns.table" in the default catalog;
  /// see docs/iceberg.md), creating it from the query's schema when missing.
  Result<StreamingQuery> toTable(const std::string& table);

 private:
  friend struct detail::Access;
  struct State;  // what the calls above collected
  DataFrame df_;
  std::shared_ptr<State> state_;
};

/// df.write(): a one-off batch write of files.
class DataFrameWriter {
 public:
  explicit DataFrameWriter(DataFrame df);
  DataFrameWriter& format(const std::string& f);
  DataFrameWriter& option(const std::string& key, const std::string& value);
  /// Numbers and booleans are passed as Spark spells them ("true", "10", "0.5").
  DataFrameWriter& option(const std::string& key, int64_t value);
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  DataFrameWriter& option(const std::string& key, Int value) { return option(key, std::to_string(value)); }
  DataFrameWriter& option(const std::string& key, double value);
  DataFrameWriter& option(const std::string& key, bool value);
  DataFrameWriter& option(const std::string& key, const char* value) { return option(key, std::string(value)); }
  /// mode: "error" (default: refuse a non-empty directory), "overwrite", "append".
  DataFrameWriter& mode(const std::string& m);
  Status save(const std::string& path);

 private:
  DataFrame df_;
  std::string format_ = "parquet";
  std::string mode_ = "error";
  std::map<std::string, std::string> options_;
};

}  // namespace sluice
