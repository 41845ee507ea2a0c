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

Result<Datum> ToTimestamp(const std::vector<Datum>& args, const plan::CallSignature& sig) {
  if (args.size() == 1) return SparkCast(args[0], sig.out);  // ISO-8601 text, a date or a timestamp
  ARROW_ASSIGN_OR_RAISE(auto format, plan::SparkPatternToStrptime(args[1].scalar()->ToString()));
  arrow::compute::StrptimeOptions options(format, arrow::TimeUnit::MICRO, /*error_is_null=*/true);
  return Kernel("strptime", {args[0]}, &options);  // naive results are UTC; SparkCast relabels
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

}  // namespace

Result<Datum> RunTimeFunction(const plan::Expr& call, const std::vector<Datum>& args, const plan::CallSignature& sig) {
  const std::string& fn = call.name;
  if (fn == "to_timestamp") return ToTimestamp(args, sig);
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
