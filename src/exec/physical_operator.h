// The physical operator interface (DuckDB's PhysicalOperator is the model): one class per
// operator, one operator per file, built from the logical plan by the planner
// (physical_planner.h) and run by the executor (plan_executor.h).
//
// Data flows as arrow::RecordBatch pushes, bottom-up: a leaf produces batches, each operator
// consumes its children's batches one at a time (Push) and hands its own output to its parent;
// an operator that can only answer once it has seen every row (an aggregation) holds its input
// back and emits in Finish. A stateless chain (scan -> filter -> project) therefore runs batch
// by batch without materialising whole tables.
//
// Ownership and mutability: an operator is immutable after planning (every method is const) and
// may be shared by several runs. What changes while a micro-batch runs lives in the
// OperatorState the operator creates for that run and in the ExecContext (state stores,
// watermarks, statistics); the state of stateful operators across batches lives only in the
// state store, which is what the checkpoint saves.
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "exec/stateful.h"
#include "state/operator_metadata.h"

namespace sluice::exec {

class PhysicalOperator;
using OperatorPtr = std::unique_ptr<const PhysicalOperator>;

/// Receives an operator's output batches (the parent's Push, or the executor's result).
using BatchConsumer = std::function<Status(std::shared_ptr<arrow::RecordBatch>)>;

/// Hands every record batch of `table` to `out`, in order (a table with no rows: none).
Status EmitTable(const arrow::Table& table, const BatchConsumer& out);

/// An operator's mutable data for one run (one micro-batch, or one batch query).
class OperatorState {
 public:
  virtual ~OperatorState() = default;
};

class PhysicalOperator {
 public:
  PhysicalOperator(std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children);
  virtual ~PhysicalOperator();

  /// The schema of every batch this operator emits.
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  /// Inputs, in the order their batches are tagged (child_index in Push). Unary operators have
  /// one; a scan none; a join would have two.
  const std::vector<OperatorPtr>& children() const { return children_; }

  /// The explain line: the operator's name, its arguments and how it runs, e.g.
  /// "FilterExec (price > 0) (Arrow compute filter; null counts as false)".
  virtual std::string Describe() const = 0;

  /// This run's mutable state; null when the operator keeps none. Called once per run, before
  /// any Push.
  virtual Result<std::unique_ptr<OperatorState>> MakeState(ExecContext* ctx) const;
  /// Consumes one batch from children()[child_index]; may emit to `out` at once.
  virtual Status Push(ExecContext* ctx, OperatorState* state, int child_index,
                      const std::shared_ptr<arrow::RecordBatch>& batch, const BatchConsumer& out) const;
  /// Called once, after every child has finished: emits what was held back. A leaf has no
  /// input, so its Finish produces all of its rows.
  virtual Status Finish(ExecContext* ctx, OperatorState* state, const BatchConsumer& out) const;

 private:
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<OperatorPtr> children_;
};

/// An operator that keeps state across micro-batches in the state store, under
/// state/<operator_id>/. It owns the description of that state (checkpoint metadata), its
/// stateOperators progress entry and its eviction rule; nothing outside it decides what it is.
class StatefulOperator : public PhysicalOperator {
 public:
  StatefulOperator(std::shared_ptr<arrow::Schema> schema, std::vector<OperatorPtr> children, int operator_id);

  /// Position among the plan's stateful operators, bottom-up (= LogicalPlan::StatefulNodes()).
  int operator_id() const { return operator_id_; }

  /// What state/<operator_id>/_metadata records: a restart whose operator would read the state
  /// differently is refused. The text is part of the checkpoint format: it must stay byte-for-
  /// byte the same for the same query, or existing checkpoints stop loading.
  virtual state::StateOperatorMetadata StateMetadata(int num_partitions) const = 0;

  /// Whether a batch without new rows is worth running once the watermark has moved past the
  /// one the last batch used (Spark's shouldRunAnotherBatch): it would emit or evict state.
  /// Only asked when the query has a watermark.
  virtual bool RunsNoDataBatch(plan::OutputMode /*mode*/) const { return true; }

 protected:
  /// Fills ctx->operators[operator_id()] with this batch's progress entry: `measured` (name,
  /// timings, rows dropped) plus the sums of every partition store's metrics. An operator whose
  /// store keys are not its rows (a stream-stream join) counts rows itself: count_store_rows
  /// false adds only the memory used.
  Status ReportProgress(ExecContext* ctx, OperatorProgress measured, bool count_store_rows = true) const;

 private:
  int operator_id_;
};

}  // namespace sluice::exec
