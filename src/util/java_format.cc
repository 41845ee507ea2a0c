#include "util/java_format.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace sluice::util {
namespace {

Status BadSpec(const std::string& pattern, const std::string& spec, const std::string& why) {
  return Status::Invalid("format_string: the format specifier '", spec, "' in '", pattern, "' ", why);
}

bool Has(const JavaFormatSpec& s, char flag) { return s.flags.find(flag) != std::string::npos; }

// Pads `body` to the spec's width: spaces on the left, or on the right with '-'.
void AppendPadded(const JavaFormatSpec& s, const std::string& body, std::string* out) {
  const size_t width = s.width < 0 ? 0 : static_cast<size_t>(s.width);
  if (body.size() >= width) {
    *out += body;
  } else if (Has(s, '-')) {
    *out += body;
    out->append(width - body.size(), ' ');
  } else {
    out->append(width - body.size(), ' ');
    *out += body;
  }
}

// The C printf spec of a Java integer or floating conversion (the flags mean the same there).
std::string CSpec(const JavaFormatSpec& s, const char* length, char conversion) {
  std::string f = "%" + s.flags;
  if (s.width >= 0) f += std::to_string(s.width);
  if (s.precision >= 0) f += "." + std::to_string(s.precision);
  return f + length + conversion;
}

template <typename T>
std::string CFormat(const std::string& spec, T v) {
  const int n = std::snprintf(nullptr, 0, spec.c_str(), v);
  std::string buf(static_cast<size_t>(std::max(n, 0)) + 1, '\0');
  std::snprintf(buf.data(), buf.size(), spec.c_str(), v);
  buf.resize(static_cast<size_t>(std::max(n, 0)));
  return buf;
}

std::string Upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// Adds one unit at the last digit of the decimal digit string `digits`; true on a carry out.
bool Increment(std::string* digits) {
  for (size_t i = digits->size(); i-- > 0;) {
    if ((*digits)[i] == '9') {
      (*digits)[i] = '0';
    } else {
      ++(*digits)[i];
      return false;
    }
  }
  return true;
}

// Java's %f / %e of a finite |v|: the shortest decimal digits that read back as v (as
// Double.toString), rounded half up to the precision — not C's rounding of the binary value
// (Java: %.2f of 100.125 is 100.13, %.1f of 0.15 is 0.2).
std::string JavaFixedOrScientific(double v, int precision, bool scientific) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), std::fabs(v), std::chars_format::scientific);
  const std::string sci(buf, r.ptr);  // d[.ddd]e[+-]XX
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, 1) + (e > 2 ? sci.substr(2, e - 2) : "");
  int exp10 = std::stoi(sci.substr(e + 1));  // value = d.ddd x 10^exp10
  if (digits.find_first_not_of('0') == std::string::npos) exp10 = 0;
  if (scientific) {
    const size_t keep = static_cast<size_t>(precision) + 1;
    if (digits.size() > keep) {
      const bool up = digits[keep] >= '5';
      digits.resize(keep);
      if (up && Increment(&digits)) {
        digits.insert(digits.begin(), '1');
        digits.pop_back();
        ++exp10;
      }
    }
    digits.resize(keep, '0');
    std::string out = digits.substr(0, 1);
    if (precision > 0) out += "." + digits.substr(1);
    const int a = std::abs(exp10);
    return out + (exp10 < 0 ? "e-" : "e+") + (a < 10 ? "0" : "") + std::to_string(a);
  }
  // Fixed: the integer digits and the fraction digits of the exact decimal text.
  std::string whole, frac;
  if (exp10 >= 0) {
    const size_t n = static_cast<size_t>(exp10) + 1;
    whole = digits.size() > n ? digits.substr(0, n) : digits + std::string(n - digits.size(), '0');
    frac = digits.size() > n ? digits.substr(n) : "";
  } else {
    whole = "0";
    frac = std::string(static_cast<size_t>(-exp10 - 1), '0') + digits;
  }
  const size_t p = static_cast<size_t>(precision);
  if (frac.size() > p) {
    const bool up = frac[p] >= '5';
    frac.resize(p);
    std::string all = whole + frac;
    if (up && Increment(&all)) all.insert(all.begin(), '1');
    whole = all.substr(0, all.size() - p);
    frac = all.substr(all.size() - p);
  }
  frac.resize(p, '0');
  return p > 0 ? whole + "." + frac : whole;
}

}  // namespace

Result<std::vector<JavaFormatSpec>> ParseJavaFormat(const std::string& pattern) {
  std::vector<JavaFormatSpec> out;
  JavaFormatSpec text;
  int next_arg = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      text.text += pattern[i];
      continue;
    }
    const size_t start = i++;
    JavaFormatSpec s;
    // [index$]: digits followed by '$'.
    size_t j = i;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) ++j;
    if (j > i && j < pattern.size() && pattern[j] == '$') {
      s.arg = std::stoi(pattern.substr(i, j - i)) - 1;
      i = j + 1;
    }
    while (i < pattern.size() && std::string("-+ 0#,(<").find(pattern[i]) != std::string::npos) s.flags += pattern[i++];
    j = i;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) ++j;
    if (j > i) s.width = std::stoi(pattern.substr(i, j - i));
    i = j;
    if (i < pattern.size() && pattern[i] == '.') {
      j = ++i;
      while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j]))) ++j;
      if (j == i) return BadSpec(pattern, pattern.substr(start, j - start + 1), "has a '.' without a precision");
      s.precision = std::stoi(pattern.substr(i, j - i));
      i = j;
    }
    if (i >= pattern.size()) return BadSpec(pattern, pattern.substr(start), "has no conversion character");
    const std::string spec = pattern.substr(start, i - start + 1);
    s.conversion = pattern[i];
    if (s.conversion == '%' || s.conversion == 'n') {
      text.text += s.conversion == '%' ? "%" : "\n";
      continue;
    }
    for (char bad : {',', '(', '<'}) {
      if (Has(s, bad)) return BadSpec(pattern, spec, std::string("uses the flag '") + bad + "', which is not supported");
    }
    switch (s.conversion) {
      case 's': case 'S': s.kind = JavaFormatSpec::Kind::kString; break;
      case 'd': case 'x': case 'X': case 'o': s.kind = JavaFormatSpec::Kind::kInteger; break;
      case 'f': case 'e': case 'E': case 'g': case 'G': s.kind = JavaFormatSpec::Kind::kFloating; break;
      case 'b': case 'B': s.kind = JavaFormatSpec::Kind::kBoolean; break;
      default:
        return BadSpec(pattern, spec, "has an unsupported conversion; use one of s S d x X o f e E g G b B %% n");
    }
    if ((Has(s, '-') || Has(s, '0')) && s.width < 0) return BadSpec(pattern, spec, "needs a width with '-' or '0'");
    if (s.kind == JavaFormatSpec::Kind::kInteger && s.precision >= 0) {
      return BadSpec(pattern, spec, "gives a precision, which integer conversions do not take");
    }
    if (s.arg < 0) s.arg = next_arg++;
    if (!text.text.empty()) out.push_back(std::move(text));
    text = JavaFormatSpec{};
    out.push_back(std::move(s));
  }
  if (!text.text.empty()) out.push_back(std::move(text));
  return out;
}

void AppendJavaString(const JavaFormatSpec& s, const std::optional<std::string>& v, std::string* out) {
  std::string body = v ? *v : (s.kind == JavaFormatSpec::Kind::kBoolean ? "false" : "null");
  if (s.precision >= 0 && body.size() > static_cast<size_t>(s.precision)) body.resize(static_cast<size_t>(s.precision));
  if (std::isupper(static_cast<unsigned char>(s.conversion))) body = Upper(body);
  AppendPadded(s, body, out);
}

// Java prints null as the text "null" under any conversion: the precision cuts it ("%.1f" ->
// "n"), the width pads it with spaces.
void AppendJavaNull(const JavaFormatSpec& s, std::string* out) { AppendJavaString(s, std::nullopt, out); }

void AppendJavaInteger(const JavaFormatSpec& s, int64_t v, std::string* out) {
  if (s.conversion == 'd') {
    *out += CFormat(CSpec(s, "ll", 'd'), static_cast<long long>(v));
  } else {  // x X o: Java prints a negative long as its two's complement
    *out += CFormat(CSpec(s, "ll", s.conversion), static_cast<unsigned long long>(v));
  }
}

void AppendJavaFloating(const JavaFormatSpec& s, double v, std::string* out) {
  if (std::isnan(v) || std::isinf(v)) {  // Java: NaN, Infinity, -Infinity (no zero padding)
    JavaFormatSpec plain = s;
    plain.precision = -1;
    std::string body = std::isnan(v) ? "NaN" : v > 0 ? (Has(s, '+') ? "+Infinity" : "Infinity") : "-Infinity";
    AppendJavaString(plain, std::isupper(static_cast<unsigned char>(s.conversion)) ? Upper(body) : body, out);
    return;
  }
  if (s.conversion == 'g' || s.conversion == 'G') {
    JavaFormatSpec c = s;
    if (!Has(c, '#')) c.flags += '#';  // Java's %g keeps trailing zeros (C's needs '#' for that)
    *out += CFormat(CSpec(c, "", s.conversion), v);
    return;
  }
  std::string body = JavaFixedOrScientific(v, s.precision < 0 ? 6 : s.precision, s.conversion != 'f');
  if (s.conversion == 'E') body = Upper(body);
  const std::string sign = std::signbit(v) ? "-" : Has(s, '+') ? "+" : Has(s, ' ') ? " " : "";
  if (Has(s, '0') && s.width >= 0 && sign.size() + body.size() < static_cast<size_t>(s.width)) {
    body.insert(0, static_cast<size_t>(s.width) - sign.size() - body.size(), '0');
  }
  AppendPadded(s, sign + body, out);
}

}  // namespace sluice::util
