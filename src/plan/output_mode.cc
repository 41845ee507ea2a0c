// Spark's output-mode rules (UnsupportedOperationChecker; docs/stateful.md "Output modes"), checked
// before any batch runs. Each refusal names the operator and the fix.
#include "plan/output_mode.h"

#include <arrow/api.h>

#include <cctype>

#include "plan/stream_join_eviction.h"

namespace sluice::plan {
namespace {

bool GroupsOnWatermark(const LogicalPlan& agg) {
  const auto marked = agg.input->WatermarkedColumns();
  for (size_t i = 0; i < agg.group_exprs.size(); ++i) {
    const Expr* g = agg.group_exprs[i].get();
    if (agg.window && agg.window->group_index == static_cast<int>(i)) g = agg.window->time.get();
    if (g->kind == Expr::Kind::kAlias && !g->args.empty()) g = g->args[0].get();
    if (g->kind == Expr::Kind::kColumn && marked.count(g->name)) return true;
  }
  return false;
}

std::string FirstLine(const LogicalPlan& node) {
  std::string text = node.ToString(0, false);
  return text.substr(0, text.find('\n'));
}

bool HasAggregateBelow(const LogicalPlan& node) {
  for (const LogicalPlan* n = node.input.get(); n; n = n->input.get()) {
    if (n->kind == LogicalPlan::Kind::kAggregate) return true;
  }
  return false;
}

// Spark's rules for sorts and limits on streams: a sort needs the complete result of an
// aggregation (complete mode); a limit is refused in update mode. Spark runs a limit in append
// mode with state (the first n rows over all batches); sluice refuses it
// (docs/spark-compatibility.md).
Status CheckSortAndLimit(const LogicalPlan& plan, OutputMode mode) {
  for (const LogicalPlan* n = &plan; n; n = n->input.get()) {
    if (n->kind == LogicalPlan::Kind::kSort && !(mode == OutputMode::kComplete && HasAggregateBelow(*n))) {
      return Status::Invalid("Sorting is not supported on streaming DataFrames/Datasets, unless it is on aggregated "
                             "DataFrame/Dataset in Complete output mode: ", FirstLine(*n), " (ORDER BY / orderBy) "
                             "in ", OutputModeName(mode), " output mode. Sort the sink's rows when you read them, "
                             "or aggregate and use outputMode(\"complete\").");
    }
    if (n->kind == LogicalPlan::Kind::kLimit && mode == OutputMode::kUpdate) {
      return Status::Invalid("Limits are not supported on streaming DataFrames/Datasets in Update output mode: ",
                             FirstLine(*n), " (LIMIT / limit()). Use outputMode(\"complete\").");
    }
    if (n->kind == LogicalPlan::Kind::kLimit && mode == OutputMode::kAppend) {
      return Status::NotImplemented("LIMIT / limit() in Append output mode is not supported: ", FirstLine(*n),
                                    " would have to keep the first rows over every micro-batch. Use "
                                    "outputMode(\"complete\") over an aggregation, or limit when reading the sink.");
    }
  }
  return Status::OK();
}

}  // namespace

Result<OutputMode> ParseOutputMode(std::string_view text) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (OutputMode mode : {OutputMode::kAppend, OutputMode::kUpdate, OutputMode::kComplete}) {
    if (lower == OutputModeName(mode)) return mode;
  }
  return Status::Invalid("Unknown output mode '", std::string(text), "'. Valid modes: append, complete, update");
}

const char* OutputModeName(OutputMode mode) {
  switch (mode) {
    case OutputMode::kAppend: return "append";
    case OutputMode::kUpdate: return "update";
    case OutputMode::kComplete: return "complete";
  }
  return "append";
}

Status CheckOutputMode(const LogicalPlan& plan, OutputMode mode) {
  if (plan.IsStreaming()) ARROW_RETURN_NOT_OK(CheckSortAndLimit(plan, mode));
  const auto stateful = plan.StatefulNodes();
  const LogicalPlan* first_agg = nullptr;
  for (const auto* node : stateful) {
    if (node->kind != LogicalPlan::Kind::kAggregate) continue;
    if (first_agg) {
      return Status::NotImplemented("Multiple streaming aggregations in one query are not supported: ",
                                    FirstLine(*node), " aggregates the result of ", FirstLine(*first_agg),
                                    ". Write the first aggregation to a sink and read it as a new stream.");
    }
    first_agg = node;
  }
  if (mode == OutputMode::kComplete && !first_agg) {
    return Status::Invalid(
        "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames. "
        "Use outputMode(\"append\") for a query without aggregation.");
  }
  bool after_agg = false;
  for (const auto* node : stateful) {
    if (IsStreamStreamJoin(*node)) {
      ARROW_RETURN_NOT_OK(CheckStreamStreamJoin(*node, mode == OutputMode::kComplete));
    }
    if (after_agg && mode != OutputMode::kAppend) {
      return Status::Invalid("Detected a stateful operator after a streaming aggregation in ", OutputModeName(mode),
                             " output mode: ", FirstLine(*node),
                             " would see rows the aggregation may still change (possible correctness issue). "
                             "Use outputMode(\"append\") or move the operator before the aggregation.");
    }
    if (node->kind == LogicalPlan::Kind::kDeduplicate && node->within_watermark &&
        node->input->WatermarkedColumns().empty()) {
      return Status::Invalid("dropDuplicatesWithinWatermark is not supported on streaming DataFrames without a "
                             "watermark: call withWatermark(eventTimeColumn, delay) before it (SQL: the source "
                             "options event_time and watermark)");
    }
    if (node->kind != LogicalPlan::Kind::kAggregate) continue;
    after_agg = true;
    const bool session = node->window && node->window->kind == WindowSpec::Kind::kSession;
    if (session && node->group_exprs.size() < 2) {
      return Status::Invalid("A session window needs at least one grouping column besides session_window(): ",
                             FirstLine(*node), ". Group by a key as well, e.g. groupBy(col(\"user\"), "
                             "session_window(...)).");
    }
    if (session && mode == OutputMode::kUpdate) {
      return Status::Invalid("Update output mode not supported for session window on streaming DataFrames: ",
                             FirstLine(*node), ". Use outputMode(\"append\") (sessions are emitted once the "
                             "watermark closes them) or outputMode(\"complete\").");
    }
    if (mode == OutputMode::kAppend && !GroupsOnWatermark(*node)) {
      return Status::Invalid(
          "Append output mode not supported when there are streaming aggregations on streaming DataFrames without "
          "watermark: ", FirstLine(*node), " does not group on a watermarked event-time column, so no result row "
          "is ever final. Add withWatermark(\"<time column>\", \"<delay>\") and group by window(<time column>, ...) "
          "(SQL: source options event_time and watermark, GROUP BY tumble/hop/session), or use "
          "outputMode(\"update\") or outputMode(\"complete\").");
    }
  }
  return Status::OK();
}

}  // namespace sluice::plan
