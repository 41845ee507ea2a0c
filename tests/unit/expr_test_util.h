// Shared by the expression tests: evaluate a Column over a batch the way a projection does.
#pragma once

#include <arrow/api.h>
#include <gtest/gtest.h>

#include "api/access.h"
#include "exec/expr_eval.h"
#include "plan/expr.h"
#include "sluice/column.h"
#include "support/status.h"
#include "unit/test_util_arrow.h"

namespace sluice::testing {

/// Resolves `c` against the batch, evaluates it with ProjectBatch and checks the result has
/// exactly the resolved type. Returns the single result column.
inline arrow::Result<std::shared_ptr<arrow::Array>> TryEval(const Column& c, const std::shared_ptr<arrow::RecordBatch>& batch) {
  ARROW_ASSIGN_OR_RAISE(auto field, plan::ResolveExpr(*api::ExprOf(c), *batch->schema()));
  ARROW_ASSIGN_OR_RAISE(auto value, exec::Evaluate(*api::ExprOf(c), *batch));
  if (!value.type()->Equals(*field->type())) {
    return arrow::Status::Invalid("evaluated type ", value.type()->ToString(), " != resolved ", field->type()->ToString());
  }
  ARROW_ASSIGN_OR_RAISE(auto out, exec::ProjectBatch({api::ExprOf(c)}, arrow::schema({field}), batch));
  return out->column(0);
}

/// Expects `c` over `batch` to equal `expected_json` (an array of the given type).
inline void ExpectEval(const Column& c, const std::shared_ptr<arrow::RecordBatch>& batch,
                       const std::shared_ptr<arrow::DataType>& type, const std::string& expected_json) {
  auto actual = TryEval(c, batch);
  ASSERT_OK(actual) << c.toString();
  auto expected = ArrayFromJson(type, expected_json);
  ASSERT_TRUE((*actual)->type()->Equals(*type)) << c.toString() << " has type " << (*actual)->type()->ToString()
                                                << ", expected " << type->ToString();
  EXPECT_TRUE((*actual)->Equals(*expected)) << c.toString() << "\n got: " << (*actual)->ToString()
                                            << "\n expected: " << expected->ToString();
}

/// A call of the function-table function `name` (plan/function_registry.h), which has no C++
/// Column helper: Fn("round", {col("d"), lit(2)}).
inline Column Fn(const std::string& name, const std::vector<Column>& args) {
  std::vector<plan::ExprPtr> exprs;
  for (const auto& a : args) exprs.push_back(api::ExprOf(a));
  return api::MakeColumn(plan::Expr::Call(name, std::move(exprs)));
}

/// `c` evaluated as with spark.sql.ansi.enabled=false (Spark's non-ANSI results).
inline Column Legacy(const Column& c) { return api::MakeColumn(plan::WithEvalMode(api::ExprOf(c), plan::EvalMode::kLegacy)); }

/// The error message of resolving (or, if resolution passes, evaluating) `c`.
inline std::string ErrorOf(const Column& c, const std::shared_ptr<arrow::RecordBatch>& batch) {
  auto actual = TryEval(c, batch);
  return actual.ok() ? std::string("<no error>") : actual.status().message();
}

}  // namespace sluice::testing
