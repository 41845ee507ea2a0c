// Logical plans as immutable values. The C++ DataFrame API (and later SQL) builds them; the
// runtime executes them once per micro-batch (streaming) or once over everything (batch).
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan/aggregate.h"
#include "plan/expr.h"
#include "plan/join.h"

namespace sluice::source {
class MemoryStreamData;
}

namespace sluice::plan {

/// Case-preserving option map; lookups are case-insensitive (Spark's option semantics).
class Options {
 public:
  void Set(const std::string& key, const std::string& value);
  std::optional<std::string> Get(const std::string& key) const;
  std::string GetOr(const std::string& key, const std::string& def) const;
  bool Has(const std::string& key) const { return Get(key).has_value(); }
  const std::map<std::string, std::pair<std::string, std::string>>& entries() const { return map_; }
  /// Returns an error naming the first option not in `valid` (case-insensitive), listing the
  /// valid ones; `what` describes the owner, e.g. "json file source".
  Status CheckKnown(const std::vector<std::string>& valid, const std::string& what) const;

 private:
  std::map<std::string, std::pair<std::string, std::string>> map_;  // lower(key) -> (key, value)
};

/// What a scan reads. For files: format + path + options (+ schema, required when streaming).
/// For the memory source: `memory` points at the shared MemoryStream buffer.
struct SourceSpec {
  std::string format;  // json | csv | parquet | text | memory
  std::string path;
  Options options;
  std::shared_ptr<arrow::Schema> schema;  // user-declared; may be null for batch reads
  bool streaming = false;
  /// Reads the files of a directory (json, csv, parquet, text), as the source's kind says.
  bool reads_files = false;
  std::shared_ptr<source::MemoryStreamData> memory;

  /// Stable description used in plan fingerprints and progress ("FileStreamSource[file:/in]").
  std::string Describe() const;
};

struct LogicalPlan;
using PlanPtr = std::shared_ptr<const LogicalPlan>;

/// One ORDER BY key. Spark's defaults: ascending puts NULLs first, descending last.
struct SortKey {
  ExprPtr expr;
  bool ascending = true;
  bool nulls_first = true;
  /// "n DESC NULLS LAST".
  std::string ToString() const;
};

struct LogicalPlan {
  /// kWatermark, kAggregate and kDeduplicate are the event-time and stateful nodes; kJoin
  /// and kUnion have two inputs (input = left, right).
  enum class Kind { kScan, kProject, kFilter, kWatermark, kAggregate, kDeduplicate, kSort, kLimit, kJoin, kUnion,
                    kGenerate };

  Kind kind;
  PlanPtr input;                          // null for kScan
  PlanPtr right;                          // kJoin, kUnion: the right input
  std::shared_ptr<const JoinSpec> join;   // kJoin (plan/join.h)
  std::vector<ExprPtr> exprs;             // kProject: output expressions (stars expanded)
  ExprPtr predicate;                      // kFilter
  std::shared_ptr<const SourceSpec> source;  // kScan
  std::shared_ptr<arrow::Schema> schema;  // output schema, resolved

  // kWatermark: rows pass unchanged; the column's max event time minus the delay becomes the
  // watermark (withWatermark).
  std::string event_time_column;
  int64_t delay_ms = 0;
  std::string delay_text;
  /// The declaration the watermark comes from. Nodes with the same id are one watermark, as
  /// Spark keys its watermarks by the withWatermark node: a DataFrame or SQL table used twice
  /// (a self-union) advances by the largest event time any use of it saw.
  std::string watermark_id;

  // kAggregate: output = grouping columns (a window contributes window_start, window_end) then
  // one column per aggregate call.
  std::vector<ExprPtr> group_exprs;
  std::vector<AggCall> aggs;
  std::optional<WindowSpec> window;

  // kDeduplicate: the key columns (all columns when the user named none).
  std::vector<std::string> key_columns;
  bool within_watermark = false;

  // kSort: the whole input ordered by the keys (stable: ties keep their input order).
  std::vector<SortKey> sort_keys;
  // kLimit: the first `limit` rows of the input.
  int64_t limit = 0;

  // kGenerate (plan/generate.h): output = the input columns, then generator_columns (pos for
  // posexplode, then the element), one row per element of the generator's array.
  ExprPtr generator{};
  std::vector<std::string> generator_columns{};

  bool IsStreaming() const;
  /// True for the nodes that keep state across micro-batches.
  bool IsStateful() const { return kind == Kind::kAggregate || kind == Kind::kDeduplicate; }
  /// The stateful nodes, bottom-up: operator id i is the i-th one (state/<i>/ in checkpoints).
  std::vector<const LogicalPlan*> StatefulNodes() const;
  /// The watermark nodes, bottom-up.
  std::vector<const LogicalPlan*> WatermarkNodes() const;
  /// The output columns that carry an event-time watermark: the withWatermark column while it
  /// passes through unchanged (also renamed), and window_start/window_end of a window over it.
  /// Maps column name -> the delay in ms of the watermark it carries.
  std::map<std::string, int64_t> WatermarkedColumns() const;
  /// Scan nodes in plan order, left input before right (source index i = position here).
  std::vector<const LogicalPlan*> Scans() const;
  /// Canonical multi-line text ("Project [...]\n  Filter (...)\n    Scan json ..."), used by
  /// explain and, hashed, by the checkpoint to recognise its query.
  /// Source options are left out when `with_options` is false (the checkpoint fingerprint,
  /// so changing a rate limit such as maxFilesPerTrigger between runs is allowed).
  std::string ToString(int indent = 0, bool with_options = true) const;

  static Result<PlanPtr> Scan(std::shared_ptr<const SourceSpec> source, std::shared_ptr<arrow::Schema> schema);
  static Result<PlanPtr> Project(PlanPtr input, std::vector<ExprPtr> exprs);
  static Result<PlanPtr> Filter(PlanPtr input, ExprPtr predicate);
  /// `event_time` must be a timestamp column of `input`; `delay` an interval ("10 seconds").
  /// `id`: see watermark_id; empty = a new declaration of its own.
  static Result<PlanPtr> Watermark(PlanPtr input, const std::string& event_time, const std::string& delay,
                                   std::string id = {});
  /// Grouping expressions (at most one window/session_window call) and aggregate calls, each a
  /// bare aggregate function call, optionally aliased. Most callers want PlanAggregation.
  static Result<PlanPtr> Aggregate(PlanPtr input, std::vector<ExprPtr> group_exprs, std::vector<ExprPtr> agg_exprs);
  /// `columns` empty = all columns. within_watermark: dropDuplicatesWithinWatermark.
  static Result<PlanPtr> Deduplicate(PlanPtr input, std::vector<std::string> columns, bool within_watermark);
  /// Keys must resolve against `input` to orderable types (numbers, text, booleans, dates,
  /// timestamps). On a stream only after an aggregation in complete mode (CheckOutputMode).
  static Result<PlanPtr> Sort(PlanPtr input, std::vector<SortKey> keys);
  /// `n` >= 0. On a stream only in complete mode (CheckOutputMode).
  static Result<PlanPtr> Limit(PlanPtr input, int64_t n);
  /// A join on column names (`using_columns`) or on `condition` (null: cross join); see
  /// plan/join.h for the output columns and the rules for streams. `max_build_bytes`: the
  /// limit on the static side's size (0 = none).
  /// `generator` is explode/explode_outer/posexplode/posexplode_outer of an array; `columns`
  /// names its output columns (see plan/generate.h, which most callers want).
  static Result<PlanPtr> Generate(PlanPtr input, ExprPtr generator, std::vector<std::string> columns);
  static Result<PlanPtr> Join(PlanPtr left, PlanPtr right, JoinType type, std::vector<std::string> using_columns,
                              ExprPtr condition, int64_t max_build_bytes);
  /// UNION ALL: every row of `left`, then every row of `right`, columns matched by position
  /// (names and order from `left`). Both inputs streaming or both static; the columns' types
  /// must be equal, except that numbers widen as in Spark (a narrower side gets a cast). A
  /// column is nullable when either side's is.
  static Result<PlanPtr> Union(PlanPtr left, PlanPtr right);
};

}  // namespace sluice::plan
