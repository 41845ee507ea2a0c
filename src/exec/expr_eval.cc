// Evaluation of expressions over record batches: tree walk, filter and project (casts: expr_cast.cc).
#include "exec/expr_eval.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "util/compute_init.h"
#include "exec/expr_function_table.h"
#include "exec/expr_kernels.h"
#include "plan/expr_resolve.h"

namespace sluice::exec {
namespace internal {

Result<arrow::Datum> Kernel(const std::string& fn, const std::vector<arrow::Datum>& args,
                            const arrow::compute::FunctionOptions* options) {
  ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
  return arrow::compute::CallFunction(fn, args, options);
}

}  // namespace internal

namespace {

Status Annotate(const Status& st, const plan::Expr& e) {
  if (st.ok()) return st;
  return st.WithMessage(st.message(), " in ", e.ToString());
}

Result<arrow::Datum> EvaluateCall(const plan::Expr& e, const arrow::RecordBatch& batch) {
  std::vector<arrow::Datum> args;
  arrow::FieldVector fields;
  for (const auto& a : e.args) {
    ARROW_ASSIGN_OR_RAISE(auto d, Evaluate(*a, batch));
    fields.push_back(arrow::field("", d.type(), true));
    args.push_back(std::move(d));
  }
  ARROW_ASSIGN_OR_RAISE(auto sig, plan::ResolveCall(e, fields));
  auto run = [&]() -> Result<arrow::Datum> {
    for (size_t i = 0; i < args.size() && i < sig.arg_types.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(args[i], internal::SparkCast(args[i], sig.arg_types[i], e.mode));
    }
    Result<arrow::Datum> out = Status::NotImplemented("function ", e.name);
    if (internal::FunctionKernel kernel = internal::FindFunctionKernel(e.name)) {
      out = kernel(e, args, sig);
    } else {
      out = internal::RunScalarFunction(e, args, sig);
      if (out.status().IsNotImplemented()) out = internal::RunTimeFunction(e, args, sig);
    }
    ARROW_ASSIGN_OR_RAISE(auto value, out);
    return internal::SparkCast(value, sig.out, e.mode);  // e.g. Arrow's int64 year() -> Spark's int
  };
  auto result = run();
  if (!result.ok()) return Annotate(result.status(), e);
  return result;
}

}  // namespace

Result<arrow::Datum> Evaluate(const plan::Expr& e, const arrow::RecordBatch& batch) {
  switch (e.kind) {
    case plan::Expr::Kind::kColumn: {
      int index = batch.schema()->GetFieldIndex(e.name);
      if (index < 0) return plan::FindColumn(e.name, *batch.schema()).status();
      return arrow::Datum(batch.column(index));
    }
    case plan::Expr::Kind::kLiteral:
      if (!e.value) return Status::Invalid("literal without a value");
      return arrow::Datum(e.value);
    case plan::Expr::Kind::kAlias:
      if (e.args.size() != 1) return Status::Invalid("alias ", e.name, " needs one argument");
      return Evaluate(*e.args[0], batch);
    case plan::Expr::Kind::kCast: {
      if (e.args.size() != 1 || !e.type) return Status::Invalid("malformed cast");
      ARROW_ASSIGN_OR_RAISE(auto value, Evaluate(*e.args[0], batch));
      ARROW_RETURN_NOT_OK(plan::CheckCast(e, *value.type()));
      auto out = internal::SparkCast(value, e.type, e.mode);
      if (!out.ok()) return Annotate(out.status(), e);
      return out;
    }
    case plan::Expr::Kind::kCall: return EvaluateCall(e, batch);
  }
  return Status::Invalid("unknown expression kind");
}

Result<std::shared_ptr<arrow::RecordBatch>> FilterBatch(const plan::Expr& predicate,
                                                        const std::shared_ptr<arrow::RecordBatch>& batch) {
  ARROW_ASSIGN_OR_RAISE(auto mask, Evaluate(predicate, *batch));
  if (mask.type()->id() == arrow::Type::NA) return batch->Slice(0, 0);
  if (mask.type()->id() != arrow::Type::BOOL) {
    return Status::TypeError("Filter condition ", predicate.ToString(), " must be boolean, but it is ",
                             plan::TypeName(*mask.type()));
  }
  if (mask.is_scalar()) {
    const auto& keep = static_cast<const arrow::BooleanScalar&>(*mask.scalar());
    return keep.is_valid && keep.value ? batch : batch->Slice(0, 0);
  }
  // FilterOptions' default drops rows whose predicate is NULL, as SQL's WHERE does.
  ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(batch, mask));
  return filtered.record_batch();
}

Result<std::shared_ptr<arrow::RecordBatch>> ProjectBatch(const std::vector<plan::ExprPtr>& exprs,
                                                         const std::shared_ptr<arrow::Schema>& out_schema,
                                                         const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (out_schema->num_fields() != static_cast<int>(exprs.size())) {
    return Status::Invalid("ProjectBatch: ", exprs.size(), " expressions but ", out_schema->num_fields(), " output fields");
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  columns.reserve(exprs.size());
  for (size_t i = 0; i < exprs.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto value, Evaluate(*exprs[i], *batch));
    const auto& want = out_schema->field(static_cast<int>(i))->type();
    if (!value.type()->Equals(*want)) {
      ARROW_ASSIGN_OR_RAISE(value, internal::SparkCast(value, want));
    }
    if (value.is_scalar()) {
      ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*value.scalar(), batch->num_rows()));
      columns.push_back(std::move(array));
    } else {
      columns.push_back(value.make_array());
    }
  }
  return arrow::RecordBatch::Make(out_schema, batch->num_rows(), std::move(columns));
}

Result<std::shared_ptr<arrow::Array>> EvaluateToArray(const plan::Expr& e, const arrow::RecordBatch& batch) {
  ARROW_ASSIGN_OR_RAISE(auto d, Evaluate(e, batch));
  if (d.is_array()) return d.make_array();
  if (d.is_scalar()) return arrow::MakeArrayFromScalar(*d.scalar(), batch.num_rows());
  if (d.is_chunked_array()) return arrow::Concatenate(d.chunked_array()->chunks());
  return Status::Invalid("expression ", e.ToString(), " did not evaluate to a column");
}

}  // namespace sluice::exec
