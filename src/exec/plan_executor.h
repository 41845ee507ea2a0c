// Runs a plan over the rows its scans produced for one batch (or, in batch mode, over
// everything): the planner's operators (physical_planner.h), driven batch by batch.
#pragma once

#include <arrow/table.h>

#include <string>
#include <vector>

#include "exec/physical_planner.h"
#include "exec/stateful.h"
#include "plan/logical_plan.h"

namespace sluice::exec {

/// Runs `plan` once. `scan_inputs[i]` holds the rows of scan i (LogicalPlan::Scans()[i]); each
/// must have that scan's schema. `ctx` carries the state stores and watermarks of a streaming
/// micro-batch and receives event-time and state-operator statistics; its stores must be set
/// when the plan has stateful operators.
Result<std::shared_ptr<arrow::Table>> ExecutePhysicalPlan(const PhysicalPlan& plan,
                                                          const std::vector<std::shared_ptr<arrow::Table>>& scan_inputs,
                                                          ExecContext* ctx);

/// Plans `plan` and runs it. `ctx` null = a batch query (in-memory state, every group emitted).
Result<std::shared_ptr<arrow::Table>> ExecutePlan(const plan::LogicalPlan& plan,
                                                  const std::vector<std::shared_ptr<arrow::Table>>& scan_inputs,
                                                  ExecContext* ctx = nullptr);

/// The operators ExecutePlan runs for `plan`, one per line, leaf last (explain); the planner's
/// error when it cannot plan.
std::string DescribePhysicalPlan(const plan::LogicalPlan& plan);

}  // namespace sluice::exec
