// Kernels of the math functions (typing: plan/function_types_math.cc).
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "exec/expr_function_table.h"
#include "exec/expr_kernels.h"
#include "exec/expr_rows.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;
using plan::CallSignature;
using plan::Expr;

Status Overflow(const std::string& fn, const arrow::DataType& type) {
  return Status::Invalid("[ARITHMETIC_OVERFLOW] ", plan::TypeName(type), " overflow in ", fn,
                         ". If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.");
}

Result<Datum> Abs(const Expr& call, const std::vector<Datum>& args, const CallSignature&) {
  if (call.mode == plan::EvalMode::kLegacy) return Kernel("abs", args);
  auto out = Kernel("abs_checked", args);
  if (!out.ok() && out.status().message().find("overflow") != std::string::npos) {
    return Overflow("abs", *args[0].type());
  }
  return out;
}

// `v` rounded to `scale` decimal digits the way Spark rounds a DOUBLE: through its shortest
// decimal text (Java's BigDecimal(Double.toString(v))), so round(1.005, 2) is 1.01.
double RoundDecimalText(double v, int64_t scale, bool half_even) {
  if (!std::isfinite(v) || v == 0) return v;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), std::fabs(v), std::chars_format::scientific);
  std::string text(buf, res.ptr);
  const size_t e_at = text.find('e');
  std::string digits = text.substr(0, 1) + (e_at > 2 ? text.substr(2, e_at - 2) : "");
  const int64_t exponent = std::strtoll(text.c_str() + e_at + 1, nullptr, 10);
  const int64_t n = static_cast<int64_t>(digits.size());
  const int64_t drop = (n - 1 - exponent) - scale;  // fraction digits beyond `scale`
  if (drop <= 0) return v;
  std::string kept = drop >= n ? "0" : digits.substr(0, n - drop);
  const std::string dropped = drop > n ? std::string() : digits.substr(drop >= n ? 0 : n - drop);
  bool up = false;
  if (!dropped.empty() && dropped[0] > '5') up = true;
  if (!dropped.empty() && dropped[0] == '5') {
    bool rest_zero = dropped.find_first_not_of('0', 1) == std::string::npos;
    up = !half_even || !rest_zero || ((kept.back() - '0') % 2 == 1);
  }
  if (up) {
    size_t i = kept.size();
    while (i > 0 && kept[i - 1] == '9') kept[--i] = '0';
    if (i == 0) {
      kept.insert(kept.begin(), '1');
    } else {
      ++kept[i - 1];
    }
  }
  const double out = std::strtod((kept + "e" + std::to_string(-scale)).c_str(), nullptr);
  return v < 0 ? -out : out;
}

Result<Datum> RoundWith(const Expr&, const std::vector<Datum>& args, const CallSignature& sig, bool half_even) {
  int64_t scale = 0;
  if (args.size() == 2) {
    const auto& s = *args[1].scalar();
    if (!s.is_valid) return Datum(arrow::MakeNullScalar(sig.out));
    scale = static_cast<const arrow::Int64Scalar&>(s).value;
  }
  const auto id = args[0].type()->id();
  if (id == arrow::Type::DOUBLE || id == arrow::Type::FLOAT) {
    ARROW_ASSIGN_OR_RAISE(auto doubles, arrow::compute::Cast(args[0], arrow::float64()));
    ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make({doubles}));
    return MapRows<arrow::DoubleBuilder>(rows, arrow::float64(), true, [&](int64_t row, arrow::DoubleBuilder* out) {
      double v = static_cast<const arrow::DoubleArray&>(rows.array(0)).Value(row);
      return out->Append(RoundDecimalText(v, scale, half_even));
    });
  }
  if (plan::IsIntegerType(*args[0].type()) && scale >= 0) return args[0];
  using arrow::compute::RoundMode;
  arrow::compute::RoundOptions options(scale, half_even ? RoundMode::HALF_TO_EVEN : RoundMode::HALF_TOWARDS_INFINITY);
  return Kernel("round", {args[0]}, &options);
}

Result<Datum> Round(const Expr& call, const std::vector<Datum>& args, const CallSignature& sig) {
  return RoundWith(call, args, sig, false);
}

Result<Datum> BRound(const Expr& call, const std::vector<Datum>& args, const CallSignature& sig) {
  return RoundWith(call, args, sig, true);
}

// floor/ceil: integers are already whole; DOUBLE and DECIMAL round, and the evaluator's final
// cast gives BIGINT / DECIMAL(p-s+1, 0).
Result<Datum> FloorOrCeil(const char* kernel, const std::vector<Datum>& args) {
  if (plan::IsIntegerType(*args[0].type())) return args[0];
  return Kernel(kernel, args);
}
Result<Datum> Floor(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return FloorOrCeil("floor", args); }
Result<Datum> Ceil(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return FloorOrCeil("ceil", args); }

Result<Datum> Sqrt(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return Kernel("sqrt", args); }
Result<Datum> Exp(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return Kernel("exp", args); }
Result<Datum> Pow(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return Kernel("power", args); }
Result<Datum> Sign(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return Kernel("sign", args); }

Datum Zero() { return Datum(std::make_shared<arrow::DoubleScalar>(0.0)); }

// `value` where every `positive` argument is > 0, NULL elsewhere (Spark's Logarithm).
Result<Datum> WherePositive(const Datum& value, const std::vector<Datum>& positive) {
  Datum ok(std::make_shared<arrow::BooleanScalar>(true));
  for (const auto& p : positive) {
    ARROW_ASSIGN_OR_RAISE(auto gt, Kernel("greater", {p, Zero()}));
    ARROW_ASSIGN_OR_RAISE(ok, Kernel("and_kleene", {ok, gt}));
  }
  return Kernel("if_else", {ok, value, Datum(arrow::MakeNullScalar(arrow::float64()))});
}

Result<Datum> Ln(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto v, Kernel("ln", args));
  return WherePositive(v, args);
}

Result<Datum> Log10(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto v, Kernel("log10", args));
  return WherePositive(v, args);
}

// log(base, x) = ln(x) / ln(base); log(x) = ln(x).
Result<Datum> Log(const Expr& call, const std::vector<Datum>& args, const CallSignature& sig) {
  if (args.size() == 1) return Ln(call, args, sig);
  ARROW_ASSIGN_OR_RAISE(auto num, Kernel("ln", {args[1]}));
  ARROW_ASSIGN_OR_RAISE(auto den, Kernel("ln", {args[0]}));
  ARROW_ASSIGN_OR_RAISE(auto v, Kernel("divide", {num, den}));
  return WherePositive(v, args);
}

// pmod(a, n): r = a % n, and (r + n) % n when r is negative (Spark's Pmod).
Result<Datum> Pmod(const Expr& call, const std::vector<Datum>& args, const CallSignature& sig) {
  Expr remainder = call;
  remainder.name = "%";
  ARROW_ASSIGN_OR_RAISE(auto r, RunScalarFunction(remainder, args, sig));
  ARROW_ASSIGN_OR_RAISE(auto shifted, Kernel("add", {r, args[1]}));
  ARROW_ASSIGN_OR_RAISE(auto wrapped, RunScalarFunction(remainder, {shifted, args[1]}, sig));
  ARROW_ASSIGN_OR_RAISE(auto zero, arrow::compute::Cast(Zero(), r.type()));
  ARROW_ASSIGN_OR_RAISE(auto negative, Kernel("less", {r, zero}));
  return Kernel("if_else", {negative, wrapped, r});
}

Result<Datum> Extreme(const char* kernel, const std::vector<Datum>& args) {
  arrow::compute::ElementWiseAggregateOptions options(/*skip_nulls=*/true);
  return Kernel(kernel, args, &options);
}
Result<Datum> Greatest(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return Extreme("max_element_wise", args);
}
Result<Datum> Least(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return Extreme("min_element_wise", args);
}

}  // namespace

std::vector<FunctionKernelEntry> MathKernels() {
  return {{"abs", Abs},     {"round", Round}, {"bround", BRound}, {"floor", Floor}, {"ceil", Ceil},
          {"sqrt", Sqrt},   {"exp", Exp},     {"pow", Pow},       {"sign", Sign},   {"ln", Ln},
          {"log10", Log10}, {"log", Log},     {"pmod", Pmod},     {"greatest", Greatest}, {"least", Least}};
}

}  // namespace sluice::exec::internal
