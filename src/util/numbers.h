// Checked number parsing for text that comes from outside: CLI arguments, options, environment
// variables, files on disk. Unlike std::stoi/stoll/stod these never throw: empty or malformed
// text, trailing characters and values out of the type's range are errors whose message starts
// with `what` (the option, flag, file or field the text came from) and quotes the text.
#pragma once

#include <arrow/result.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::util {

/// The whole of `text` as a base-10 integer (an optional leading '-', no spaces).
arrow::Result<int64_t> ParseInt64(std::string_view text, std::string_view what);
arrow::Result<int32_t> ParseInt32(std::string_view text, std::string_view what);

/// The whole of `text` as a decimal or scientific floating-point number ("1.5", "-2e10"; also
/// "inf" and "nan" as std::from_chars reads them). Out of range (e.g. "1e999") is an error.
arrow::Result<double> ParseDouble(std::string_view text, std::string_view what);

/// `a * b`, or nullopt when the product does not fit in int64.
std::optional<int64_t> CheckedMultiply(int64_t a, int64_t b);

/// One unit of a scaled number: the lower-case spellings it is written with ("" for a bare
/// number) and what one of it is worth.
struct ScaleUnit {
  std::vector<std::string> names;
  int64_t multiplier;
};

/// "<digits>[spaces]<unit>" -> digits * the unit's multiplier, case-insensitive, surrounding
/// whitespace ignored. Errors read "Invalid value '<text>' for option '<what>', must be
/// <expected>", or say that the value is too large when it does not fit in int64.
arrow::Result<int64_t> ParseScaled(std::string_view text, const std::vector<ScaleUnit>& units, std::string_view what,
                                   std::string_view expected);

}  // namespace sluice::util
