#include "exec/physical_planner.h"

#include <functional>

#include "exec/watermark_exec.h"

namespace sluice::exec {
namespace {

struct Registration {
  plan::LogicalPlan::Kind kind;
  OperatorFactory factory;
};

constexpr Registration kOperators[] = {
#define SLUICE_PHYSICAL_OPERATOR(kind, factory) {plan::LogicalPlan::Kind::kind, &factory},
#include "exec/operators.def"
#undef SLUICE_PHYSICAL_OPERATOR
};

Result<OperatorPtr> Plan(const plan::LogicalPlan& node, PlannerContext* ctx) {
  std::vector<OperatorPtr> children;
  if (node.input) {
    ARROW_ASSIGN_OR_RAISE(auto child, Plan(*node.input, ctx));
    children.push_back(std::move(child));
  }
  if (node.right) {  // a join: children = {left, right}
    ARROW_ASSIGN_OR_RAISE(auto child, Plan(*node.right, ctx));
    children.push_back(std::move(child));
  }
  for (const auto& reg : kOperators) {
    if (reg.kind != node.kind) continue;
    ARROW_ASSIGN_OR_RAISE(auto op, reg.factory(node, &children, ctx));
    if (op) return op;
  }
  std::string text = node.ToString(0, false);
  return Status::NotImplemented("no physical operator implements ", text.substr(0, text.find('\n')));
}

void Explain(const PhysicalOperator& op, int depth, std::string* out) {
  *out += std::string(static_cast<size_t>(depth) * 2, ' ') + op.Describe() + "\n";
  for (const auto& child : op.children()) Explain(*child, depth + 1, out);
}

}  // namespace

PhysicalPlan::PhysicalPlan(OperatorPtr root) : root_(std::move(root)) {
  std::function<void(const PhysicalOperator&)> index = [&](const PhysicalOperator& op) {
    for (const auto& child : op.children()) index(*child);
    if (auto* s = dynamic_cast<const StatefulOperator*>(&op)) {
      if (stateful_.size() <= static_cast<size_t>(s->operator_id())) stateful_.resize(static_cast<size_t>(s->operator_id()) + 1);
      stateful_[static_cast<size_t>(s->operator_id())] = s;
    }
    if (auto* w = dynamic_cast<const EventTimeWatermarkExec*>(&op)) {
      if (watermarks_.size() <= static_cast<size_t>(w->watermark_index())) {
        watermarks_.resize(static_cast<size_t>(w->watermark_index()) + 1);
      }
      watermarks_[static_cast<size_t>(w->watermark_index())] = w;
    }
  };
  index(*root_);
}

std::string PhysicalPlan::Explain() const {
  std::string out;
  exec::Explain(*root_, 0, &out);
  return out;
}

Result<std::unique_ptr<const PhysicalPlan>> PlanPhysical(const plan::LogicalPlan& plan) {
  PlannerContext ctx;
  ARROW_ASSIGN_OR_RAISE(auto root, Plan(plan, &ctx));
  return std::make_unique<const PhysicalPlan>(std::move(root));
}

}  // namespace sluice::exec
