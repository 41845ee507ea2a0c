// Runs a stateless logical plan over the rows its scans produced for one batch (or, in batch
// mode, over everything). Pure: the same inputs give the same output.
#pragma once

#include <arrow/table.h>

#include <vector>

#include "exec/stateful.h"
#include "plan/logical_plan.h"

namespace sluice::exec {

/// `scan_inputs[i]` holds the rows of plan.Scans()[i]; each must have that scan's schema.
/// `ctx` carries the state and watermarks of a streaming micro-batch and receives event-time
/// and state-operator statistics; null = a batch query (in-memory state, every group emitted).
Result<std::shared_ptr<arrow::Table>> ExecutePlan(const plan::LogicalPlan& plan,
                                                  const std::vector<std::shared_ptr<arrow::Table>>& scan_inputs,
                                                  ExecContext* ctx = nullptr);

/// The physical operators ExecutePlan runs for `plan`, one per line, leaf last (explain).
std::string DescribePhysicalPlan(const plan::LogicalPlan& plan);

}  // namespace sluice::exec
