// Kernels of the date and time functions (typing: plan/function_types_datetime.cc). Dates are
// day numbers, timestamps microseconds since the epoch in UTC (the session time zone).
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "util/calendar.h"
#include "exec/expr_function_table.h"
#include "exec/expr_kernels.h"
#include "exec/expr_rows.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;
using plan::CallSignature;
using plan::Expr;
using util::CivilDate;
using util::CivilFromDays;
using util::DaysFromCivil;
using util::DaysInMonth;
using util::TimestampFormat;

const char* const kDefaultFormat = "yyyy-MM-dd HH:mm:ss";

// A timestamp value as raw int64 microseconds (any zone label).
Result<Datum> Micros(const Datum& ts) {
  ARROW_ASSIGN_OR_RAISE(auto us, arrow::compute::Cast(ts, arrow::timestamp(arrow::TimeUnit::MICRO)));
  return arrow::compute::Cast(us, arrow::int64());
}

Result<Datum> AsTimestamp(const Datum& micros) { return arrow::compute::Cast(micros, plan::DefaultTimestampType()); }

Result<Datum> ToDate(const Expr& call, const std::vector<Datum>& args, const CallSignature& sig) {
  if (args.size() == 1) return SparkCast(args[0], sig.out, call.mode);
  ARROW_ASSIGN_OR_RAISE(auto ts, ParseTimestampPattern(args[0], LiteralText(args[1]), call.mode));
  return arrow::compute::Cast(ts, arrow::date32());
}

Result<Datum> FormatMicros(const Datum& micros, const std::string& pattern) {
  ARROW_ASSIGN_OR_RAISE(auto format, TimestampFormat::Compile(pattern));
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make({micros}));
  return MapRows<arrow::StringBuilder>(rows, arrow::utf8(), true, [&](int64_t row, arrow::StringBuilder* out) {
    return out->Append(format.Format(rows.Int(0, row)));
  });
}

Result<Datum> DateFormat(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto micros, Micros(args[0]));
  return FormatMicros(micros, LiteralText(args[1]));
}

Result<Datum> FromUnixtime(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto micros, Kernel("multiply", {args[0], Datum(std::make_shared<arrow::Int64Scalar>(kMicrosPerSecond))}));
  return FormatMicros(micros, args.size() == 2 ? LiteralText(args[1]) : kDefaultFormat);
}

// A date from (date, count) row by row.
template <typename Fn>
Result<Datum> DateAndCount(const std::vector<Datum>& args, Fn fn) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::Date32Builder>(rows, arrow::date32(), true, [&](int64_t row, arrow::Date32Builder* out) {
    return out->Append(static_cast<int32_t>(fn(rows.Days(0, row), rows.Int(1, row))));
  });
}

Result<Datum> DateAdd(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return DateAndCount(args, [](int64_t d, int64_t n) { return d + n; });
}
Result<Datum> DateSub(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return DateAndCount(args, [](int64_t d, int64_t n) { return d - n; });
}

int64_t AddCalendar(int64_t days, int64_t months, int64_t plus_days);

// add_months: the same day of the month, or the month's last day when it is shorter.
Result<Datum> AddMonths(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return DateAndCount(args, [](int64_t d, int64_t n) { return AddCalendar(d, n, 0); });
}

Result<Datum> LastDay(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return DateAndCount({args[0], Datum(std::make_shared<arrow::Int64Scalar>(0))}, [](int64_t d, int64_t) {
    const CivilDate c = CivilFromDays(d);
    return DaysFromCivil(c.year, c.month, DaysInMonth(c.year, c.month));
  });
}

Result<Datum> DateDiff(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto end, arrow::compute::Cast(args[0], arrow::int32()));
  ARROW_ASSIGN_OR_RAISE(auto start, arrow::compute::Cast(args[1], arrow::int32()));
  return Kernel("subtract", {end, start});
}

// Whole seconds, truncated toward zero: Spark's unix_timestamp divides the microseconds (so
// 1969-12-31 23:59:59.5 is 0, where CAST(ts AS BIGINT) floors to -1).
Result<Datum> TruncatedSeconds(const Datum& micros) {
  return Kernel("divide", {micros, Datum(std::make_shared<arrow::Int64Scalar>(kMicrosPerSecond))});
}

Result<Datum> UnixTimestamp(const Expr& call, const std::vector<Datum>& args, const CallSignature&) {
  Datum ts = args[0];
  if (plan::IsStringType(*args[0].type())) {
    ARROW_ASSIGN_OR_RAISE(ts, ParseTimestampPattern(args[0], args.size() == 2 ? LiteralText(args[1]) : kDefaultFormat,
                                                    call.mode));
  }
  ARROW_ASSIGN_OR_RAISE(auto micros, Micros(ts));
  return TruncatedSeconds(micros);
}

Result<Datum> TimestampSeconds(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  if (args[0].type()->id() == arrow::Type::DOUBLE) {  // fractional seconds: truncated to microseconds
    ARROW_ASSIGN_OR_RAISE(auto scaled, Kernel("multiply", {args[0], Datum(std::make_shared<arrow::DoubleScalar>(1e6))}));
    ARROW_ASSIGN_OR_RAISE(auto whole, Kernel("trunc", {scaled}));
    arrow::compute::CastOptions options = arrow::compute::CastOptions::Unsafe(arrow::int64());
    ARROW_ASSIGN_OR_RAISE(auto micros, arrow::compute::Cast(whole, options));
    return AsTimestamp(micros);
  }
  ARROW_ASSIGN_OR_RAISE(auto micros, Kernel("multiply_checked", {args[0], Datum(std::make_shared<arrow::Int64Scalar>(kMicrosPerSecond))}));
  return AsTimestamp(micros);
}

Result<Datum> TimestampMillis(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto micros, Kernel("multiply_checked", {args[0], Datum(std::make_shared<arrow::Int64Scalar>(1000))}));
  return AsTimestamp(micros);
}

// make_date: an invalid field fails under ANSI and gives NULL otherwise, as Spark's.
Result<Datum> MakeDate(const Expr& call, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::Date32Builder>(rows, arrow::date32(), true, [&](int64_t row, arrow::Date32Builder* out) -> Status {
    const int64_t year = rows.Int(0, row), month = rows.Int(1, row), day = rows.Int(2, row);
    const char* bad = nullptr;
    if (year < -999999 || year > 999999) bad = "Year";
    else if (month < 1 || month > 12) bad = "MonthOfYear";
    else if (day < 1 || day > DaysInMonth(year, static_cast<int>(month))) bad = "DayOfMonth";
    if (bad) {
      if (call.mode == plan::EvalMode::kLegacy) return out->AppendNull();
      return Status::Invalid("[DATETIME_FIELD_OUT_OF_BOUNDS] Invalid value for ", bad, " in make_date(", year, ", ",
                             month, ", ", day, "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to "
                             "bypass this error.");
    }
    return out->Append(static_cast<int32_t>(DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day))));
  });
}

// make_timestamp: an invalid field fails under ANSI and gives NULL otherwise; second 60 (with
// no fraction) is the next minute, as Spark's.
Result<Datum> MakeTimestamp(const Expr& call, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make(args));
  return MapRows<arrow::TimestampBuilder>(rows, plan::DefaultTimestampType(), true,
                                          [&](int64_t row, arrow::TimestampBuilder* out) -> Status {
    const int64_t year = rows.Int(0, row), month = rows.Int(1, row), day = rows.Int(2, row);
    const int64_t hour = rows.Int(3, row), minute = rows.Int(4, row);
    const auto& secs = static_cast<const arrow::Decimal128Array&>(rows.array(5));
    const int64_t sec_micros = static_cast<int64_t>(arrow::Decimal128(secs.GetValue(row)));
    const char* bad = nullptr;
    if (month < 1 || month > 12) bad = "MonthOfYear";
    else if (day < 1 || day > DaysInMonth(year, static_cast<int>(month))) bad = "DayOfMonth";
    else if (hour < 0 || hour > 23) bad = "HourOfDay";
    else if (minute < 0 || minute > 59) bad = "MinuteOfHour";
    else if (sec_micros < 0 || sec_micros > 60 * kMicrosPerSecond ||
             (sec_micros >= 60 * kMicrosPerSecond && sec_micros % kMicrosPerSecond != 0)) bad = "SecondOfMinute";
    if (bad) {
      if (call.mode == plan::EvalMode::kLegacy) return out->AppendNull();
      return Status::Invalid("[DATETIME_FIELD_OUT_OF_BOUNDS] Invalid value for ", bad, " in make_timestamp(", year, ", ",
                             month, ", ", day, ", ", hour, ", ", minute, ", ", secs.FormatValue(row),
                             "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.");
    }
    const int64_t days = DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
    return out->Append(((days * 24 + hour) * 60 + minute) * 60 * kMicrosPerSecond + sec_micros);
  });
}

// to_utc_timestamp(ts, zone): ts read as a wall-clock time in `zone`, given in UTC;
// from_utc_timestamp(ts, zone): the wall-clock time in `zone` of the UTC instant ts.
Result<Datum> ShiftZone(const std::vector<Datum>& args, bool to_utc) {
  const std::string zone = LiteralText(args[1]);
  ARROW_ASSIGN_OR_RAISE(auto micros, Micros(args[0]));
  ARROW_ASSIGN_OR_RAISE(auto naive, arrow::compute::Cast(micros, arrow::timestamp(arrow::TimeUnit::MICRO)));
  Datum shifted;
  if (to_utc) {
    arrow::compute::AssumeTimezoneOptions options(zone, arrow::compute::AssumeTimezoneOptions::AMBIGUOUS_EARLIEST,
                                                  arrow::compute::AssumeTimezoneOptions::NONEXISTENT_LATEST);
    ARROW_ASSIGN_OR_RAISE(shifted, Kernel("assume_timezone", {naive}, &options));
  } else {
    ARROW_ASSIGN_OR_RAISE(auto zoned, arrow::compute::Cast(micros, arrow::timestamp(arrow::TimeUnit::MICRO, zone)));
    ARROW_ASSIGN_OR_RAISE(shifted, Kernel("local_timestamp", {zoned}));
  }
  ARROW_ASSIGN_OR_RAISE(auto raw, Micros(shifted));
  return AsTimestamp(raw);
}

Result<Datum> ToUtcTimestamp(const Expr&, const std::vector<Datum>& args, const CallSignature&) { return ShiftZone(args, true); }
Result<Datum> FromUtcTimestamp(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  return ShiftZone(args, false);
}

// `days` moved by `months` calendar months (clamped to the month's last day), then by `days`.
int64_t AddCalendar(int64_t days, int64_t months, int64_t plus_days) {
  if (months != 0) {
    const CivilDate c = CivilFromDays(days);
    const int64_t total = c.year * 12 + (c.month - 1) + months;
    const int64_t year = total >= 0 ? total / 12 : -((-total + 11) / 12);
    const int month = static_cast<int>(total - year * 12) + 1;
    days = DaysFromCivil(year, month, std::min(c.day, DaysInMonth(year, month)));
  }
  return days + plus_days;
}

// t + INTERVAL: months, then days, then microseconds (Spark's order), in UTC.
Result<Datum> AddInterval(const Expr&, const std::vector<Datum>& args, const CallSignature& sig) {
  auto part = [&](size_t i) { return static_cast<const arrow::Int64Scalar&>(*args[i].scalar()).value; };
  const int64_t months = part(1), plus_days = part(2), micros = part(3);
  if (sig.out->id() == arrow::Type::DATE32) {
    return DateAndCount({args[0], args[1]}, [&](int64_t d, int64_t) { return AddCalendar(d, months, plus_days); });
  }
  ARROW_ASSIGN_OR_RAISE(auto raw, Micros(args[0]));
  ARROW_ASSIGN_OR_RAISE(auto rows, RowArgs::Make({raw}));
  return MapRows<arrow::TimestampBuilder>(rows, sig.out, true, [&](int64_t row, arrow::TimestampBuilder* out) {
    constexpr int64_t kDay = 86400 * kMicrosPerSecond;
    const int64_t us = rows.Int(0, row);
    const int64_t day = us >= 0 ? us / kDay : -((-us + kDay - 1) / kDay);
    return out->Append(AddCalendar(day, months, plus_days) * kDay + (us - day * kDay) + micros);
  });
}

// The runner binds current_timestamp()/current_date() to the batch's time before planning
// (plan/current_time.h); reaching the kernel means a caller skipped that.
Result<arrow::Datum> UnboundCurrentTime(const plan::Expr& call, const std::vector<arrow::Datum>&,
                                        const plan::CallSignature&) {
  return Status::Invalid(call.name, "() was not bound to the batch timestamp: run the plan through a query or "
                         "ExecutePlan, which bind it (plan::BindCurrentTime)");
}

}  // namespace

std::vector<FunctionKernelEntry> DateTimeKernels() {
  return {{"to_date", ToDate},
          {"date_format", DateFormat},
          {"date_add", DateAdd},
          {"date_sub", DateSub},
          {"add_months", AddMonths},
          {"datediff", DateDiff},
          {"last_day", LastDay},
          {"unix_timestamp", UnixTimestamp},
          {"from_unixtime", FromUnixtime},
          {"timestamp_seconds", TimestampSeconds},
          {"timestamp_millis", TimestampMillis},
          {"make_timestamp", MakeTimestamp},
          {"make_date", MakeDate},
          {"to_utc_timestamp", ToUtcTimestamp},
          {"from_utc_timestamp", FromUtcTimestamp},
          {"add_interval", AddInterval},
          {"current_timestamp", UnboundCurrentTime},
          {"current_date", UnboundCurrentTime}};
}

}  // namespace sluice::exec::internal
