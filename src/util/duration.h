// The one parser for durations written by users: source options (maxFileAge, rampUpTime), window
// sizes and watermark delays, triggers, and the CLI's --older-than.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <string_view>

namespace sluice::util {

/// "7d", "12h", "30 min", "10s", "500ms", "2 days", "1 week" -> milliseconds. Units are
/// case-insensitive, a space before the unit is allowed, a bare number is milliseconds. Errors
/// name `what` (the option or flag) and the text, including a value too large for int64.
arrow::Result<int64_t> ParseDurationMs(std::string_view what, std::string_view text);

}  // namespace sluice::util
