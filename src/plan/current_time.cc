#include "plan/current_time.h"

#include <arrow/api.h>

#include "plan/expr_resolve.h"

namespace sluice::plan {
namespace {

bool IsCurrentTimeCall(const Expr& e) {
  return e.kind == Expr::Kind::kCall && (e.name == kCurrentTimestamp || e.name == kCurrentDate);
}

bool ExprUses(const ExprPtr& e) {
  if (!e) return false;
  if (IsCurrentTimeCall(*e)) return true;
  for (const auto& a : e->args) {
    if (ExprUses(a)) return true;
  }
  return false;
}

// Every expression a node holds, for reading; Rewrite below touches the same fields.
std::vector<ExprPtr> NodeExprs(const LogicalPlan& p) {
  std::vector<ExprPtr> out = p.exprs;
  out.push_back(p.predicate);
  out.insert(out.end(), p.group_exprs.begin(), p.group_exprs.end());
  for (const auto& a : p.aggs) {
    out.push_back(a.arg);
    out.push_back(a.ordering);
  }
  if (p.window) out.push_back(p.window->time);
  for (const auto& k : p.sort_keys) out.push_back(k.expr);
  out.push_back(p.generator);
  if (p.join) {
    out.push_back(p.join->condition);
    out.push_back(p.join->residual);
    out.insert(out.end(), p.join->left_keys.begin(), p.join->left_keys.end());
    out.insert(out.end(), p.join->right_keys.begin(), p.join->right_keys.end());
  }
  return out;
}

class Binder {
 public:
  explicit Binder(int64_t timestamp_ms)
      : timestamp_(std::make_shared<arrow::TimestampScalar>(timestamp_ms * 1000, DefaultTimestampType())),
        date_(std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(FloorDiv(timestamp_ms, 86400000)))) {}

  ExprPtr Bind(const ExprPtr& e) const {
    if (!ExprUses(e)) return e;
    if (IsCurrentTimeCall(*e)) return Expr::Literal(e->name == kCurrentTimestamp ? timestamp_ : date_);
    auto copy = std::make_shared<Expr>(*e);
    for (auto& a : copy->args) a = Bind(a);
    return copy;
  }

  void BindAll(std::vector<ExprPtr>* exprs) const {
    for (auto& e : *exprs) e = Bind(e);
  }

  PlanPtr Bind(const PlanPtr& plan) const {
    if (!plan || !UsesCurrentTime(*plan)) return plan;
    auto copy = std::make_shared<LogicalPlan>(*plan);
    copy->input = Bind(plan->input);
    copy->right = Bind(plan->right);
    BindAll(&copy->exprs);
    copy->predicate = Bind(copy->predicate);
    BindAll(&copy->group_exprs);
    for (auto& a : copy->aggs) {
      a.arg = Bind(a.arg);
      a.ordering = Bind(a.ordering);
    }
    if (copy->window) copy->window->time = Bind(copy->window->time);
    for (auto& k : copy->sort_keys) k.expr = Bind(k.expr);
    copy->generator = Bind(copy->generator);
    if (copy->join) {
      auto join = std::make_shared<JoinSpec>(*copy->join);
      join->condition = Bind(join->condition);
      join->residual = Bind(join->residual);
      BindAll(&join->left_keys);
      BindAll(&join->right_keys);
      copy->join = std::move(join);
    }
    return copy;
  }

 private:
  static int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

  std::shared_ptr<arrow::Scalar> timestamp_;
  std::shared_ptr<arrow::Scalar> date_;
};

}  // namespace

bool UsesCurrentTime(const LogicalPlan& plan) {
  for (const auto& e : NodeExprs(plan)) {
    if (ExprUses(e)) return true;
  }
  return (plan.input && UsesCurrentTime(*plan.input)) || (plan.right && UsesCurrentTime(*plan.right));
}

PlanPtr BindCurrentTime(const PlanPtr& plan, int64_t timestamp_ms) { return Binder(timestamp_ms).Bind(plan); }

}  // namespace sluice::plan
