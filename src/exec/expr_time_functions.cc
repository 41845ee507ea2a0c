// Time functions on Arrow compute's temporal kernels. Timestamps are read in UTC.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "exec/expr_kernels.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;

Result<arrow::compute::CalendarUnit> TruncUnit(const std::string& unit) {
  using arrow::compute::CalendarUnit;
  ARROW_ASSIGN_OR_RAISE(auto u, plan::NormalizeTruncUnit(unit));
  if (u == "year") return CalendarUnit::YEAR;
  if (u == "quarter") return CalendarUnit::QUARTER;
  if (u == "month") return CalendarUnit::MONTH;
  if (u == "week") return CalendarUnit::WEEK;
  if (u == "day") return CalendarUnit::DAY;
  if (u == "hour") return CalendarUnit::HOUR;
  if (u == "minute") return CalendarUnit::MINUTE;
  return CalendarUnit::SECOND;
}

}  // namespace

Result<Datum> ParseTimestampPattern(const Datum& text, const std::string& pattern, plan::EvalMode mode) {
  ARROW_ASSIGN_OR_RAISE(auto format, plan::SparkPatternToStrptime(pattern));
  arrow::compute::StrptimeOptions options(format, arrow::TimeUnit::MICRO, /*error_is_null=*/true);
  ARROW_ASSIGN_OR_RAISE(auto parsed, Kernel("strptime", {text}, &options));  // naive = UTC; SparkCast relabels
  if (mode == plan::EvalMode::kLegacy) return parsed;
  // ANSI: text that does not match the pattern fails the query, naming the first such value.
  std::shared_ptr<arrow::Array> in, out;
  if (text.is_scalar()) {
    ARROW_ASSIGN_OR_RAISE(in, arrow::MakeArrayFromScalar(*text.scalar(), 1));
    ARROW_ASSIGN_OR_RAISE(out, arrow::MakeArrayFromScalar(*parsed.scalar(), 1));
  } else {
    in = text.make_array();
    out = parsed.make_array();
  }
  if (out->null_count() == in->null_count()) return parsed;
  for (int64_t i = 0; i < in->length(); ++i) {
    if (in->IsValid(i) && out->IsNull(i)) {
      ARROW_ASSIGN_OR_RAISE(auto text, in->GetScalar(i));
      return Status::Invalid("[CANNOT_PARSE_TIMESTAMP] Text '",
                             static_cast<const arrow::StringScalar&>(*text).value->ToString(),
                             "' could not be parsed with the pattern '", pattern,
                             "'. Use `try_to_timestamp` to tolerate invalid input string and return NULL instead. "
                             "If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.");
    }
  }
  return parsed;
}

namespace {

Result<Datum> ToTimestamp(const plan::Expr& call, const std::vector<Datum>& args, const plan::CallSignature& sig) {
  if (args.size() == 1) return SparkCast(args[0], sig.out, call.mode);  // ISO-8601 text, a date or a timestamp
  return ParseTimestampPattern(args[0], args[1].scalar()->ToString(), call.mode);
}

const char* ExtractKernel(const std::string& fn) {
  if (fn == "year") return "year";
  if (fn == "month") return "month";
  if (fn == "dayofmonth") return "day";
  if (fn == "hour") return "hour";
  if (fn == "minute") return "minute";
  if (fn == "second") return "second";
  return nullptr;
}

// Seconds of the minute with microseconds, as DECIMAL(8,6) (Spark's EXTRACT(SECOND FROM ts)).
Result<Datum> SecondWithFraction(const Datum& ts, const std::shared_ptr<arrow::DataType>& out) {
  ARROW_ASSIGN_OR_RAISE(auto micros, arrow::compute::Cast(ts, arrow::timestamp(arrow::TimeUnit::MICRO)));
  ARROW_ASSIGN_OR_RAISE(auto raw, arrow::compute::Cast(micros, arrow::int64()));
  std::shared_ptr<arrow::Array> in;
  if (raw.is_scalar()) {
    ARROW_ASSIGN_OR_RAISE(in, arrow::MakeArrayFromScalar(*raw.scalar(), 1));
  } else {
    in = raw.make_array();
  }
  const auto& values = static_cast<const arrow::Int64Array&>(*in);
  arrow::Decimal128Builder builder(out);
  ARROW_RETURN_NOT_OK(builder.Reserve(values.length()));
  constexpr int64_t kMinute = 60 * 1000000LL;
  for (int64_t i = 0; i < values.length(); ++i) {
    if (values.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    const int64_t in_minute = ((values.Value(i) % kMinute) + kMinute) % kMinute;
    builder.UnsafeAppend(arrow::Decimal128(in_minute));
  }
  ARROW_ASSIGN_OR_RAISE(auto array, builder.Finish());
  if (raw.is_scalar()) return array->GetScalar(0);
  return Datum(std::move(array));
}

}  // namespace

Result<Datum> RunTimeFunction(const plan::Expr& call, const std::vector<Datum>& args, const plan::CallSignature& sig) {
  const std::string& fn = call.name;
  if (fn == "to_timestamp") return ToTimestamp(call, args, sig);
  if (fn == "second_with_fraction") return SecondWithFraction(args[0], sig.out);
  if (fn == "date_trunc") {
    ARROW_ASSIGN_OR_RAISE(auto unit, TruncUnit(args[0].scalar()->ToString()));
    // Weeks start on Monday, as Spark's date_trunc('week', ...).
    arrow::compute::RoundTemporalOptions options(1, unit, /*week_starts_monday=*/true);
    return Kernel("floor_temporal", {args[1]}, &options);
  }
  if (fn == "dayofweek") {
    // Spark: 1 = Sunday ... 7 = Saturday.
    arrow::compute::DayOfWeekOptions options(/*count_from_zero=*/false, /*week_start=*/7);
    return Kernel("day_of_week", args, &options);
  }
  if (const char* kernel = ExtractKernel(fn)) return Kernel(kernel, args);
  return Status::NotImplemented("function ", fn);
}

}  // namespace sluice::exec::internal
