#include "sql/sql_interval.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "util/strings.h"

namespace sluice::sql {
namespace {

Status Bad(const std::string& text, const std::string& why) {
  return Status::Invalid("invalid interval literal '", text, "': ", why,
                         " (write e.g. INTERVAL '1' HOUR or INTERVAL '1 hour 30 minutes')");
}

// Adds `n` of `unit` to `out`; false for an unknown unit.
bool AddUnit(double n, std::string unit, IntervalValue* out) {
  unit = util::ToLower(unit);
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  constexpr int64_t kSecond = 1000000;
  if (unit == "year") out->months += static_cast<int64_t>(n * 12);
  else if (unit == "month") out->months += static_cast<int64_t>(n);
  else if (unit == "week") out->days += static_cast<int64_t>(n * 7);
  else if (unit == "day") out->days += static_cast<int64_t>(n);
  else if (unit == "hour") out->micros += static_cast<int64_t>(std::llround(n * 3600 * kSecond));
  else if (unit == "minute") out->micros += static_cast<int64_t>(std::llround(n * 60 * kSecond));
  else if (unit == "second") out->micros += static_cast<int64_t>(std::llround(n * kSecond));
  else if (unit == "millisecond") out->micros += static_cast<int64_t>(std::llround(n * 1000));
  else if (unit == "microsecond") out->micros += static_cast<int64_t>(std::llround(n));
  else return false;
  return true;
}

}  // namespace

Result<IntervalValue> ParseInterval(const std::string& text, const std::string& default_unit) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) return Bad(text, "it is empty");
  if (words.size() == 1 && !default_unit.empty()) words.push_back(default_unit);
  if (words.size() % 2 != 0) return Bad(text, "expected pairs of a number and a unit");
  IntervalValue out;
  for (size_t i = 0; i < words.size(); i += 2) {
    char* end = nullptr;
    const double n = std::strtod(words[i].c_str(), &end);
    if (end == words[i].c_str() || *end != '\0' || !std::isfinite(n)) return Bad(text, "'" + words[i] + "' is not a number");
    if (!AddUnit(n, words[i + 1], &out)) return Bad(text, "unknown unit '" + words[i + 1] + "'");
  }
  return out;
}

}  // namespace sluice::sql
