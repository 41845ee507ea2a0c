#include "exec/plan_executor.h"

#include <arrow/api.h>

#include "exec/expr_eval.h"

namespace sluice::exec {
namespace {

// Applies the chain of stateless nodes above a scan to one record batch.
Result<std::shared_ptr<arrow::RecordBatch>> ApplyNodes(const std::vector<const plan::LogicalPlan*>& nodes,
                                                       std::shared_ptr<arrow::RecordBatch> batch) {
  for (const auto* node : nodes) {
    switch (node->kind) {
      case plan::LogicalPlan::Kind::kFilter: {
        ARROW_ASSIGN_OR_RAISE(batch, FilterBatch(*node->predicate, batch));
        break;
      }
      case plan::LogicalPlan::Kind::kProject: {
        ARROW_ASSIGN_OR_RAISE(batch, ProjectBatch(node->exprs, node->schema, batch));
        break;
      }
      case plan::LogicalPlan::Kind::kScan:
        return Status::Invalid("unexpected scan above the leaf of a plan");
    }
  }
  return batch;
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ExecutePlan(const plan::LogicalPlan& root,
                                                  const std::vector<std::shared_ptr<arrow::Table>>& scan_inputs) {
  // Plans are linear for now: a scan at the bottom, stateless nodes above it.
  std::vector<const plan::LogicalPlan*> nodes;
  const plan::LogicalPlan* node = &root;
  while (node->kind != plan::LogicalPlan::Kind::kScan) {
    nodes.push_back(node);
    node = node->input.get();
  }
  std::reverse(nodes.begin(), nodes.end());
  if (scan_inputs.size() != 1) return Status::Invalid("plan has 1 scan but ", scan_inputs.size(), " inputs were given");
  const auto& input = scan_inputs[0];
  if (!input->schema()->Equals(*node->schema, /*check_metadata=*/false)) {
    return Status::Invalid("source produced schema ", input->schema()->ToString(), " but the plan expects ",
                           node->schema->ToString());
  }
  std::vector<std::shared_ptr<arrow::RecordBatch>> out;
  arrow::TableBatchReader reader(*input);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) break;
    ARROW_ASSIGN_OR_RAISE(auto result, ApplyNodes(nodes, batch));
    if (result->num_rows() > 0) out.push_back(std::move(result));
  }
  return arrow::Table::FromRecordBatches(root.schema, out);
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
      case plan::LogicalPlan::Kind::kScan: {
        const auto& src = *node->source;
        line += "ScanExec " + src.format + " " + src.Describe();
        if (src.streaming && (src.format == "json" || src.format == "csv" || src.format == "parquet" ||
                              src.format == "text")) {
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
