// FilterExec: keeps the rows where the predicate is true, batch by batch.
#include <arrow/api.h>

#include "exec/expr_eval.h"
#include "exec/physical_planner.h"

namespace sluice::exec {
namespace {

class FilterExec : public PhysicalOperator {
 public:
  FilterExec(plan::ExprPtr predicate, std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children)
      : PhysicalOperator(std::move(schema), std::move(children)), predicate_(std::move(predicate)) {}

  std::string Describe() const override {
    return "FilterExec " + predicate_->ToString() + " (Arrow compute filter; null counts as false)";
  }

  Status Push(ExecContext*, OperatorState*, int, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override {
    ARROW_ASSIGN_OR_RAISE(auto kept, FilterBatch(*predicate_, batch));
    if (kept->num_rows() == 0) return Status::OK();
    return out(std::move(kept));
  }

 private:
  plan::ExprPtr predicate_;
};

}  // namespace

Result<OperatorPtr> PlanFilterExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children, PlannerContext*) {
  return std::make_unique<FilterExec>(node.predicate, node.schema, std::move(*children));
}

}  // namespace sluice::exec
