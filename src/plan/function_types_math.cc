// Typing of the math functions, with Spark's result types: abs/round/bround keep the argument's
// type (a decimal's scale shrinks to the rounding scale), floor/ceil give BIGINT (or a
// DECIMAL(p-s+1, 0)), sqrt/exp/ln/log/log10/pow/sign give DOUBLE, pmod types as %, and
// greatest/least give the arguments' common type.
#include <arrow/api.h>

#include <algorithm>

#include "plan/function_registry.h"

namespace sluice::plan {
namespace {

using DataTypePtr = std::shared_ptr<arrow::DataType>;

bool IsDecimal(const arrow::DataType& t) { return t.id() == arrow::Type::DECIMAL128; }

Result<DataTypePtr> NumberArg(const Expr& call, const arrow::FieldVector& args, size_t i) {
  const DataTypePtr& t = args[i]->type();
  if (IsNullType(*t)) return arrow::float64();
  if (!IsNumericType(*t)) return TypeMismatch(call.name, call, {args[i]});
  return t;
}

Result<CallSignature> SameType(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto t, NumberArg(call, args, 0));
  if (IsNullType(*args[0]->type())) t = arrow::int32();
  return CallSignature{{t}, t, args[0]->nullable()};
}

// round(x[, scale]) / bround: scale is an integer literal (Spark requires a constant).
Result<CallSignature> Round(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto t, NumberArg(call, args, 0));
  int64_t scale = 0;
  if (args.size() == 2) {
    ARROW_ASSIGN_OR_RAISE(auto lit, LiteralArg(call, 1, IsIntegerType, "integer"));
    ARROW_ASSIGN_OR_RAISE(auto as64, lit->CastTo(arrow::int64()));
    scale = static_cast<const arrow::Int64Scalar&>(*as64).value;
  }
  DataTypePtr out = t;
  if (IsDecimal(*t)) {
    const auto& d = static_cast<const arrow::Decimal128Type&>(*t);
    const int integral = d.precision() - d.scale() + 1;
    if (scale < 0) {
      out = arrow::decimal128(static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(integral, -scale + 1), 38)), 0);
    } else {
      const int new_scale = static_cast<int>(std::min<int64_t>(d.scale(), scale));
      out = arrow::decimal128(std::min(integral + new_scale, 38), new_scale);
    }
  }
  CallSignature sig{{t}, out, args[0]->nullable()};
  if (args.size() == 2) sig.arg_types.push_back(arrow::int64());
  return sig;
}

Result<CallSignature> FloorCeil(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto t, NumberArg(call, args, 0));
  if (IsDecimal(*t)) {
    const auto& d = static_cast<const arrow::Decimal128Type&>(*t);
    return CallSignature{{t}, arrow::decimal128(std::min(d.precision() - d.scale() + 1, 38), 0), args[0]->nullable()};
  }
  DataTypePtr in = IsIntegerType(*t) ? arrow::int64() : arrow::float64();
  return CallSignature{{in}, arrow::int64(), args[0]->nullable()};
}

// sqrt, exp, sign: DOUBLE in, DOUBLE out.
Result<CallSignature> Double(const Expr& call, const arrow::FieldVector& args) {
  CallSignature sig{{}, arrow::float64(), AnyNullable(args)};
  for (size_t i = 0; i < args.size(); ++i) {
    ARROW_RETURN_NOT_OK(NumberArg(call, args, i).status());
    sig.arg_types.push_back(arrow::float64());
  }
  return sig;
}

// ln, log10, log: NULL for a non-positive argument (or base), as Spark's Logarithm.
Result<CallSignature> Logarithm(const Expr& call, const arrow::FieldVector& args) {
  ARROW_ASSIGN_OR_RAISE(auto sig, Double(call, args));
  sig.nullable = true;
  return sig;
}

Result<CallSignature> Pmod(const Expr& call, const arrow::FieldVector& args) {
  Expr remainder = call;
  remainder.name = "%";
  ARROW_ASSIGN_OR_RAISE(auto sig, ResolveCall(remainder, args));
  sig.nullable = true;
  return sig;
}

// greatest/least: NULLs are skipped; NULL only when every argument is.
Result<CallSignature> Extreme(const Expr& call, const arrow::FieldVector& args) {
  DataTypePtr common = arrow::null();
  for (size_t i = 0; i < args.size(); ++i) {
    common = CommonType(common, args[i]->type());
    if (!common) return TypeMismatch(call.name, call, args);
  }
  if (IsNullType(*common)) common = arrow::int32();
  if (!IsNumericType(*common) && !IsStringType(*common) && !IsTemporalType(*common)) {
    return TypeMismatch(call.name, call, args);
  }
  bool nullable = std::all_of(args.begin(), args.end(), [](const auto& f) { return f->nullable(); });
  return CallSignature{std::vector<DataTypePtr>(args.size(), common), common, nullable};
}

}  // namespace

std::vector<FunctionTyping> MathFunctionTypings() {
  return {
      {"abs", 1, 1, "abs(x)", SameType},
      {"round", 1, 2, "round(x[, scale])", Round},
      {"bround", 1, 2, "bround(x[, scale])", Round},
      {"floor", 1, 1, "floor(x)", FloorCeil},
      {"ceil", 1, 1, "ceil(x)", FloorCeil},
      {"sqrt", 1, 1, "sqrt(x)", Double},
      {"exp", 1, 1, "exp(x)", Double},
      {"pow", 2, 2, "pow(x, y)", Double},
      {"sign", 1, 1, "sign(x)", Double},
      {"ln", 1, 1, "ln(x)", Logarithm},
      {"log10", 1, 1, "log10(x)", Logarithm},
      {"log", 1, 2, "log([base, ]x)", Logarithm},
      {"pmod", 2, 2, "pmod(x, y)", Pmod},
      {"greatest", 2, SIZE_MAX, "greatest(a, b, ...)", Extreme},
      {"least", 2, SIZE_MAX, "least(a, b, ...)", Extreme},
  };
}

}  // namespace sluice::plan
