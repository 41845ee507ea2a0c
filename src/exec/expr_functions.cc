// Arithmetic, comparison, logic, CASE, IN and string functions on Arrow compute kernels.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <limits>

#include "exec/expr_kernels.h"
#include "exec/expr_rows.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;

Status DivideByZero() {
  return Status::Invalid("[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and "
                         "return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass "
                         "this error.");
}

// x / 0 and x % 0: an error under ANSI, NULL otherwise (Spark checks the divisor for every
// numeric type, floating point included). Returns the divisor with zeros replaced by NULL.
Result<Datum> CheckDivisor(const Datum& divisor, plan::EvalMode mode) {
  const auto& type = divisor.type();
  ARROW_ASSIGN_OR_RAISE(auto zero, arrow::compute::Cast(Datum(std::make_shared<arrow::Int32Scalar>(0)), type));
  ARROW_ASSIGN_OR_RAISE(auto is_zero, Kernel("equal", {divisor, zero}));
  if (mode == plan::EvalMode::kAnsi) {
    Datum any = is_zero;
    if (!is_zero.is_scalar()) {
      ARROW_ASSIGN_OR_RAISE(any, Kernel("any", {is_zero}));
    }
    const auto& found = static_cast<const arrow::BooleanScalar&>(*any.scalar());
    if (found.is_valid && found.value) return DivideByZero();
    return divisor;
  }
  return Kernel("if_else", {is_zero, Datum(arrow::MakeNullScalar(type)), divisor});
}

// +, -, *, unary -: integer overflow fails under ANSI ("long overflow", as Spark's
// ARITHMETIC_OVERFLOW) and wraps around otherwise.
Result<Datum> Arithmetic(const std::string& kernel, const std::vector<Datum>& args, plan::EvalMode mode) {
  if (mode == plan::EvalMode::kLegacy) return Kernel(kernel, args);
  auto out = Kernel(kernel + "_checked", args);
  if (out.ok() || out.status().message().find("overflow") == std::string::npos) return out;
  const std::string name = plan::TypeName(*args[0].type());
  const std::string type = name == "bigint" ? "long" : name == "int" ? "integer" : name;
  return Status::Invalid("[ARITHMETIC_OVERFLOW] ", type, " overflow. Use 'try_", kernel,
                         "' to tolerate overflow and return NULL instead. If necessary set "
                         "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error.");
}

// Remainder with the sign of the dividend (Java/Spark), unlike Arrow's floored "modulo".
Result<Datum> Remainder(const Datum& a, const Datum& b, plan::EvalMode mode) {
  ARROW_ASSIGN_OR_RAISE(auto divisor, CheckDivisor(b, mode));
  if (plan::IsIntegerType(*a.type())) {
    ARROW_ASSIGN_OR_RAISE(auto quotient, Kernel("divide", {a, divisor}));  // truncates toward zero
    ARROW_ASSIGN_OR_RAISE(auto product, Kernel("multiply", {divisor, quotient}));
    return Kernel("subtract", {a, product});
  }
  ARROW_ASSIGN_OR_RAISE(auto ratio, Kernel("divide", {a, divisor}));
  ARROW_ASSIGN_OR_RAISE(auto quotient, Kernel("trunc", {ratio}));
  ARROW_ASSIGN_OR_RAISE(auto product, Kernel("multiply", {divisor, quotient}));
  return Kernel("subtract", {a, product});
}

Result<Datum> ScalarsToArray(const std::vector<Datum>& values, const std::shared_ptr<arrow::DataType>& type) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder));
  for (const auto& v : values) ARROW_RETURN_NOT_OK(builder->AppendScalar(*v.scalar()));
  ARROW_ASSIGN_OR_RAISE(auto array, builder->Finish());
  return Datum(std::move(array));
}

// x IN (v1, v2, ...) with SQL semantics: NULL when x is NULL, or when nothing matches and the
// list holds a NULL.
Result<Datum> In(const std::vector<Datum>& args) {
  std::vector<Datum> values(args.begin() + 1, args.end());
  bool all_literals = std::all_of(values.begin(), values.end(), [](const Datum& d) { return d.is_scalar(); });
  if (all_literals) {
    ARROW_ASSIGN_OR_RAISE(auto value_set, ScalarsToArray(values, args[0].type()));
    arrow::compute::SetLookupOptions options(value_set, arrow::compute::SetLookupOptions::INCONCLUSIVE);
    return Kernel("is_in", {args[0]}, &options);
  }
  Datum result(std::make_shared<arrow::BooleanScalar>(false));
  for (const auto& v : values) {
    ARROW_ASSIGN_OR_RAISE(auto equal, Kernel("equal", {args[0], v}));
    ARROW_ASSIGN_OR_RAISE(result, Kernel("or_kleene", {result, equal}));
  }
  return result;
}

// CASE WHEN c1 THEN v1 ... ELSE e END: a NULL condition counts as false.
Result<Datum> CaseWhen(const std::vector<Datum>& args, const std::shared_ptr<arrow::DataType>& out) {
  bool has_else = args.size() % 2 == 1;
  Datum result = has_else ? args.back() : Datum(arrow::MakeNullScalar(out));
  Datum no(std::make_shared<arrow::BooleanScalar>(false));
  for (size_t pair = args.size() / 2; pair-- > 0;) {
    ARROW_ASSIGN_OR_RAISE(auto condition, Kernel("coalesce", {args[2 * pair], no}));
    ARROW_ASSIGN_OR_RAISE(result, Kernel("if_else", {condition, args[2 * pair + 1], result}));
  }
  return result;
}

// substring(s, pos, len) with Spark's rules: 1-based pos, 0 acts as 1, negative counts from
// the end, len < 1 gives "".
std::pair<int64_t, int64_t> SubstringSlice(int64_t pos, int64_t len) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (len <= 0) return {0, 0};
  if (pos > 0) return {pos - 1, len > kMax - (pos - 1) ? kMax : pos - 1 + len};
  if (pos == 0) return {0, len};
  return {pos, pos + len >= 0 ? kMax : pos + len};  // from the end; clamped before the first character
}

// Literal bounds slice the whole column with one kernel; column bounds go row by row.
Result<Datum> Substring(const std::vector<Datum>& args) {
  if (args[1].is_scalar() && args[2].is_scalar()) {
    const auto& pos = static_cast<const arrow::Int64Scalar&>(*args[1].scalar());
    const auto& len = static_cast<const arrow::Int64Scalar&>(*args[2].scalar());
    if (!pos.is_valid || !len.is_valid) return Datum(arrow::MakeNullScalar(args[0].type()));
    auto [start, stop] = SubstringSlice(pos.value, len.value);
    arrow::compute::SliceOptions options(start, stop);
    return Kernel("utf8_slice_codeunits", {args[0]}, &options);
  }
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) {
    std::string_view s = rows.Str(0, row);
    auto [start, stop] = SubstringSlice(rows.Int(1, row), rows.Int(2, row));
    const int64_t n = Utf8Length(s);
    auto clamp = [n](int64_t i) { return i < 0 ? std::max<int64_t>(0, n + i) : std::min(i, n); };
    const int64_t from = clamp(start), to = stop == std::numeric_limits<int64_t>::max() ? n : clamp(stop);
    if (to <= from) return out->Append(std::string_view());
    const size_t a = Utf8Offset(s, from);
    return out->Append(s.substr(a, Utf8Offset(s, to) - a));
  });
}

Result<Datum> Concat(const std::vector<Datum>& args) {
  std::vector<Datum> inputs = args;
  inputs.emplace_back(std::make_shared<arrow::StringScalar>(""));  // the separator
  arrow::compute::JoinOptions options(arrow::compute::JoinOptions::EMIT_NULL);
  return Kernel("binary_join_element_wise", inputs, &options);
}

const char* ComparisonKernel(const std::string& fn) {
  if (fn == "=") return "equal";
  if (fn == "!=") return "not_equal";
  if (fn == "<") return "less";
  if (fn == "<=") return "less_equal";
  if (fn == ">") return "greater";
  if (fn == ">=") return "greater_equal";
  return nullptr;
}

}  // namespace

Result<Datum> RunScalarFunction(const plan::Expr& call, const std::vector<Datum>& args, const plan::CallSignature& sig) {
  const std::string& fn = call.name;
  if (fn == "+") return Arithmetic("add", args, call.mode);
  if (fn == "-") return Arithmetic("subtract", args, call.mode);
  if (fn == "*") return Arithmetic("multiply", args, call.mode);
  if (fn == "negative") return Arithmetic("negate", args, call.mode);
  if (fn == "/") {
    ARROW_ASSIGN_OR_RAISE(auto divisor, CheckDivisor(args[1], call.mode));
    return Kernel("divide", {args[0], divisor});
  }
  if (fn == "%") return Remainder(args[0], args[1], call.mode);
  if (const char* kernel = ComparisonKernel(fn)) return Kernel(kernel, args);
  if (fn == "and") return Kernel("and_kleene", args);
  if (fn == "or") return Kernel("or_kleene", args);
  if (fn == "not") return Kernel("invert", args);
  if (fn == "isnull") return Kernel("is_null", args);
  if (fn == "isnotnull") return Kernel("is_valid", args);
  if (fn == "in") return In(args);
  if (fn == "like" || fn == "ilike") {
    arrow::compute::MatchSubstringOptions options(args[1].scalar()->ToString(), /*ignore_case=*/fn == "ilike");
    return Kernel("match_like", {args[0]}, &options);
  }
  if (fn == "coalesce") return Kernel("coalesce", args);
  if (fn == "casewhen") return CaseWhen(args, sig.out);
  if (fn == "upper") return Kernel("utf8_upper", args);
  if (fn == "lower") return Kernel("utf8_lower", args);
  if (fn == "length") return Kernel("utf8_length", args);
  if (fn == "trim") {
    arrow::compute::TrimOptions options(" ");  // Spark's trim removes spaces only
    return Kernel("utf8_trim", args, &options);
  }
  if (fn == "concat") return Concat(args);
  if (fn == "substring") return Substring(args);
  return Status::NotImplemented("function ", fn);
}

}  // namespace sluice::exec::internal
