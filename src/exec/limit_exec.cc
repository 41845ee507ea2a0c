// LimitExec: passes on the first `limit` rows of its input and drops the rest (LIMIT, limit()).
// Counts per run: on a stream (complete mode only) each micro-batch limits that batch's
// complete result.
#include <arrow/api.h>

#include "exec/physical_planner.h"

namespace sluice::exec {
namespace {

struct RowsPassed : OperatorState {
  int64_t rows = 0;
};

class LimitExec : public PhysicalOperator {
 public:
  LimitExec(int64_t limit, std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children)
      : PhysicalOperator(std::move(schema), std::move(children)), limit_(limit) {}

  std::string Describe() const override {
    return "LimitExec " + std::to_string(limit_) + " (first rows in input order, per run)";
  }

  Result<std::unique_ptr<OperatorState>> MakeState(ExecContext*) const override {
    return std::make_unique<RowsPassed>();
  }

  Status Push(ExecContext*, OperatorState* state, int, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override {
    int64_t& passed = static_cast<RowsPassed*>(state)->rows;
    const int64_t take = std::min(batch->num_rows(), limit_ - passed);
    if (take <= 0) return Status::OK();
    passed += take;
    return out(take == batch->num_rows() ? batch : batch->Slice(0, take));
  }

 private:
  int64_t limit_;
};

}  // namespace

Result<OperatorPtr> PlanLimitExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children, PlannerContext*) {
  return std::make_unique<LimitExec>(node.limit, node.schema, std::move(*children));
}

}  // namespace sluice::exec
