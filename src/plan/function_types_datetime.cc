// Typing of the date and time functions. Dates are DATE (days), timestamps TIMESTAMP (micro-
// seconds, UTC); text arguments are read as a date or timestamp the way CAST reads them, and
// format patterns (Spark's datetime letters) and time zones are literals.
#include <arrow/api.h>

#include "plan/function_registry.h"
#include "util/calendar.h"

namespace sluice::plan {
namespace {

using DataTypePtr = std::shared_ptr<arrow::DataType>;

Status TimeInput(const Expr& call, const arrow::FieldVector& args, size_t i) {
  const auto& t = *args[i]->type();
  if (IsTemporalType(t) || IsStringType(t) || IsNullType(t)) return Status::OK();
  return TypeMismatch(call.name, call, {args[i]});
}

// Reading text as a date or timestamp may fail (NULL, or an error under ANSI).
bool MayFail(const arrow::FieldVector& args, size_t i) {
  return args[i]->nullable() || IsStringType(*args[i]->type());
}

Status PatternArg(const Expr& call, size_t i) {
  ARROW_ASSIGN_OR_RAISE(auto pattern, LiteralArg(call, i, IsStringType, "string"));
  return SparkPatternToStrptime(pattern->ToString()).status();
}

// to_date(x[, format]).
Result<CallSignature> ToDate(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 0));
  CallSignature sig{{IsNullType(*args[0]->type()) ? arrow::utf8() : args[0]->type()}, arrow::date32(), MayFail(args, 0)};
  if (args.size() == 2) {
    ARROW_RETURN_NOT_OK(PatternArg(call, 1));
    ARROW_RETURN_NOT_OK(StringArg(call, args, 0).status());
    sig.arg_types = {arrow::utf8(), arrow::utf8()};
  }
  return sig;
}

// Formatting patterns (date_format, from_unixtime) accept more letters than parsing ones.
Status FormatArg(const Expr& call, size_t i) {
  ARROW_ASSIGN_OR_RAISE(auto pattern, LiteralArg(call, i, IsStringType, "string"));
  return util::TimestampFormat::Compile(pattern->ToString()).status();
}

Result<CallSignature> DateFormat(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 0));
  ARROW_RETURN_NOT_OK(FormatArg(call, 1));
  return CallSignature{{DefaultTimestampType(), arrow::utf8()}, arrow::utf8(), MayFail(args, 0)};
}

// date_add(d, n), date_sub(d, n), add_months(d, n).
Result<CallSignature> DatePlusCount(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 0));
  ARROW_RETURN_NOT_OK(IntegerArg(call, args, 1));
  return CallSignature{{arrow::date32(), arrow::int64()}, arrow::date32(), MayFail(args, 0) || args[1]->nullable()};
}

Result<CallSignature> DateDiff(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 0));
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 1));
  return CallSignature{{arrow::date32(), arrow::date32()}, arrow::int32(), MayFail(args, 0) || MayFail(args, 1)};
}

Result<CallSignature> LastDay(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 0));
  return CallSignature{{arrow::date32()}, arrow::date32(), MayFail(args, 0)};
}

// unix_timestamp(x[, format]): seconds since the epoch; text is read with the format
// (default 'yyyy-MM-dd HH:mm:ss'). The no-argument form (the current time) is refused: a re-run
// batch must give the same rows.
Result<CallSignature> UnixTimestamp(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 0));
  if (args.size() == 2) ARROW_RETURN_NOT_OK(PatternArg(call, 1));
  const auto& t = *args[0]->type();
  DataTypePtr in = IsTemporalType(t) ? DefaultTimestampType() : arrow::utf8();
  CallSignature sig{{in}, arrow::int64(), MayFail(args, 0)};
  if (args.size() == 2) sig.arg_types.push_back(arrow::utf8());
  return sig;
}

Result<CallSignature> FromUnixtime(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(IntegerArg(call, args, 0));
  CallSignature sig{{arrow::int64()}, arrow::utf8(), args[0]->nullable()};
  if (args.size() == 2) {
    ARROW_RETURN_NOT_OK(FormatArg(call, 1));
    sig.arg_types.push_back(arrow::utf8());
  }
  return sig;
}

// timestamp_seconds(n) (integer or fractional), timestamp_millis(n) (integer).
Result<CallSignature> TimestampFromNumber(const Expr& call, const arrow::FieldVector& args) {
  const auto& t = *args[0]->type();
  bool seconds = call.name == "timestamp_seconds";
  if (!(IsIntegerType(t) || IsNullType(t) || (seconds && IsNumericType(t)))) return TypeMismatch(call.name, call, args);
  DataTypePtr in = IsIntegerType(t) || IsNullType(t) ? arrow::int64() : arrow::float64();
  return CallSignature{{in}, DefaultTimestampType(), args[0]->nullable()};
}

// make_timestamp(year, month, day, hour, min, sec): sec is DECIMAL(16,6) (microseconds).
Result<CallSignature> MakeTimestamp(const Expr& call, const arrow::FieldVector& args) {
  CallSignature sig{{}, DefaultTimestampType(), true};
  for (size_t i = 0; i < 5; ++i) {
    ARROW_RETURN_NOT_OK(IntegerArg(call, args, i));
    sig.arg_types.push_back(arrow::int64());
  }
  if (!IsNumericType(*args[5]->type()) && !IsNullType(*args[5]->type())) return TypeMismatch(call.name, call, {args[5]});
  sig.arg_types.push_back(arrow::decimal128(16, 6));
  return sig;
}

// make_date(year, month, day).
Result<CallSignature> MakeDate(const Expr& call, const arrow::FieldVector& args) {
  CallSignature sig{{}, arrow::date32(), true};
  for (size_t i = 0; i < 3; ++i) {
    ARROW_RETURN_NOT_OK(IntegerArg(call, args, i));
    sig.arg_types.push_back(arrow::int64());
  }
  return sig;
}

// to_utc_timestamp(ts, zone), from_utc_timestamp(ts, zone): zone is an IANA name literal.
Result<CallSignature> ShiftZone(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 0));
  ARROW_RETURN_NOT_OK(LiteralArg(call, 1, IsStringType, "string").status());
  return CallSignature{{DefaultTimestampType(), arrow::utf8()}, DefaultTimestampType(), MayFail(args, 0)};
}

// add_interval(t, months, days, micros): t + INTERVAL ... (the SQL layer folds the interval
// literal into three integer literals). A date plus whole months and days stays a date (Spark's
// DateAddYMInterval / DateAdd); anything with a time part gives a timestamp.
Result<CallSignature> AddInterval(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(TimeInput(call, args, 0));
  CallSignature sig{{}, DefaultTimestampType(), MayFail(args, 0)};
  int64_t micros = 0;
  for (size_t i = 1; i < 4; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto lit, LiteralArg(call, i, IsIntegerType, "integer"));
    ARROW_ASSIGN_OR_RAISE(auto as64, lit->CastTo(arrow::int64()));
    if (i == 3) micros = static_cast<const arrow::Int64Scalar&>(*as64).value;
    sig.arg_types.push_back(arrow::int64());
  }
  const bool date = args[0]->type()->id() == arrow::Type::DATE32 && micros == 0;
  sig.out = date ? arrow::date32() : DefaultTimestampType();
  sig.arg_types.insert(sig.arg_types.begin(), sig.out);
  return sig;
}

// current_timestamp(), current_date(): never NULL; bound to the batch's time before the plan
// runs (plan/current_time.h).
Result<CallSignature> CurrentTimestamp(const Expr&, const arrow::FieldVector&) {
  return CallSignature{{}, DefaultTimestampType(), false};
}
Result<CallSignature> CurrentDate(const Expr&, const arrow::FieldVector&) {
  return CallSignature{{}, arrow::date32(), false};
}

}  // namespace

std::vector<FunctionTyping> DateTimeFunctionTypings() {
  return {
      {"to_date", 1, 2, "to_date(x[, format])", ToDate},
      {"date_format", 2, 2, "date_format(ts, format)", DateFormat},
      {"date_add", 2, 2, "date_add(date, days)", DatePlusCount},
      {"date_sub", 2, 2, "date_sub(date, days)", DatePlusCount},
      {"add_months", 2, 2, "add_months(date, months)", DatePlusCount},
      {"datediff", 2, 2, "datediff(end, start)", DateDiff},
      {"last_day", 1, 1, "last_day(date)", LastDay},
      {"unix_timestamp", 1, 2, "unix_timestamp(x[, format])", UnixTimestamp},
      {"from_unixtime", 1, 2, "from_unixtime(seconds[, format])", FromUnixtime},
      {"timestamp_seconds", 1, 1, "timestamp_seconds(n)", TimestampFromNumber},
      {"timestamp_millis", 1, 1, "timestamp_millis(n)", TimestampFromNumber},
      {"make_timestamp", 6, 6, "make_timestamp(year, month, day, hour, min, sec)", MakeTimestamp},
      {"make_date", 3, 3, "make_date(year, month, day)", MakeDate},
      {"to_utc_timestamp", 2, 2, "to_utc_timestamp(ts, zone)", ShiftZone},
      {"from_utc_timestamp", 2, 2, "from_utc_timestamp(ts, zone)", ShiftZone},
      {"add_interval", 4, 4, "t + INTERVAL ...", AddInterval},
      {"current_timestamp", 0, 0, "current_timestamp()", CurrentTimestamp},
      {"current_date", 0, 0, "current_date()", CurrentDate},
  };
}

}  // namespace sluice::plan
