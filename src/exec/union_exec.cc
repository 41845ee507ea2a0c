// UnionExec: UNION ALL of its two children. Stateless: each child's batches pass through as
// they arrive, relabelled with the union's schema (the first input's column names; columns
// are matched by position, their types were checked equal when the plan was built).
#include <arrow/api.h>

#include "exec/physical_planner.h"

namespace sluice::exec {
namespace {

class UnionExec : public PhysicalOperator {
 public:
  UnionExec(std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children)
      : PhysicalOperator(std::move(schema), std::move(children)) {}

  std::string Describe() const override {
    return "UnionExec (UNION ALL of " + std::to_string(children().size()) +
           " inputs: batches pass through, columns matched by position)";
  }

  Status Push(ExecContext*, OperatorState*, int, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override {
    if (batch->num_rows() == 0) return Status::OK();
    return out(arrow::RecordBatch::Make(schema(), batch->num_rows(), batch->columns()));
  }
};

}  // namespace

Result<OperatorPtr> PlanUnionExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children, PlannerContext*) {
  return std::make_unique<UnionExec>(node.schema, std::move(*children));
}

}  // namespace sluice::exec
