#include "runtime/scan_filter.h"

#include <arrow/api.h>

#include <set>

#include "exec/expr_eval.h"

namespace sluice::runtime {
namespace {

void Collect(const plan::Expr& e, std::set<std::string>* out) {
  if (e.kind == plan::Expr::Kind::kColumn) out->insert(e.name);
  for (const auto& a : e.args) {
    if (a) Collect(*a, out);
  }
}

}  // namespace

std::shared_ptr<const source::ScanFilter> MakeScanFilter(const plan::LogicalPlan& root, const plan::LogicalPlan& scan) {
  plan::ExprPtr predicate = plan::PushableScanFilter(root, scan);
  if (!predicate) return nullptr;
  auto filter = std::make_shared<source::ScanFilter>();
  filter->predicate = predicate;
  std::set<std::string> names;
  Collect(*predicate, &names);
  for (const auto& f : scan.schema->fields()) {
    if (names.count(f->name())) filter->columns.push_back(f->name());
  }
  filter->evaluate = [predicate](const std::shared_ptr<arrow::RecordBatch>& batch)
      -> Result<std::shared_ptr<arrow::Array>> {
    ARROW_ASSIGN_OR_RAISE(auto mask, exec::EvaluateToArray(*predicate, *batch));
    if (mask->type_id() != arrow::Type::BOOL) {
      return Status::TypeError("the pushed predicate ", predicate->ToString(), " gave ", mask->type()->ToString());
    }
    return mask;
  };
  return filter;
}

}  // namespace sluice::runtime
