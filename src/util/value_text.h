// Text forms of Arrow values the way Spark writes them, shared by the JSON and CSV file sinks
// (Spark's JSON/CSV generators), the console sink (Spark's show()) and to_json (util/json_text.h). One place, so the same
// value prints the same in every sink.
#pragma once

#include <arrow/array.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <string>

#include "sluice/status.h"

namespace sluice::util {

/// Java's Double.toString: "1.0", "0.001", "1.0E7", "1.5E-4", "NaN", "Infinity", "-0.0".
std::string FormatDoubleJava(double v);
/// Java's Float.toString (shortest digits of the float, same layout as doubles).
std::string FormatFloatJava(float v);
/// "yyyy-MM-dd" for days since the epoch.
std::string FormatDate(int32_t days_since_epoch);

enum class TimestampStyle {
  /// JSON/CSV files (Spark's default timestampFormat yyyy-MM-dd'T'HH:mm:ss.SSSXXX):
  /// "2024-01-02T03:04:05.000Z" — milliseconds always, micro/nanoseconds when non-zero;
  /// "Z" when the type has a time zone (values are UTC instants), no suffix for a naive
  /// timestamp (Spark's TIMESTAMP_NTZ).
  kIso,
  /// show(): "2024-01-02 03:04:05" plus the fraction without trailing zeros, in UTC.
  kShow,
};
/// `value` in `unit` since the epoch.
std::string FormatTimestamp(int64_t value, arrow::TimeUnit::type unit, bool has_zone, TimestampStyle style);

/// Appends `s` as a JSON string literal (quotes included).
void AppendJsonString(const std::string_view& s, std::string* out);

/// A cell as show() prints it before truncation: NULL, numbers as Java prints them, dates and
/// timestamps in kShow style, binary as "[0A FF]", lists "[a, b]", structs "{a, b}",
/// maps "{k -> v}". Error naming the type when it has no text form here.
Result<std::string> FormatShowCell(const arrow::Array& array, int64_t i);

}  // namespace sluice::util
