// Evaluation of resolved logical expressions over Arrow record batches with Arrow compute.
// Pure functions: no state between calls.
#pragma once

#include <arrow/datum.h>
#include <arrow/record_batch.h>

#include "plan/expr.h"

namespace sluice::exec {

/// Evaluates `e` (already resolvable against batch.schema()) to an array or scalar of the
/// type ResolveExpr reports.
Result<arrow::Datum> Evaluate(const plan::Expr& e, const arrow::RecordBatch& batch);

/// Evaluate, with a scalar result broadcast to batch.num_rows() rows: always one array.
Result<std::shared_ptr<arrow::Array>> EvaluateToArray(const plan::Expr& e, const arrow::RecordBatch& batch);

/// Evaluates a boolean predicate and keeps the rows where it is true (null counts as false).
Result<std::shared_ptr<arrow::RecordBatch>> FilterBatch(const plan::Expr& predicate,
                                                        const std::shared_ptr<arrow::RecordBatch>& batch);

/// Evaluates each expression and assembles the result batch with `out_schema`.
Result<std::shared_ptr<arrow::RecordBatch>> ProjectBatch(const std::vector<plan::ExprPtr>& exprs,
                                                         const std::shared_ptr<arrow::Schema>& out_schema,
                                                         const std::shared_ptr<arrow::RecordBatch>& batch);

}  // namespace sluice::exec
