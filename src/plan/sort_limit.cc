// The Sort and Limit nodes (ORDER BY, LIMIT; DataFrame::orderBy, limit).
#include <arrow/api.h>

#include "plan/expr_resolve.h"
#include "plan/logical_plan.h"

namespace sluice::plan {

std::string SortKey::ToString() const {
  return expr->ToString() + (ascending ? " ASC" : " DESC") + (nulls_first ? " NULLS FIRST" : " NULLS LAST");
}

Result<PlanPtr> LogicalPlan::Sort(PlanPtr input, std::vector<SortKey> keys) {
  if (keys.empty()) return Status::Invalid("orderBy/ORDER BY needs at least one sort key");
  for (const auto& k : keys) {
    ARROW_ASSIGN_OR_RAISE(auto field, ResolveExpr(*k.expr, *input->schema));
    const auto& t = *field->type();
    if (!(IsNumericType(t) || IsStringType(t) || IsTemporalType(t) || t.id() == arrow::Type::BOOL ||
          t.id() == arrow::Type::NA)) {
      return Status::TypeError("ORDER BY ", k.expr->ToString(), ": cannot sort by a ", TypeName(t),
                               " value; sort keys must be numbers, text, booleans, dates or timestamps");
    }
  }
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kSort;
  node->schema = input->schema;
  node->input = std::move(input);
  node->sort_keys = std::move(keys);
  return PlanPtr(node);
}

Result<PlanPtr> LogicalPlan::Limit(PlanPtr input, int64_t n) {
  if (n < 0) return Status::Invalid("LIMIT/limit() must not be negative, got ", n);
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kLimit;
  node->schema = input->schema;
  node->input = std::move(input);
  node->limit = n;
  return PlanPtr(node);
}

}  // namespace sluice::plan
