// The planner: logical plan -> tree of physical operators (physical_operator.h). Which operator
// implements which logical node is decided by the registration table operators.def and by the
// operators' own factories; the planner only walks the plan.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exec/physical_operator.h"
#include "plan/logical_plan.h"

namespace sluice::exec {

class EventTimeWatermarkExec;

/// Numbering handed out while planning, bottom-up (inputs are planned before their parent).
struct PlannerContext {
  int next_scan_index = 0;       // ScanExec i reads the run's scan input i (= LogicalPlan::Scans())
  int next_stateful_id = 0;      // state/<id>/ of stateful operator id (= LogicalPlan::StatefulNodes())
  int next_watermark_index = 0;  // ExecContext::event_time slot (= LogicalPlan::WatermarkNodes())
};

/// Builds the operator for `node`, taking its already planned inputs from `children`, or
/// returns null, leaving `children` and `ctx` untouched, when this factory does not implement
/// `node` (the next one registered for the kind is asked).
using OperatorFactory = Result<OperatorPtr> (*)(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children,
                                               PlannerContext* ctx);

#define SLUICE_PHYSICAL_OPERATOR(kind, factory) \
  Result<OperatorPtr> factory(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children, PlannerContext* ctx);
#include "exec/operators.def"
#undef SLUICE_PHYSICAL_OPERATOR

/// A planned query: the operator tree plus indexes of its stateful and watermark operators.
/// Immutable; one plan serves every micro-batch of a query.
class PhysicalPlan {
 public:
  explicit PhysicalPlan(OperatorPtr root);

  const PhysicalOperator& root() const { return *root_; }
  /// By operator id.
  const std::vector<const StatefulOperator*>& stateful() const { return stateful_; }
  /// By watermark index.
  const std::vector<const EventTimeWatermarkExec*>& watermarks() const { return watermarks_; }

  /// What `explain` prints: each operator's Describe(), one per line, its inputs below it,
  /// indented two spaces per level.
  std::string Explain() const;

 private:
  OperatorPtr root_;
  std::vector<const StatefulOperator*> stateful_;
  std::vector<const EventTimeWatermarkExec*> watermarks_;
};

Result<std::unique_ptr<const PhysicalPlan>> PlanPhysical(const plan::LogicalPlan& plan);

}  // namespace sluice::exec
