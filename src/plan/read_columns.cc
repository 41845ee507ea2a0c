#include "plan/read_columns.h"

#include <arrow/type.h>

#include <set>

#include "plan/aggregate.h"
#include "plan/expr.h"

namespace sluice::plan {
namespace {

void CollectColumns(const Expr& e, std::set<std::string>* out) {
  if (e.kind == Expr::Kind::kColumn) out->insert(e.name);
  for (const auto& a : e.args) {
    if (a) CollectColumns(*a, out);
  }
}

}  // namespace

std::optional<std::vector<std::string>> ColumnsReadFromScan(const LogicalPlan& root, const LogicalPlan& scan) {
  // Top down: above the lowest projection only its outputs are read.
  std::set<std::string> names;
  bool projected = false;
  for (const LogicalPlan* node = &root; node != &scan; node = node->input.get()) {
    if (!node || node->right) return std::nullopt;
    switch (node->kind) {
      case LogicalPlan::Kind::kProject:
        names.clear();
        for (const auto& e : node->exprs) CollectColumns(*e, &names);
        projected = true;
        break;
      case LogicalPlan::Kind::kFilter:
        if (node->predicate) CollectColumns(*node->predicate, &names);
        break;
      case LogicalPlan::Kind::kWatermark:
        names.insert(node->event_time_column);
        break;
      case LogicalPlan::Kind::kAggregate:
        // Like a projection: above it only its outputs are read; it reads its grouping
        // expressions and the arguments of its aggregate calls.
        names.clear();
        for (const auto& e : node->group_exprs) CollectColumns(*e, &names);
        for (const auto& agg : node->aggs) {
          if (agg.arg) CollectColumns(*agg.arg, &names);
          if (agg.ordering) CollectColumns(*agg.ordering, &names);
        }
        if (node->window && node->window->time) CollectColumns(*node->window->time, &names);
        projected = true;
        break;
      default:
        return std::nullopt;
    }
  }
  if (!projected || !scan.schema) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& name : names) {
    if (scan.schema->GetFieldIndex(name) < 0) return std::nullopt;  // not one exact, unique column
  }
  for (const auto& f : scan.schema->fields()) {
    if (names.count(f->name())) out.push_back(f->name());
  }
  if (out.empty()) return std::nullopt;  // e.g. only literals: decoders still need a column to count rows
  return out;
}

}  // namespace sluice::plan
