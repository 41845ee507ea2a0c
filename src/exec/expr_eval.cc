// Evaluation of expressions over record batches: tree walk, casts, filter and project.
#include "exec/expr_eval.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <mutex>

#include "exec/compute_init.h"
#include "exec/expr_kernels.h"
#include "plan/expr_resolve.h"

namespace sluice::exec {
namespace internal {
namespace {

bool IsString(const arrow::DataType& t) { return plan::IsStringType(t); }

// Applies `convert` to the whole input; if that fails, to each value alone, turning failures
// into NULLs (only dirty input pays for the per-value path).
Result<arrow::Datum> ConvertOrNull(const arrow::Datum& in, const std::shared_ptr<arrow::DataType>& to,
                                   const std::function<Result<arrow::Datum>(const arrow::Datum&)>& convert) {
  auto whole = convert(in);
  if (whole.ok()) return whole;
  if (in.is_scalar()) return arrow::Datum(arrow::MakeNullScalar(to));
  std::shared_ptr<arrow::Array> array = in.make_array();
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), to, &builder));
  ARROW_RETURN_NOT_OK(builder->Reserve(array->length()));
  for (int64_t i = 0; i < array->length(); ++i) {
    if (array->IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto value, array->GetScalar(i));
    auto one = convert(arrow::Datum(value));
    if (one.ok()) {
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*one->scalar()));
    } else {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto out, builder->Finish());
  return arrow::Datum(std::move(out));
}

arrow::compute::CastOptions SparkCastOptions(const std::shared_ptr<arrow::DataType>& to) {
  auto options = arrow::compute::CastOptions::Safe(to);
  options.allow_float_truncate = true;  // CAST(1.7 AS INT) = 1
  options.allow_time_truncate = true;   // CAST(ts AS DATE) drops the time of day
  return options;
}

// ISO-8601 text -> timestamp: naive text is read as UTC; text with 'Z' or an offset is converted.
Result<arrow::Datum> ParseIsoTimestamps(const arrow::Datum& text, const std::shared_ptr<arrow::DataType>& to) {
  const auto& ts = static_cast<const arrow::TimestampType&>(*to);
  auto naive = arrow::timestamp(ts.unit());
  auto aware = arrow::timestamp(ts.unit(), "UTC");
  return ConvertOrNull(text, to, [&](const arrow::Datum& d) -> Result<arrow::Datum> {
    auto parsed = arrow::compute::Cast(d, naive);
    if (!parsed.ok()) parsed = arrow::compute::Cast(d, aware);
    ARROW_ASSIGN_OR_RAISE(auto value, parsed);
    return arrow::compute::Cast(value, to);  // relabels the zone; the instant is kept
  });
}

}  // namespace

Result<arrow::Datum> Kernel(const std::string& fn, const std::vector<arrow::Datum>& args,
                            const arrow::compute::FunctionOptions* options) {
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  return arrow::compute::CallFunction(fn, args, options);
}

Result<arrow::Datum> SparkCast(const arrow::Datum& value, const std::shared_ptr<arrow::DataType>& to) {
  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  const auto& from = *value.type();
  if (from.Equals(*to)) return value;
  if (from.id() == arrow::Type::NA) {
    if (value.is_scalar()) return arrow::Datum(arrow::MakeNullScalar(to));
    ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(to, value.length()));
    return arrow::Datum(std::move(nulls));
  }
  if (IsString(from) && !IsString(*to)) {
    arrow::compute::TrimOptions spaces(" \t\n\r");
    ARROW_ASSIGN_OR_RAISE(auto trimmed, Kernel("utf8_trim", {value}, &spaces));
    if (to->id() == arrow::Type::TIMESTAMP) return ParseIsoTimestamps(trimmed, to);
    auto options = SparkCastOptions(to);
    return ConvertOrNull(trimmed, to, [&](const arrow::Datum& d) { return arrow::compute::Cast(d, options); });
  }
  return arrow::compute::Cast(value, SparkCastOptions(to));
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
      ARROW_ASSIGN_OR_RAISE(args[i], internal::SparkCast(args[i], sig.arg_types[i]));
    }
    auto out = internal::RunScalarFunction(e, args, sig);
    if (out.status().IsNotImplemented()) out = internal::RunTimeFunction(e, args, sig);
    ARROW_ASSIGN_OR_RAISE(auto value, out);
    return internal::SparkCast(value, sig.out);  // e.g. Arrow's int64 year() -> Spark's int
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
      auto out = internal::SparkCast(value, e.type);
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

}  // namespace sluice::exec
