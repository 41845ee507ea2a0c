#include "exec/physical_operator.h"

#include <arrow/api.h>

namespace sluice::exec {

Status EmitTable(const arrow::Table& table, const BatchConsumer& out) {
  arrow::TableBatchReader reader(table);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) return Status::OK();
    ARROW_RETURN_NOT_OK(out(std::move(batch)));
  }
}

PhysicalOperator::PhysicalOperator(std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children)
    : schema_(std::move(schema)), children_(std::move(children)) {}

PhysicalOperator::~PhysicalOperator() = default;

Result<std::unique_ptr<OperatorState>> PhysicalOperator::MakeState(ExecContext*) const {
  return std::unique_ptr<OperatorState>();
}

Status PhysicalOperator::Push(ExecContext*, OperatorState*, int child_index, const std::shared_ptr<arrow::RecordBatch>&,
                              const BatchConsumer&) const {
  return Status::Invalid(Describe(), " takes no input, but was given a batch from input ", child_index);
}

Status PhysicalOperator::Finish(ExecContext*, OperatorState*, const BatchConsumer&) const { return Status::OK(); }

StatefulOperator::StatefulOperator(std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children,
                                   int operator_id)
    : PhysicalOperator(std::move(schema), std::move(children)), operator_id_(operator_id) {}

Status StatefulOperator::ReportProgress(ExecContext* ctx, OperatorProgress progress, bool count_store_rows) const {
  const int partitions = ctx->stores->num_partitions();
  progress.num_shuffle_partitions = partitions;
  progress.num_state_store_instances = partitions;
  for (int p = 0; p < partitions; ++p) {
    ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(operator_id_, p));
    const auto m = store->metrics();
    if (count_store_rows) {
      progress.num_rows_total += m.num_keys;
      progress.num_rows_updated += m.num_rows_updated;
      progress.num_rows_removed += m.num_rows_removed;
    }
    progress.memory_used_bytes += m.memory_used_bytes;
  }
  const auto slot = static_cast<size_t>(operator_id_);
  if (ctx->operators.size() <= slot) ctx->operators.resize(slot + 1);
  ctx->operators[slot] = std::move(progress);
  return Status::OK();
}

}  // namespace sluice::exec
