// SortExec: orders its whole input by the sort keys (ORDER BY, orderBy). It holds the run's
// batches back and emits them sorted in Finish. On a stream it only runs over the complete
// result of an aggregation (complete mode), so each micro-batch sorts that batch's full result.
//
// Order: Spark's. Keys compare in sequence, each ascending or descending with its NULLs first
// or last; the sort is stable, so rows equal on every key keep their input order.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "exec/expr_eval.h"
#include "exec/physical_planner.h"
#include "util/compute_init.h"

namespace sluice::exec {
namespace {

struct HeldBatches : OperatorState {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
};

class SortExec : public PhysicalOperator {
 public:
  SortExec(std::vector<plan::SortKey> keys, std::shared_ptr<arrow::Schema> key_schema,
           std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children)
      : PhysicalOperator(std::move(schema), std::move(children)),
        keys_(std::move(keys)),
        key_schema_(std::move(key_schema)) {
    for (const auto& k : keys_) key_exprs_.push_back(k.expr);
  }

  std::string Describe() const override {
    std::string line = "SortExec [";
    for (size_t i = 0; i < keys_.size(); ++i) line += (i ? ", " : "") + keys_[i].ToString();
    return line + "] (stable Arrow sort of the whole input, in Finish)";
  }

  Result<std::unique_ptr<OperatorState>> MakeState(ExecContext*) const override {
    return std::make_unique<HeldBatches>();
  }

  Status Push(ExecContext*, OperatorState* state, int, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer&) const override {
    if (batch->num_rows() > 0) static_cast<HeldBatches*>(state)->batches.push_back(batch);
    return Status::OK();
  }

  Status Finish(ExecContext*, OperatorState* state, const BatchConsumer& out) const override {
    auto& held = static_cast<HeldBatches*>(state)->batches;
    if (held.empty()) return Status::OK();
    ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(schema(), held));
    held.clear();
    ARROW_ASSIGN_OR_RAISE(auto batch, table->CombineChunksToBatch());
    table.reset();
    // The keys are evaluated into their own batch (columns k0, k1, ...) and sorted there.
    ARROW_ASSIGN_OR_RAISE(auto keys, ProjectBatch(key_exprs_, key_schema_, batch));
    std::vector<arrow::compute::SortKey> sort_keys;
    for (size_t i = 0; i < keys_.size(); ++i) {
      sort_keys.emplace_back(arrow::FieldRef(static_cast<int>(i)),
                             keys_[i].ascending ? arrow::compute::SortOrder::Ascending
                                                : arrow::compute::SortOrder::Descending,
                             keys_[i].nulls_first ? arrow::compute::NullPlacement::AtStart
                                                  : arrow::compute::NullPlacement::AtEnd);
    }
    ARROW_ASSIGN_OR_RAISE(auto indices,
                          arrow::compute::SortIndices(arrow::Datum(keys), arrow::compute::SortOptions(sort_keys)));
    ARROW_ASSIGN_OR_RAISE(auto sorted, arrow::compute::Take(arrow::Datum(batch), arrow::Datum(indices)));
    return out(sorted.record_batch());
  }

 private:
  std::vector<plan::SortKey> keys_;
  std::vector<plan::ExprPtr> key_exprs_;
  std::shared_ptr<arrow::Schema> key_schema_;
};

}  // namespace

Result<OperatorPtr> PlanSortExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children, PlannerContext*) {
  arrow::FieldVector fields;
  for (size_t i = 0; i < node.sort_keys.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto f, plan::ResolveExpr(*node.sort_keys[i].expr, *node.input->schema));
    fields.push_back(f->WithName("k" + std::to_string(i)));
  }
  return std::make_unique<SortExec>(node.sort_keys, arrow::schema(std::move(fields)), node.schema,
                                    std::move(*children));
}

}  // namespace sluice::exec
