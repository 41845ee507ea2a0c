// Aggregations in logical plans: aggregate function calls, event-time windows and the rewrite
// that turns "SELECT <exprs over groups and aggregates> ... GROUP BY ... HAVING ..." (or the C++
// groupBy(...).agg(...)) into Aggregate [+ Filter] [+ Project] nodes. SQL and the C++ API both
// go through PlanAggregation, so they build the same plan.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/expr.h"

namespace sluice::plan {

struct LogicalPlan;
using PlanPtr = std::shared_ptr<const LogicalPlan>;

/// Aggregate functions (kCall names): count, count_distinct, sum, avg, min, max, first, last,
/// count_if, bool_and, bool_or, any_value (resolved to count/min/max/first), stddev/variance
/// (resolved to stddev_samp/var_samp), stddev_samp, stddev_pop, var_samp, var_pop, sum_distinct,
/// avg_distinct, max_by(x, ord), min_by(x, ord), collect_list, collect_set,
/// approx_count_distinct(x[, rsd]), percentile_approx(x, percentage | array(percentage, ...)[, accuracy]).
bool IsAggregateFunction(const std::string& fn);
/// Window functions usable only as grouping expressions: window, session_window.
bool IsWindowFunction(const std::string& fn);
/// True when `e` or any sub-expression calls an aggregate function.
bool ContainsAggregate(const Expr& e);

/// One aggregate computed by an Aggregate node.
struct AggCall {
  std::string fn;                             // count | count_distinct | sum | avg | min | max | first | last |
                                              // stddev_samp | stddev_pop | var_samp | var_pop | sum_distinct |
                                              // avg_distinct | max_by | min_by | collect_list | collect_set |
                                              // approx_count_distinct | percentile_approx
  ExprPtr arg;                                // the argument; a literal 1 for count(*)
  ExprPtr ordering{};                         // max_by/min_by: the ordering argument (else null)
  std::shared_ptr<arrow::DataType> ordering_type{};
  int hll_precision{};                        // approx_count_distinct: register index bits, from rsd as Spark
  std::vector<double> percentages{};          // percentile_approx: each in [0, 1], in the call's order
  bool percentage_array = false;              // percentile_approx: given as an array, so the result is one
  int64_t accuracy{};                         // percentile_approx: 1 / relative error (validated, see docs)
  std::string name;                           // output column name
  std::shared_ptr<arrow::DataType> arg_type;  // resolved against the aggregate's input
  std::shared_ptr<arrow::DataType> out_type;
  bool nullable = true;
  /// spark.sql.ansi.enabled of the call: under kAnsi a BIGINT sum that overflows, or a decimal
  /// sum/avg that does not fit its type, fails the query; kLegacy wraps / gives NULL.
  EvalMode mode = EvalMode::kAnsi;

  /// "count(1)", "sum(x)", "count(DISTINCT x)".
  std::string ToString() const;
};

/// The event-time window of a grouping, if any. Times in microseconds.
struct WindowSpec {
  enum class Kind { kTumbling, kSliding, kSession };
  Kind kind = Kind::kTumbling;
  ExprPtr time;          // the event-time expression (timestamp-typed)
  int64_t size_us = 0;   // tumbling/sliding: window length; session: the gap
  int64_t slide_us = 0;  // sliding: the slide (== size for tumbling)
  int group_index = 0;   // position among the grouping expressions
  std::string ToString() const;
};

/// Parses an interval such as "10 minutes", "10 seconds", "1 hour", "500 ms" or "interval 10 minutes"
/// into milliseconds; `what` names the argument in errors.
Result<int64_t> ParseIntervalMs(const std::string& what, const std::string& text);

/// Builds the plan of an aggregation over `input`:
///   Aggregate(group_exprs; aggregate calls found in select_exprs and having)
///   -> Filter(having, if given) -> Project(select_exprs, unless it is exactly the Aggregate's output).
/// select_exprs may use grouping expressions (by equal text or by their output column name),
/// window_start / window_end when a window is grouped on, and aggregate calls. Errors name the
/// column that is neither grouped nor aggregated.
Result<PlanPtr> PlanAggregation(PlanPtr input, const std::vector<ExprPtr>& group_exprs,
                                const std::vector<ExprPtr>& select_exprs, ExprPtr having = nullptr);

}  // namespace sluice::plan
