// Runs a stateless logical plan over the rows its scans produced for one batch (or, in batch
// mode, over everything). Pure: the same inputs give the same output.
#pragma once

#include <arrow/table.h>

#include <vector>

#include "plan/logical_plan.h"

namespace sluice::exec {

/// `scan_inputs[i]` holds the rows of plan.Scans()[i]; each must have that scan's schema.
Result<std::shared_ptr<arrow::Table>> ExecutePlan(const plan::LogicalPlan& plan,
                                                  const std::vector<std::shared_ptr<arrow::Table>>& scan_inputs);

/// The physical operators ExecutePlan runs for `plan`, one per line, leaf last (explain).
std::string DescribePhysicalPlan(const plan::LogicalPlan& plan);

}  // namespace sluice::exec
