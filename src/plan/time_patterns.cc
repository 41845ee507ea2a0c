// Spark datetime patterns -> strptime formats, and date_trunc unit names.
#include <arrow/api.h>

#include <cctype>

#include "plan/expr_resolve.h"

namespace sluice::plan {

Result<std::string> SparkPatternToStrptime(const std::string& pattern) {
  std::string out;
  size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    if (c == '\'') {  // quoted literal text; '' is a single quote
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '\'') {
        out += '\'';
        i += 2;
        continue;
      }
      while (j < pattern.size()) {
        if (pattern[j] == '\'' && j + 1 < pattern.size() && pattern[j + 1] == '\'') {
          out += '\'';
          j += 2;
        } else if (pattern[j] == '\'') {
          break;
        } else {
          out += pattern[j] == '%' ? std::string("%%") : std::string(1, pattern[j]);
          ++j;
        }
      }
      if (j >= pattern.size()) return Status::Invalid("Unclosed quote in datetime pattern '", pattern, "'");
      i = j + 1;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      out += c == '%' ? std::string("%%") : std::string(1, c);
      ++i;
      continue;
    }
    size_t run = 1;
    while (i + run < pattern.size() && pattern[i + run] == c) ++run;
    std::string spec;
    switch (c) {
      case 'y': case 'u': spec = run == 2 ? "%y" : "%Y"; break;
      case 'M': case 'L': spec = run >= 4 ? "%B" : run == 3 ? "%b" : "%m"; break;
      case 'd': spec = "%d"; break;
      case 'H': spec = "%H"; break;
      case 'h': spec = "%I"; break;
      case 'm': spec = "%M"; break;
      case 's': spec = "%S"; break;
      case 'a': spec = "%p"; break;
      case 'E': spec = run >= 4 ? "%A" : "%a"; break;
      case 'D': spec = "%j"; break;
      case 'X': case 'x': case 'Z': spec = "%z"; break;
      default:
        return Status::Invalid("Unsupported letter '", std::string(run, c), "' in datetime pattern '", pattern,
                               "' (supported: y M d H h m s a E D X Z and quoted text; for fractions of a second "
                               "use to_timestamp without a format on ISO-8601 text)");
    }
    out += spec;
    i += run;
  }
  return out;
}

bool TruncateFractionToMicros(std::string* text) {
  const size_t dot = text->find('.');
  if (dot == std::string::npos) return false;
  size_t end = dot + 1;
  while (end < text->size() && std::isdigit(static_cast<unsigned char>((*text)[end]))) ++end;
  if (end - dot - 1 <= 6) return false;
  text->erase(dot + 7, end - dot - 7);
  return true;
}

Result<std::string> NormalizeTruncUnit(const std::string& unit) {
  std::string u;
  for (char c : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (u == "year" || u == "yyyy" || u == "yy") return std::string("year");
  if (u == "quarter") return std::string("quarter");
  if (u == "month" || u == "mon" || u == "mm") return std::string("month");
  if (u == "week") return std::string("week");
  if (u == "day" || u == "dd") return std::string("day");
  if (u == "hour") return std::string("hour");
  if (u == "minute") return std::string("minute");
  if (u == "second") return std::string("second");
  return Status::Invalid("Unknown date_trunc unit '", unit,
                         "'. Valid units: year, quarter, month, week, day, hour, minute, second");
}

}  // namespace sluice::plan
