// Interval literals in the spellings Spark and PostgreSQL users write: INTERVAL '1' HOUR,
// INTERVAL '1 hour 30 minutes', INTERVAL '2' DAY, INTERVAL '3' MONTH, and (rewritten before
// parsing, sql_spark_spelling.h) Spark's unquoted INTERVAL 1 HOUR.
#pragma once

#include <cstdint>
#include <string>

#include "sluice/status.h"

namespace sluice::sql {

/// An interval as Spark's CalendarInterval: months, days and microseconds, each signed.
struct IntervalValue {
  int64_t months = 0;
  int64_t days = 0;
  int64_t micros = 0;
};

/// Parses "<n> <unit> [<n> <unit> ...]" (units year, month, week, day, hour, minute, second,
/// millisecond, microsecond, singular or plural, any case; n may be negative or, for seconds,
/// fractional). A bare number takes `default_unit` when it is not empty. Errors quote the text.
Result<IntervalValue> ParseInterval(const std::string& text, const std::string& default_unit = "");

}  // namespace sluice::sql
