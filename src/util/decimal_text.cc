// Decimal text as Java's BigDecimal reads it (see decimal_text.h).
#include "util/decimal_text.h"

#include <limits>
#include <string>

namespace sluice::util {

DecimalText ParseDecimalText(std::string_view s, int32_t precision, int32_t scale, arrow::Decimal128* out) {
  size_t i = 0;
  const bool negative = i < s.size() && s[i] == '-';
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::string digits;
  int64_t frac_digits = 0;
  bool point = false, any = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (!(digits.empty() && c == '0')) digits.push_back(c);  // no leading zeros
      if (point) ++frac_digits;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!any) return DecimalText::kMalformed;
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    const bool exp_negative = i < s.size() && s[i] == '-';
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (i == s.size()) return DecimalText::kMalformed;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      exponent = exponent * 10 + (s[i] - '0');
      if (exponent > std::numeric_limits<int32_t>::max()) return DecimalText::kMalformed;  // as Java
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != s.size()) return DecimalText::kMalformed;
  // value = digits * 10^-text_scale; the result keeps `scale` fractional digits.
  const int64_t text_scale = frac_digits - exponent;
  if (text_scale > scale) {
    const int64_t drop = text_scale - scale;
    const int64_t keep = static_cast<int64_t>(digits.size()) - drop;
    bool up = false;
    if (keep < 0) {
      digits.clear();
    } else {
      up = static_cast<size_t>(keep) < digits.size() && digits[keep] >= '5';
      digits.resize(keep);
    }
    if (up) {
      size_t k = digits.size();
      while (k > 0 && digits[k - 1] == '9') digits[--k] = '0';
      if (k == 0) {
        digits.insert(digits.begin(), '1');
      } else {
        ++digits[k - 1];
      }
    }
  } else if (!digits.empty()) {
    const int64_t pad = scale - text_scale;
    if (static_cast<int64_t>(digits.size()) + pad > precision) return DecimalText::kOutOfRange;
    digits.append(pad, '0');
  }
  if (static_cast<int64_t>(digits.size()) > precision) return DecimalText::kOutOfRange;
  if (digits.empty()) {
    *out = arrow::Decimal128(0);
    return DecimalText::kOk;
  }
  auto v = arrow::Decimal128::FromString(digits);
  if (!v.ok()) return DecimalText::kMalformed;
  *out = negative ? -*v : *v;
  return DecimalText::kOk;
}


}  // namespace sluice::util
