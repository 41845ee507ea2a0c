// Typing of the conditional functions: if(c, a, b) and nvl2(x, a, b) give the common type of
// a and b; nullif(a, b) gives a's type (a and b must be comparable).
#include <arrow/api.h>

#include "plan/function_registry.h"

namespace sluice::plan {
namespace {

using DataTypePtr = std::shared_ptr<arrow::DataType>;

Result<DataTypePtr> CommonOfTwo(const Expr& call, const arrow::FieldVector& args, size_t a, size_t b) {
  DataTypePtr common = CommonType(args[a]->type(), args[b]->type());
  if (!common) return TypeMismatch(call.name, call, {args[a], args[b]});
  return common;
}

// if(condition, then, else): a NULL condition picks `else`, as Spark's If.
Result<CallSignature> If(const Expr& call, const arrow::FieldVector& args) {
  const auto& c = *args[0]->type();
  if (c.id() != arrow::Type::BOOL && !IsNullType(c)) {
    return Status::TypeError("the condition of ", call.ToString(), " must be boolean, but it is ", TypeName(c));
  }
  ARROW_ASSIGN_OR_RAISE(auto common, CommonOfTwo(call, args, 1, 2));
  return CallSignature{{arrow::boolean(), common, common}, common, args[1]->nullable() || args[2]->nullable()};
}

Result<CallSignature> NullIf(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto common, CommonOfTwo(call, args, 0, 1));
  DataTypePtr out = IsNullType(*args[0]->type()) ? common : args[0]->type();
  return CallSignature{{common, common}, out, true};
}

Result<CallSignature> Nvl2(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto common, CommonOfTwo(call, args, 1, 2));
  return CallSignature{{args[0]->type(), common, common}, common, args[1]->nullable() || args[2]->nullable()};
}

}  // namespace

std::vector<FunctionTyping> ConditionalFunctionTypings() {
  return {
      {"if", 3, 3, "if(condition, then, else)", If},
      {"nullif", 2, 2, "nullif(a, b)", NullIf},
      {"nvl2", 3, 3, "nvl2(x, if_not_null, if_null)", Nvl2},
  };
}

}  // namespace sluice::plan
