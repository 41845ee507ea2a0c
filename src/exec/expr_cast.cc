// Spark's CAST on Arrow arrays, in the evaluation modes (plan::EvalMode; kTry gives NULL where
// kAnsi fails, as try_cast): which values fail the
// query under ANSI, and what the non-ANSI (legacy) cast gives instead. Whole arrays go through
// Arrow's vectorised cast when the values allow it; only the exceptions take the per-value path.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <limits>

#include "util/compute_init.h"
#include "util/decimal_text.h"
#include "util/timestamp_text.h"
#include "exec/expr_kernels.h"
#include "plan/expr_resolve.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;
using plan::EvalMode;

std::string SqlTypeName(const arrow::DataType& t) {
  std::string name = plan::TypeName(t);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
  return name;
}

constexpr const char* kAnsiHint = "If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.";

Status CastInvalidInput(const std::string& text, const arrow::DataType& to) {
  return Status::Invalid("[CAST_INVALID_INPUT] The value '", text, "' of the type \"STRING\" cannot be cast to \"",
                         SqlTypeName(to), "\" because it is malformed. Correct the value as per the syntax, or "
                         "change its target type. Use `try_cast` to tolerate malformed input and return NULL "
                         "instead. ", kAnsiHint);
}

Status CastOverflow(const std::string& value, const arrow::DataType& from, const arrow::DataType& to) {
  return Status::Invalid("[CAST_OVERFLOW] The value ", value, " of the type \"", SqlTypeName(from),
                         "\" cannot be cast to \"", SqlTypeName(to), "\" due to an overflow. Use `try_cast` to "
                         "tolerate overflow and return NULL instead. ", kAnsiHint);
}

Status DecimalOutOfRange(const std::string& value, const arrow::DataType& to) {
  const auto& d = static_cast<const arrow::DecimalType&>(to);
  return Status::Invalid("[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION] ", value, " cannot be represented as Decimal(",
                         d.precision(), ", ", d.scale(), "). ", kAnsiHint);
}

bool IsFloating(const arrow::DataType& t) {
  return t.id() == arrow::Type::FLOAT || t.id() == arrow::Type::DOUBLE || t.id() == arrow::Type::HALF_FLOAT;
}

// Runs an array function on a scalar too (as a one-value array).
Result<Datum> OnArray(const Datum& value, const std::function<Result<Datum>(const arrow::Array&)>& fn) {
  if (!value.is_scalar()) return fn(*value.make_array());
  ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*value.scalar(), 1));
  ARROW_ASSIGN_OR_RAISE(auto out, fn(*array));
  return out.make_array()->GetScalar(0);
}

// The range of an integer target type.
std::pair<int64_t, int64_t> IntegerRange(const arrow::DataType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: return {INT8_MIN, INT8_MAX};
    case arrow::Type::INT16: return {INT16_MIN, INT16_MAX};
    case arrow::Type::INT32: return {INT32_MIN, INT32_MAX};
    default: return {INT64_MIN, INT64_MAX};
  }
}

// Two's-complement truncation to the target width (Java's (int) of a long).
int64_t Wrap(int64_t v, const arrow::DataType& t) {
  switch (t.id()) {
    case arrow::Type::INT8: return static_cast<int8_t>(v);
    case arrow::Type::INT16: return static_cast<int16_t>(v);
    case arrow::Type::INT32: return static_cast<int32_t>(v);
    default: return v;
  }
}

// Builds an int64 column value by value with `one(i, &out)` deciding each row: returns false
// for a NULL result. Then casts to `to` (an integer or timestamp type; values already fit).
template <typename Fn>
Result<Datum> BuildInt64(const arrow::Array& in, const std::shared_ptr<arrow::DataType>& to, Fn&& one) {
  arrow::Int64Builder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    int64_t v = 0;
    bool valid = false;
    if (!in.IsNull(i)) {
      ARROW_ASSIGN_OR_RAISE(valid, one(i, &v));
    }
    if (valid) {
      builder.UnsafeAppend(v);
    } else {
      builder.UnsafeAppendNull();
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto out, builder.Finish());
  if (to->id() == arrow::Type::TIMESTAMP) {
    return Datum(std::make_shared<arrow::TimestampArray>(to, out->length(), out->data()->buffers[1],
                                                         out->data()->buffers[0], out->null_count()));
  }
  return arrow::compute::Cast(Datum(out), to);
}

// Spark's text -> integer: optional sign and digits; the legacy cast also takes (and drops) a
// fractional part ("1.5" -> 1). False when the text is not a number or does not fit in int64.
bool ParseInteger(std::string_view s, bool allow_fraction, int64_t* out) {
  if (allow_fraction) {
    size_t dot = s.find('.');
    if (dot != std::string_view::npos) {
      std::string_view frac = s.substr(dot + 1);
      if (!std::all_of(frac.begin(), frac.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
      s = s.substr(0, dot);
      if (s.empty() || s == "-" || s == "+") {
        if (frac.empty()) return false;
        *out = 0;
        return true;
      }
    }
  }
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

Result<Datum> StringToInteger(const arrow::Array& in, const std::shared_ptr<arrow::DataType>& to, EvalMode mode) {
  const auto& text = static_cast<const arrow::StringArray&>(in);
  const auto [lo, hi] = IntegerRange(*to);
  return BuildInt64(in, to, [&](int64_t i, int64_t* v) -> Result<bool> {
    std::string_view s = text.GetView(i);
    if (ParseInteger(s, mode == EvalMode::kLegacy, v) && *v >= lo && *v <= hi) return true;
    if (mode == EvalMode::kAnsi) return CastInvalidInput(std::string(s), *to);
    return false;
  });
}

// Spark's text -> DECIMAL(p, s) (util::ParseDecimalText): every digit of the text, rounded half
// up to the scale; malformed text and values that need more than p digits fail under ANSI.
Result<Datum> StringToDecimal(const arrow::Array& in, const std::shared_ptr<arrow::DataType>& to, EvalMode mode) {
  const auto& text = static_cast<const arrow::StringArray&>(in);
  const auto& type = static_cast<const arrow::Decimal128Type&>(*to);
  arrow::Decimal128Builder builder(to);
  ARROW_RETURN_NOT_OK(builder.Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    const std::string_view s = text.GetView(i);
    arrow::Decimal128 v;
    const util::DecimalText r = util::ParseDecimalText(s, type.precision(), type.scale(), &v);
    if (r == util::DecimalText::kOk) {
      builder.UnsafeAppend(v);
      continue;
    }
    if (mode == EvalMode::kAnsi) {
      return r == util::DecimalText::kMalformed ? CastInvalidInput(std::string(s), *to)
                                                : DecimalOutOfRange(std::string(s), *to);
    }
    builder.UnsafeAppendNull();
  }
  ARROW_ASSIGN_OR_RAISE(auto out, builder.Finish());
  return Datum(std::move(out));
}

// Floating -> integer: truncation toward zero; out of range (or NaN, infinite) fails under ANSI
// and saturates in the legacy cast (Java's (int) of a double; NaN -> 0).
// DECIMAL -> DOUBLE/FLOAT correctly rounded, as Spark's (BigDecimal's doubleValue/floatValue):
// 0.3 is the double nearest 0.3. Arrow's cast multiplies by a power of ten and can land one
// ulp off (0.30000000000000004). Exact for |unscaled| < 2^53 and scale <= 22 by one IEEE
// division of two exactly representable numbers; else through the decimal text (strtod).
Result<Datum> DecimalToFloating(const arrow::Array& in, const std::shared_ptr<arrow::DataType>& to) {
  const auto& dec = static_cast<const arrow::Decimal128Array&>(in);
  const int32_t scale = static_cast<const arrow::Decimal128Type&>(*in.type()).scale();
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  const bool to_float = to->id() == arrow::Type::FLOAT;
  arrow::DoubleBuilder doubles;
  arrow::FloatBuilder floats;
  ARROW_RETURN_NOT_OK(to_float ? floats.Reserve(in.length()) : doubles.Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      ARROW_RETURN_NOT_OK(to_float ? floats.AppendNull() : doubles.AppendNull());
      continue;
    }
    const arrow::Decimal128 v(dec.GetValue(i));
    constexpr int64_t kExact = int64_t{1} << 53;
    const bool small = v.high_bits() == (static_cast<int64_t>(v.low_bits()) < 0 ? -1 : 0);
    const auto unscaled = static_cast<int64_t>(v.low_bits());
    if (!to_float && small && unscaled > -kExact && unscaled < kExact && scale >= 0 && scale <= 22) {
      doubles.UnsafeAppend(static_cast<double>(unscaled) / kPow10[scale]);
      continue;
    }
    const std::string text = v.ToString(scale);
    if (to_float) {
      floats.UnsafeAppend(std::strtof(text.c_str(), nullptr));
    } else {
      doubles.UnsafeAppend(std::strtod(text.c_str(), nullptr));
    }
  }
  std::shared_ptr<arrow::Array> out;
  ARROW_RETURN_NOT_OK(to_float ? floats.Finish(&out) : doubles.Finish(&out));
  return Datum(std::move(out));
}

Result<Datum> FloatingToInteger(const arrow::Array& in, const std::shared_ptr<arrow::DataType>& to, EvalMode mode) {
  ARROW_ASSIGN_OR_RAISE(auto d, arrow::compute::Cast(in, arrow::float64()));
  const auto& values = static_cast<const arrow::DoubleArray&>(*d);
  const auto [lo, hi] = IntegerRange(*to);
  const bool narrow = to->id() == arrow::Type::INT8 || to->id() == arrow::Type::INT16;
  return BuildInt64(in, to, [&](int64_t i, int64_t* v) -> Result<bool> {
    const double x = values.Value(i);
    const double t = std::trunc(x);
    if (!std::isnan(x) && t >= static_cast<double>(lo) && t < -static_cast<double>(lo)) {
      *v = static_cast<int64_t>(t);
      return true;
    }
    if (mode == EvalMode::kAnsi) {
      std::string text = std::to_string(x);
      return CastOverflow(text, *in.type(), *to);
    }
    if (mode == EvalMode::kTry) return false;
    // Saturate to int (or long), then wrap to the narrower types as Java does.
    const auto [slo, shi] = narrow ? IntegerRange(*arrow::int32()) : std::pair<int64_t, int64_t>{lo, hi};
    *v = std::isnan(x) ? 0 : (x < 0 ? slo : shi);
    *v = Wrap(*v, *to);
    return true;
  });
}

// Integer (or timestamp seconds) -> narrower integer: ANSI fails on overflow, legacy wraps.
Result<Datum> NarrowInteger(const arrow::Array& wide, const std::shared_ptr<arrow::DataType>& from,
                            const std::shared_ptr<arrow::DataType>& to, EvalMode mode) {
  ARROW_ASSIGN_OR_RAISE(auto as64, arrow::compute::Cast(wide, arrow::int64()));
  const auto& values = static_cast<const arrow::Int64Array&>(*as64);
  const auto [lo, hi] = IntegerRange(*to);
  return BuildInt64(values, to, [&](int64_t i, int64_t* v) -> Result<bool> {
    const int64_t x = values.Value(i);
    if (x >= lo && x <= hi) {
      *v = x;
      return true;
    }
    if (mode == EvalMode::kAnsi) return CastOverflow(std::to_string(x) + "L", *from, *to);
    if (mode == EvalMode::kTry) return false;
    *v = Wrap(x, *to);
    return true;
  });
}

// Microseconds -> whole seconds, floored (Spark: CAST(ts AS BIGINT)).
Result<Datum> TimestampToSeconds(const arrow::Array& in) {
  const auto& micros = static_cast<const arrow::TimestampArray&>(in);
  return BuildInt64(in, arrow::int64(), [&](int64_t i, int64_t* v) -> Result<bool> {
    const int64_t us = micros.Value(i);
    *v = us / kMicrosPerSecond - (us % kMicrosPerSecond < 0 ? 1 : 0);
    return true;
  });
}

// Seconds (integer or fractional) -> timestamp, as Spark: CAST(86400 AS TIMESTAMP) is 1970-01-02.
Result<Datum> SecondsToTimestamp(const arrow::Array& in, const std::shared_ptr<arrow::DataType>& to, EvalMode mode) {
  ARROW_ASSIGN_OR_RAISE(auto d, arrow::compute::Cast(in, arrow::float64()));
  const auto& seconds = static_cast<const arrow::DoubleArray&>(*d);
  std::shared_ptr<arrow::Int64Array> exact;
  if (plan::IsIntegerType(*in.type())) {
    ARROW_ASSIGN_OR_RAISE(auto i64, arrow::compute::Cast(in, arrow::int64()));
    exact = std::static_pointer_cast<arrow::Int64Array>(i64);
  }
  return BuildInt64(in, to, [&](int64_t i, int64_t* v) -> Result<bool> {
    if (exact) {
      const int64_t s = exact->Value(i);
      if (!__builtin_mul_overflow(s, kMicrosPerSecond, v)) return true;
      if (mode == EvalMode::kAnsi) return CastOverflow(std::to_string(s) + "L", *in.type(), *to);
      if (mode == EvalMode::kTry) return false;
      *v = s < 0 ? INT64_MIN : INT64_MAX;
      return true;
    }
    const double us = seconds.Value(i) * kMicrosPerSecond;
    if (std::isfinite(us) && us >= -9.2e18 && us <= 9.2e18) {
      *v = static_cast<int64_t>(us);
      return true;
    }
    if (mode == EvalMode::kAnsi) return CastOverflow(std::to_string(seconds.Value(i)), *in.type(), *to);
    return false;
  });
}

// Applies `convert` to the whole input; if that fails, to each value alone: a failing value is
// an error (`fail(value)`, ANSI) or NULL (legacy).
Result<Datum> ConvertEach(const Datum& in, const std::shared_ptr<arrow::DataType>& to, EvalMode mode,
                          const std::function<Result<Datum>(const Datum&)>& convert,
                          const std::function<Status(const arrow::Scalar&)>& fail) {
  auto whole = convert(in);
  if (whole.ok()) return whole;
  std::shared_ptr<arrow::Array> array;
  if (in.is_scalar()) {
    ARROW_ASSIGN_OR_RAISE(array, arrow::MakeArrayFromScalar(*in.scalar(), 1));
  } else {
    array = in.make_array();
  }
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), to, &builder));
  ARROW_RETURN_NOT_OK(builder->Reserve(array->length()));
  for (int64_t i = 0; i < array->length(); ++i) {
    if (array->IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto value, array->GetScalar(i));
    auto one = convert(Datum(value));
    if (one.ok()) {
      ARROW_RETURN_NOT_OK(builder->AppendScalar(*one->scalar()));
    } else if (mode == EvalMode::kAnsi) {
      return fail(*value);
    } else {
      ARROW_RETURN_NOT_OK(builder->AppendNull());
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto out, builder->Finish());
  if (in.is_scalar()) return out->GetScalar(0);
  return Datum(std::move(out));
}

std::string ScalarText(const arrow::Scalar& s) {
  if (s.type->id() == arrow::Type::STRING) return static_cast<const arrow::StringScalar&>(s).value->ToString();
  return s.ToString();
}

arrow::compute::CastOptions SparkCastOptions(const std::shared_ptr<arrow::DataType>& to) {
  auto options = arrow::compute::CastOptions::Safe(to);
  options.allow_float_truncate = true;  // CAST(1.7 AS INT) = 1
  options.allow_time_truncate = true;   // CAST(ts AS DATE) drops the time of day
  return options;
}

// ISO-8601 text -> timestamp: naive text is read as UTC; text with 'Z' or an offset is converted.
Result<Datum> ParseTimestamp(const Datum& d, const std::shared_ptr<arrow::DataType>& to) {
  auto parsed = util::TimestampFromText(d, to);
  if (!parsed.ok() && d.is_scalar() && d.scalar()->is_valid) {
    std::string text = ScalarText(*d.scalar());
    plan::TruncateFractionToMicros(&text);
    parsed = util::TimestampFromText(Datum(std::make_shared<arrow::StringScalar>(text)), to);
  }
  return parsed;
}

// Spark's text -> boolean: t, true, y, yes, 1 / f, false, n, no, 0 (any case).
Result<Datum> ParseBoolean(const Datum& d) {
  if (!d.is_scalar()) return Status::Invalid("per value");
  std::string s = ScalarText(*d.scalar());
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  if (s == "t" || s == "true" || s == "y" || s == "yes" || s == "1") return Datum(std::make_shared<arrow::BooleanScalar>(true));
  if (s == "f" || s == "false" || s == "n" || s == "no" || s == "0") return Datum(std::make_shared<arrow::BooleanScalar>(false));
  return Status::Invalid("not a boolean");
}

// Numbers -> DECIMAL(p, s): rounded half away from zero to s digits (Java's ROUND_HALF_UP),
// then checked against the precision.
Result<Datum> ToDecimal(const Datum& value, const std::shared_ptr<arrow::DataType>& to, EvalMode mode) {
  const int32_t scale = static_cast<const arrow::DecimalType&>(*to).scale();
  auto convert = [&](const Datum& d) -> Result<Datum> {
    Datum v = d;
    const auto& from = *d.type();
    if (IsFloating(from) || (arrow::is_decimal(from.id()) && static_cast<const arrow::DecimalType&>(from).scale() > scale)) {
      arrow::compute::RoundOptions round(scale, arrow::compute::RoundMode::HALF_TOWARDS_INFINITY);
      ARROW_ASSIGN_OR_RAISE(v, Kernel("round", {d}, &round));
    } else if (plan::IsIntegerType(from)) {
      // Arrow refuses an integer type whose widest value needs more digits than the target has
      // (BIGINT -> DECIMAL(10,2)) whatever the values; Spark checks each value. DECIMAL(38,0)
      // holds every integer, and the decimal-to-decimal cast below checks each value's digits.
      ARROW_ASSIGN_OR_RAISE(v, arrow::compute::Cast(d, arrow::decimal128(38, 0)));
    }
    return arrow::compute::Cast(v, SparkCastOptions(to));
  };
  return ConvertEach(value, to, mode, convert,
                     [&](const arrow::Scalar& s) { return DecimalOutOfRange(ScalarText(s), *to); });
}

Result<Datum> StringTo(const Datum& text, const std::shared_ptr<arrow::DataType>& to, EvalMode mode) {
  arrow::compute::TrimOptions spaces(" \t\n\r");
  ARROW_ASSIGN_OR_RAISE(auto trimmed, Kernel("utf8_trim", {text}, &spaces));
  auto invalid = [&](const arrow::Scalar& s) { return CastInvalidInput(ScalarText(s), *to); };
  if (plan::IsIntegerType(*to)) {
    auto fast = arrow::compute::Cast(trimmed, SparkCastOptions(to));
    if (fast.ok()) return fast;
    ARROW_ASSIGN_OR_RAISE(auto utf8, arrow::compute::Cast(trimmed, arrow::utf8()));
    return OnArray(utf8, [&](const arrow::Array& a) { return StringToInteger(a, to, mode); });
  }
  if (to->id() == arrow::Type::TIMESTAMP) {
    return ConvertEach(trimmed, to, mode, [&](const Datum& d) { return ParseTimestamp(d, to); }, invalid);
  }
  if (to->id() == arrow::Type::BOOL) return ConvertEach(trimmed, to, mode, ParseBoolean, invalid);
  if (to->id() == arrow::Type::DECIMAL128) {
    ARROW_ASSIGN_OR_RAISE(auto utf8, arrow::compute::Cast(trimmed, arrow::utf8()));
    return OnArray(utf8, [&](const arrow::Array& a) { return StringToDecimal(a, to, mode); });
  }
  auto options = SparkCastOptions(to);
  return ConvertEach(trimmed, to, mode, [&](const Datum& d) { return arrow::compute::Cast(d, options); }, invalid);
}

// Java's Double.toString / Float.toString, which Spark's CAST(x AS STRING) uses: the shortest
// digits that read back as x; plain notation with at least one fractional digit for
// 1e-3 <= |x| < 1e7 ("0.0", "100.125"), else "1.0E20" / "1.5E-4".
template <typename T>
std::string JavaFloatingText(T x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return std::signbit(x) ? "-0.0" : "0.0";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  std::string sci(buf, end);  // "-1.2345e+02"
  const bool negative = sci[0] == '-';
  if (negative) sci.erase(0, 1);
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exponent = std::stoi(sci.substr(e + 1));
  std::string out;
  if (std::fabs(static_cast<double>(x)) >= 1e-3 && std::fabs(static_cast<double>(x)) < 1e7) {
    if (exponent >= 0) {
      std::string whole = digits.substr(0, std::min<size_t>(digits.size(), exponent + 1));
      whole += std::string(exponent + 1 - whole.size(), '0');
      std::string frac = digits.size() > static_cast<size_t>(exponent + 1) ? digits.substr(exponent + 1) : "0";
      out = whole + "." + frac;
    } else {
      out = "0." + std::string(-exponent - 1, '0') + digits;
    }
  } else {
    out = digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" + std::to_string(exponent);
  }
  return negative ? "-" + out : out;
}

// Spark's CAST(ts AS STRING): "yyyy-MM-dd HH:mm:ss" and the fraction without trailing zeros.
std::string TimestampText(int64_t micros) {
  using namespace std::chrono;
  const int64_t day_us = 86400LL * 1000000;
  int64_t days = micros / day_us, rest = micros % day_us;
  if (rest < 0) {
    rest += day_us;
    --days;
  }
  const year_month_day ymd{sys_days{std::chrono::days{days}}};
  const int64_t secs = rest / 1000000, frac = rest % 1000000;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02u-%02u %02lld:%02lld:%02lld", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  std::string out = buf;
  if (frac != 0) {
    std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(frac));
    std::string f = buf;
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  return out;
}

// Timestamps and floating-point numbers -> text, as Spark writes them.
Result<Datum> ToSparkText(const arrow::Array& in) {
  arrow::StringBuilder builder;
  ARROW_RETURN_NOT_OK(builder.Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
    } else if (in.type_id() == arrow::Type::TIMESTAMP) {
      ARROW_RETURN_NOT_OK(builder.Append(TimestampText(static_cast<const arrow::TimestampArray&>(in).Value(i))));
    } else if (in.type_id() == arrow::Type::FLOAT) {
      ARROW_RETURN_NOT_OK(builder.Append(JavaFloatingText(static_cast<const arrow::FloatArray&>(in).Value(i))));
    } else {
      ARROW_RETURN_NOT_OK(builder.Append(JavaFloatingText(static_cast<const arrow::DoubleArray&>(in).Value(i))));
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto out, builder.Finish());
  return Datum(std::move(out));
}

}  // namespace

Result<Datum> SparkCast(const Datum& value, const std::shared_ptr<arrow::DataType>& to, EvalMode mode) {
  ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
  const auto& from_type = value.type();
  const auto& from = *from_type;
  if (from.Equals(*to)) return value;
  if (from.id() == arrow::Type::NA) {
    if (value.is_scalar()) return Datum(arrow::MakeNullScalar(to));
    ARROW_ASSIGN_OR_RAISE(auto nulls, arrow::MakeArrayOfNull(to, value.length()));
    return Datum(std::move(nulls));
  }
  if (plan::IsStringType(from) && !plan::IsStringType(*to)) return StringTo(value, to, mode);
  if (to->id() == arrow::Type::STRING &&
      (from.id() == arrow::Type::TIMESTAMP || from.id() == arrow::Type::DOUBLE || from.id() == arrow::Type::FLOAT)) {
    ARROW_ASSIGN_OR_RAISE(auto micros, from.id() == arrow::Type::TIMESTAMP
                                           ? arrow::compute::Cast(value, arrow::timestamp(arrow::TimeUnit::MICRO,
                                                                                          "UTC"))
                                           : Result<Datum>(value));
    return OnArray(micros, ToSparkText);
  }
  if (arrow::is_decimal(to->id()) && (plan::IsNumericType(from) || arrow::is_decimal(from.id()))) {
    return ToDecimal(value, to, mode);
  }
  if (from.id() == arrow::Type::DECIMAL128 && (to->id() == arrow::Type::DOUBLE || to->id() == arrow::Type::FLOAT)) {
    return OnArray(value, [&](const arrow::Array& a) { return DecimalToFloating(a, to); });
  }
  if (plan::IsIntegerType(*to)) {
    if (IsFloating(from)) return OnArray(value, [&](const arrow::Array& a) { return FloatingToInteger(a, to, mode); });
    if (from.id() == arrow::Type::TIMESTAMP) {
      ARROW_ASSIGN_OR_RAISE(auto seconds, OnArray(value, TimestampToSeconds));
      return OnArray(seconds, [&](const arrow::Array& a) { return NarrowInteger(a, arrow::int64(), to, mode); });
    }
    if (plan::IsIntegerType(from)) {
      const auto [lo, hi] = IntegerRange(*to);
      const auto [flo, fhi] = IntegerRange(from);
      if (flo >= lo && fhi <= hi) return arrow::compute::Cast(value, SparkCastOptions(to));
      return OnArray(value, [&](const arrow::Array& a) { return NarrowInteger(a, from_type, to, mode); });
    }
    if (arrow::is_decimal(from.id())) {
      auto options = SparkCastOptions(arrow::int64());
      options.allow_decimal_truncate = true;
      auto whole = arrow::compute::Cast(value, options);
      if (!whole.ok()) {
        if (mode == EvalMode::kAnsi) return CastOverflow(value.ToString(), from, *to);
        return ConvertEach(value, to, mode, [&](const Datum& d) { return arrow::compute::Cast(d, options); },
                           [](const arrow::Scalar&) { return Status::OK(); });
      }
      return OnArray(*whole, [&](const arrow::Array& a) { return NarrowInteger(a, from_type, to, mode); });
    }
  }
  if (from.id() == arrow::Type::TIMESTAMP && IsFloating(*to)) {
    ARROW_ASSIGN_OR_RAISE(auto micros, arrow::compute::Cast(value, arrow::int64()));
    ARROW_ASSIGN_OR_RAISE(auto as_double, arrow::compute::Cast(micros, arrow::float64()));
    ARROW_ASSIGN_OR_RAISE(auto seconds, Kernel("divide", {as_double, Datum(static_cast<double>(kMicrosPerSecond))}));
    return arrow::compute::Cast(seconds, to);
  }
  if (to->id() == arrow::Type::TIMESTAMP && (plan::IsNumericType(from) || arrow::is_decimal(from.id()))) {
    return OnArray(value, [&](const arrow::Array& a) { return SecondsToTimestamp(a, to, mode); });
  }
  return arrow::compute::Cast(value, SparkCastOptions(to));
}

}  // namespace sluice::exec::internal
