#include "api/option_text.h"

#include <charconv>
#include <cmath>

namespace sluice::api {

std::string OptionText(bool value) { return value ? "true" : "false"; }

std::string OptionText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  // Java's Double.toString: plain digits with at least one fraction digit for 1e-3 <= |v| < 1e7,
  // otherwise computerized scientific notation ("1.0E20").
  const double mag = std::fabs(value);
  char buf[64];
  if (mag == 0 || (mag >= 1e-3 && mag < 1e7)) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed);
    std::string out(buf, end);
    if (out.find('.') == std::string::npos) out += ".0";
    return out;
  }
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string out(buf, end);  // e.g. "1e+20", "1.5e-05"
  const auto e = out.find('e');
  std::string mantissa = out.substr(0, e);
  std::string exponent = out.substr(e + 1);
  if (mantissa.find('.') == std::string::npos) mantissa += ".0";
  if (exponent[0] == '+') exponent.erase(0, 1);
  const bool negative = exponent[0] == '-';
  if (negative) exponent.erase(0, 1);
  exponent.erase(0, std::min(exponent.find_first_not_of('0'), exponent.size() - 1));
  return mantissa + "E" + (negative ? "-" : "") + exponent;
}

}  // namespace sluice::api
