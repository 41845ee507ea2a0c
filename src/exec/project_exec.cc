// ProjectExec: evaluates the output expressions over each batch.
#include <arrow/api.h>

#include "exec/expr_eval.h"
#include "exec/physical_planner.h"

namespace sluice::exec {
namespace {

class ProjectExec : public PhysicalOperator {
 public:
  ProjectExec(std::vector<plan::ExprPtr> exprs, std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children)
      : PhysicalOperator(std::move(schema), std::move(children)), exprs_(std::move(exprs)) {}

  std::string Describe() const override {
    std::string line = "ProjectExec [";
    for (size_t i = 0; i < exprs_.size(); ++i) line += (i ? ", " : "") + exprs_[i]->ToString();
    return line + "] (Arrow compute kernels, per record batch)";
  }

  Status Push(ExecContext*, OperatorState*, int, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override {
    ARROW_ASSIGN_OR_RAISE(auto projected, ProjectBatch(exprs_, schema(), batch));
    if (projected->num_rows() == 0) return Status::OK();
    return out(std::move(projected));
  }

 private:
  std::vector<plan::ExprPtr> exprs_;
};

}  // namespace

Result<OperatorPtr> PlanProjectExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children, PlannerContext*) {
  return std::make_unique<ProjectExec>(node.exprs, node.schema, std::move(*children));
}

}  // namespace sluice::exec
