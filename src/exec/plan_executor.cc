#include "exec/plan_executor.h"

#include <arrow/api.h>

#include <thread>

#include "exec/stateful_util.h"
#include "util/thread_pools.h"

namespace sluice::exec {
namespace {

// Runs `op` and its inputs: every input batch is pushed into `op` as it is produced, `op`'s own
// output goes to `out`. Inputs run in order; `op` finishes after the last of them.
Status Drive(const PhysicalOperator& op, ExecContext* ctx, const BatchConsumer& out) {
  ctx->operators_run.push_back(&op);
  ARROW_ASSIGN_OR_RAISE(auto state, op.MakeState(ctx));
  for (size_t i = 0; i < op.children().size(); ++i) {
    const int child = static_cast<int>(i);
    ARROW_RETURN_NOT_OK(Drive(*op.children()[i], ctx, [&](std::shared_ptr<arrow::RecordBatch> batch) {
      return op.Push(ctx, state.get(), child, batch, out);
    }));
  }
  return op.Finish(ctx, state.get(), out);
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ExecutePhysicalPlan(const PhysicalPlan& plan,
                                                          const std::vector<std::shared_ptr<arrow::Table>>& scan_inputs,
                                                          ExecContext* ctx) {
  if (!plan.stateful().empty() && !ctx->stores) return Status::Invalid("a stateful plan needs state stores");
  // Here, on the thread that runs the query, not when a session is made: the pool threads this
  // may start then inherit the thread's signal mask (the CLI blocks SIGINT/SIGTERM before its
  // queries start; a pool thread started earlier would take them with the default action).
  util::WaitForPoolAtExit(nullptr);
  ctx->scan_inputs = &scan_inputs;
  ctx->event_time.assign(plan.watermarks().size(), EventTimeStats{});
  ctx->operators.assign(plan.stateful().size(), OperatorProgress{});
  ctx->operators_run.clear();
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  Status st = Drive(plan.root(), ctx, [&](std::shared_ptr<arrow::RecordBatch> batch) {
    batches.push_back(std::move(batch));
    return Status::OK();
  });
  ctx->scan_inputs = nullptr;
  ARROW_RETURN_NOT_OK(st);
  return arrow::Table::FromRecordBatches(plan.root().schema(), batches);
}

Result<std::shared_ptr<arrow::Table>> ExecutePlan(const plan::LogicalPlan& plan,
                                                  const std::vector<std::shared_ptr<arrow::Table>>& scan_inputs,
                                                  ExecContext* ctx) {
  ARROW_ASSIGN_OR_RAISE(auto physical, PlanPhysical(plan));
  if (ctx) return ExecutePhysicalPlan(*physical, scan_inputs, ctx);
  ExecContext batch_ctx;
  auto memory = MakeMemoryStateStores(OperatorThreads(static_cast<int>(std::thread::hardware_concurrency())));
  batch_ctx.stores = memory.get();
  return ExecutePhysicalPlan(*physical, scan_inputs, &batch_ctx);
}

std::string DescribePhysicalPlan(const plan::LogicalPlan& plan) {
  auto physical = PlanPhysical(plan);
  if (!physical.ok()) return "error: " + physical.status().ToString() + "\n";
  return (*physical)->Explain();
}

}  // namespace sluice::exec
