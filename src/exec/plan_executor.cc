#include "exec/plan_executor.h"

#include <arrow/api.h>

#include "exec/expr_eval.h"
#include "exec/stateful_ops.h"
#include "source/source_registry.h"

#include <algorithm>
#include <functional>
#include <thread>

namespace sluice::exec {
namespace {

using plan::LogicalPlan;

struct Runner {
  const LogicalPlan& root;
  const std::vector<std::shared_ptr<arrow::Table>>& inputs;
  ExecContext* ctx;
  std::vector<const LogicalPlan*> stateful;
  std::vector<const LogicalPlan*> watermarks;

  int IndexOf(const std::vector<const LogicalPlan*>& nodes, const LogicalPlan* node) const {
    auto it = std::find(nodes.begin(), nodes.end(), node);
    return static_cast<int>(it - nodes.begin());
  }

  // Applies a stateless node to every record batch of its input.
  static Result<std::shared_ptr<arrow::Table>> PerBatch(
      const LogicalPlan& node, const std::shared_ptr<arrow::Table>& input,
      const std::function<Result<std::shared_ptr<arrow::RecordBatch>>(std::shared_ptr<arrow::RecordBatch>)>& fn) {
    std::vector<std::shared_ptr<arrow::RecordBatch>> out;
    arrow::TableBatchReader reader(*input);
    std::shared_ptr<arrow::RecordBatch> batch;
    while (true) {
      ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
      if (!batch) break;
      ARROW_ASSIGN_OR_RAISE(auto result, fn(batch));
      if (result->num_rows() > 0) out.push_back(std::move(result));
    }
    return arrow::Table::FromRecordBatches(node.schema, out);
  }

  Status RecordEventTimes(const LogicalPlan& node, const arrow::Table& table) {
    auto column = table.GetColumnByName(node.event_time_column);
    if (!column) return Status::Invalid("withWatermark: column '", node.event_time_column, "' is missing");
    const auto& type = static_cast<const arrow::TimestampType&>(*column->type());
    int64_t to_ms_mul = 1, to_ms_div = 1;
    switch (type.unit()) {
      case arrow::TimeUnit::SECOND: to_ms_mul = 1000; break;
      case arrow::TimeUnit::MILLI: break;
      case arrow::TimeUnit::MICRO: to_ms_div = 1000; break;
      case arrow::TimeUnit::NANO: to_ms_div = 1000000; break;
    }
    EventTimeStats& stats = ctx->event_time[static_cast<size_t>(IndexOf(watermarks, &node))];
    for (const auto& chunk : column->chunks()) {
      const auto& a = static_cast<const arrow::TimestampArray&>(*chunk);
      for (int64_t i = 0; i < a.length(); ++i) {
        if (a.IsNull(i)) continue;
        int64_t v = a.Value(i);
        // Floor division, so that event times before 1970 round down like later ones.
        int64_t ms = to_ms_div == 1 ? v * to_ms_mul : (v >= 0 ? v / to_ms_div : -((-v + to_ms_div - 1) / to_ms_div));
        stats.max_ms = std::max(stats.max_ms, ms);
        stats.min_ms = std::min(stats.min_ms, ms);
        stats.sum_ms += static_cast<double>(ms);
        ++stats.count;
      }
    }
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::Table>> Run(const LogicalPlan& node) {
    switch (node.kind) {
      case LogicalPlan::Kind::kScan: {
        const auto scans = root.Scans();
        const size_t i = static_cast<size_t>(IndexOf(scans, &node));
        if (i >= inputs.size()) return Status::Invalid("plan has ", scans.size(), " scans but ", inputs.size(), " inputs were given");
        const auto& input = inputs[i];
        if (!input->schema()->Equals(*node.schema, /*check_metadata=*/false)) {
          return Status::Invalid("source produced schema ", input->schema()->ToString(), " but the plan expects ",
                                 node.schema->ToString());
        }
        return input;
      }
      case LogicalPlan::Kind::kFilter: {
        ARROW_ASSIGN_OR_RAISE(auto in, Run(*node.input));
        return PerBatch(node, in, [&](std::shared_ptr<arrow::RecordBatch> b) { return FilterBatch(*node.predicate, b); });
      }
      case LogicalPlan::Kind::kProject: {
        ARROW_ASSIGN_OR_RAISE(auto in, Run(*node.input));
        return PerBatch(node, in, [&](std::shared_ptr<arrow::RecordBatch> b) {
          return ProjectBatch(node.exprs, node.schema, b);
        });
      }
      case LogicalPlan::Kind::kWatermark: {
        ARROW_ASSIGN_OR_RAISE(auto in, Run(*node.input));
        ARROW_RETURN_NOT_OK(RecordEventTimes(node, *in));
        return in;
      }
      case LogicalPlan::Kind::kAggregate: {
        ARROW_ASSIGN_OR_RAISE(auto in, Run(*node.input));
        return RunAggregate(node, IndexOf(stateful, &node), in, ctx);
      }
      case LogicalPlan::Kind::kDeduplicate: {
        ARROW_ASSIGN_OR_RAISE(auto in, Run(*node.input));
        return RunDeduplicate(node, IndexOf(stateful, &node), in, ctx);
      }
    }
    return Status::Invalid("unknown plan node");
  }
};

}  // namespace

Result<std::shared_ptr<arrow::Table>> ExecutePlan(const plan::LogicalPlan& root,
                                                  const std::vector<std::shared_ptr<arrow::Table>>& scan_inputs,
                                                  ExecContext* ctx) {
  ExecContext batch_ctx;
  std::unique_ptr<StateStores> memory;
  if (!ctx) {
    memory = MakeMemoryStateStores(OperatorThreads(static_cast<int>(std::thread::hardware_concurrency())));
    batch_ctx.stores = memory.get();
    ctx = &batch_ctx;
  }
  Runner runner{root, scan_inputs, ctx, root.StatefulNodes(), root.WatermarkNodes()};
  if (!runner.stateful.empty() && !ctx->stores) return Status::Invalid("a stateful plan needs state stores");
  ctx->event_time.assign(runner.watermarks.size(), EventTimeStats{});
  ctx->operators.assign(runner.stateful.size(), OperatorProgress{});
  return runner.Run(root);
}

std::string DescribePhysicalPlan(const plan::LogicalPlan& root) {
  std::string out;
  int depth = 0;
  for (const plan::LogicalPlan* node = &root; node; node = node->input.get(), ++depth) {
    std::string line(static_cast<size_t>(depth) * 2, ' ');
    switch (node->kind) {
      case plan::LogicalPlan::Kind::kProject: {
        line += "ProjectExec [";
        for (size_t i = 0; i < node->exprs.size(); ++i) line += (i ? ", " : "") + node->exprs[i]->ToString();
        line += "] (Arrow compute kernels, per record batch)";
        break;
      }
      case plan::LogicalPlan::Kind::kFilter:
        line += "FilterExec " + node->predicate->ToString() + " (Arrow compute filter; null counts as false)";
        break;
      case plan::LogicalPlan::Kind::kWatermark:
        line += "EventTimeWatermarkExec " + node->event_time_column + ", delay " + node->delay_text +
                " (records max event time; the watermark applies from the next batch)";
        break;
      case plan::LogicalPlan::Kind::kAggregate: {
        std::string keys;
        for (size_t i = 0; i < node->group_exprs.size(); ++i) {
          keys += (i ? ", " : "");
          keys += node->window && node->window->group_index == static_cast<int>(i) ? node->window->ToString()
                                                                                   : node->group_exprs[i]->ToString();
        }
        line += std::string(node->window && node->window->kind == plan::WindowSpec::Kind::kSession
                                ? "SessionWindowStateStoreSaveExec"
                                : "StateStoreSaveExec") +
                " [" + keys + "] (hash aggregate per state partition; partials merged into the state store)";
        break;
      }
      case plan::LogicalPlan::Kind::kDeduplicate: {
        line += node->within_watermark ? "StreamingDeduplicateWithinWatermarkExec [" : "StreamingDeduplicateExec [";
        for (size_t i = 0; i < node->key_columns.size(); ++i) line += (i ? ", " : "") + node->key_columns[i];
        line += "] (keys kept in the state store)";
        break;
      }
      case plan::LogicalPlan::Kind::kScan: {
        const auto& src = *node->source;
        line += "ScanExec " + src.format + " " + src.Describe();
        const source::SourceKind* kind = source::FindSourceKind(src.format);
        if (src.streaming && kind && kind->file_format()) {
          line += " (reads the files of the batch's source-log entries, Arrow " + src.format + " reader)";
        } else if (src.streaming) {
          line += " (rows between the batch's recorded offsets)";
        } else {
          line += " (everything there now)";
        }
        break;
      }
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace sluice::exec
