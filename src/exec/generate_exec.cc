// GenerateExec: explode / explode_outer / posexplode / posexplode_outer (plan/generate.h).
// Stateless: each input batch becomes one output batch, so it runs in every output mode and
// needs nothing in the checkpoint. The array is read through its offsets; the input columns
// and the elements are gathered with Take, so no value is copied one by one.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "exec/expr_eval.h"
#include "exec/physical_planner.h"

namespace sluice::exec {
namespace {

class GenerateExec : public PhysicalOperator {
 public:
  GenerateExec(plan::ExprPtr generator, std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children)
      : PhysicalOperator(std::move(schema), std::move(children)), generator_(std::move(generator)) {}

  std::string Describe() const override {
    return "GenerateExec " + generator_->ToString() + " (one row per array element; Arrow take, per record batch)";
  }

  Status Push(ExecContext*, OperatorState*, int, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override {
    const std::string& fn = generator_->name;
    const bool outer = fn == "explode_outer" || fn == "posexplode_outer";
    const bool with_position = fn == "posexplode" || fn == "posexplode_outer";
    ARROW_ASSIGN_OR_RAISE(auto array, EvaluateToArray(*generator_->args[0], *batch));
    const auto& list = static_cast<const arrow::ListArray&>(*array);
    arrow::Int64Builder rows, elements;
    arrow::Int32Builder positions;
    for (int64_t i = 0; i < list.length(); ++i) {
      const int64_t n = list.IsNull(i) ? 0 : list.value_length(i);
      if (n == 0 && outer) {
        ARROW_RETURN_NOT_OK(rows.Append(i));
        ARROW_RETURN_NOT_OK(elements.AppendNull());
        ARROW_RETURN_NOT_OK(positions.AppendNull());
      }
      for (int64_t k = 0; k < n; ++k) {
        ARROW_RETURN_NOT_OK(rows.Append(i));
        ARROW_RETURN_NOT_OK(elements.Append(list.value_offset(i) + k));
        ARROW_RETURN_NOT_OK(positions.Append(static_cast<int32_t>(k)));
      }
    }
    if (rows.length() == 0) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto row_indices, rows.Finish());
    ARROW_ASSIGN_OR_RAISE(auto element_indices, elements.Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, row_indices));
    std::vector<std::shared_ptr<arrow::Array>> columns = taken.record_batch()->columns();
    if (with_position) {
      ARROW_ASSIGN_OR_RAISE(auto pos, positions.Finish());
      columns.push_back(std::move(pos));
    }
    ARROW_ASSIGN_OR_RAISE(auto values, arrow::compute::Take(list.values(), element_indices));
    columns.push_back(values.make_array());
    const int64_t num_rows = row_indices->length();
    return out(arrow::RecordBatch::Make(schema(), num_rows, std::move(columns)));
  }

 private:
  plan::ExprPtr generator_;
};

}  // namespace

Result<OperatorPtr> PlanGenerateExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children, PlannerContext*) {
  return std::make_unique<GenerateExec>(node.generator, node.schema, std::move(*children));
}

}  // namespace sluice::exec
