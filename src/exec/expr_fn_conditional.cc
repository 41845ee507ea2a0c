// Kernels of the conditional functions (typing: plan/function_types_conditional.cc).
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "exec/expr_function_table.h"
#include "exec/expr_kernels.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;
using plan::CallSignature;
using plan::Expr;

// if(c, a, b): a NULL condition picks b.
Result<Datum> If(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto condition, Kernel("coalesce", {args[0], Datum(std::make_shared<arrow::BooleanScalar>(false))}));
  return Kernel("if_else", {condition, args[1], args[2]});
}

Result<Datum> NullIf(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto equal, Kernel("equal", {args[0], args[1]}));
  ARROW_ASSIGN_OR_RAISE(auto condition, Kernel("coalesce", {equal, Datum(std::make_shared<arrow::BooleanScalar>(false))}));
  return Kernel("if_else", {condition, Datum(arrow::MakeNullScalar(args[0].type())), args[0]});
}

Result<Datum> Nvl2(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto present, Kernel("is_valid", {args[0]}));
  return Kernel("if_else", {present, args[1], args[2]});
}

}  // namespace

std::vector<FunctionKernelEntry> ConditionalKernels() { return {{"if", If}, {"nullif", NullIf}, {"nvl2", Nvl2}}; }

}  // namespace sluice::exec::internal
