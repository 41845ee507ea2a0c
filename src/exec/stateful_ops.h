// The stateful physical operators: streaming/batch aggregation (plain groups, tumbling and
// sliding windows, session windows) and deduplication. Each runs once per micro-batch over the
// rows its input produced, reading and updating the state of its operator id.
#pragma once

#include <arrow/table.h>

#include "exec/stateful.h"
#include "plan/logical_plan.h"

namespace sluice::exec {

/// Output: the rows of `node.schema` the output mode emits for this batch (every group for a
/// batch query or complete mode; changed groups for update; closed windows for append).
Result<std::shared_ptr<arrow::Table>> RunAggregate(const plan::LogicalPlan& node, int operator_id,
                                                   const std::shared_ptr<arrow::Table>& input, ExecContext* ctx);

/// Output: the input rows whose key was not seen before (nor earlier in this batch).
Result<std::shared_ptr<arrow::Table>> RunDeduplicate(const plan::LogicalPlan& node, int operator_id,
                                                     const std::shared_ptr<arrow::Table>& input, ExecContext* ctx);

/// Worker threads used per operator: min(partitions, hardware threads).
int OperatorThreads(int num_partitions);

}  // namespace sluice::exec
