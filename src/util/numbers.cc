#include "util/numbers.h"

#include <arrow/status.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>

#include "util/strings.h"

namespace sluice::util {
namespace {

template <typename T>
arrow::Result<T> ParseInteger(std::string_view text, std::string_view what, const char* type_name) {
  T v{};
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range) {
    return arrow::Status::Invalid(what, ": '", text, "' is out of range for a ", type_name);
  }
  if (text.empty() || ec != std::errc() || p != end) {
    return arrow::Status::Invalid(what, ": '", text, "' is not an integer");
  }
  return v;
}

// How a unit is written in messages: its first non-empty spelling.
std::string UnitName(const ScaleUnit& u) {
  for (const auto& n : u.names) {
    if (!n.empty()) return n;
  }
  return "";
}

}  // namespace

arrow::Result<int64_t> ParseInt64(std::string_view text, std::string_view what) {
  return ParseInteger<int64_t>(text, what, "64-bit integer");
}

arrow::Result<int32_t> ParseInt32(std::string_view text, std::string_view what) {
  return ParseInteger<int32_t>(text, what, "32-bit integer");
}

arrow::Result<double> ParseDouble(std::string_view text, std::string_view what) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc::result_out_of_range) {
    return arrow::Status::Invalid(what, ": '", text, "' is out of range for a double");
  }
  if (text.empty() || ec != std::errc() || p != end) {
    return arrow::Status::Invalid(what, ": '", text, "' is not a number");
  }
  return v;
}

std::optional<int64_t> CheckedMultiply(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

arrow::Result<int64_t> ParseScaled(std::string_view text, const std::vector<ScaleUnit>& units, std::string_view what,
                                   std::string_view expected) {
  const std::string t = ToLower(Trim(text));
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  const std::string unit = Trim(std::string_view(t).substr(digits));
  auto bad = [&] {
    return arrow::Status::Invalid("Invalid value '", text, "' for option '", what, "', must be ", expected);
  };
  auto it = std::find_if(units.begin(), units.end(), [&](const ScaleUnit& u) {
    return std::find(u.names.begin(), u.names.end(), unit) != u.names.end();
  });
  if (digits == 0 || it == units.end()) return bad();
  int64_t n = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + digits, n);
  std::optional<int64_t> scaled;
  if (ec == std::errc()) scaled = CheckedMultiply(n, it->multiplier);
  if (!scaled) {
    return arrow::Status::Invalid("Invalid value '", text, "' for option '", what, "': too large (at most ",
                                  std::numeric_limits<int64_t>::max() / it->multiplier, " ", UnitName(*it), ")");
  }
  return *scaled;
}

}  // namespace sluice::util
