// Civil dates from day numbers (Howard Hinnant's algorithms) and Spark pattern formatting.
#include "util/calendar.h"

#include <algorithm>
#include <cctype>

namespace sluice::util {

CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (month <= 2), month, day};
}

int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t yoe = year - era * 400;
  const int64_t doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int DaysInMonth(int64_t year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

Result<TimestampFormat> TimestampFormat::Compile(const std::string& pattern) {
  TimestampFormat format;
  for (size_t i = 0; i < pattern.size();) {
    const char c = pattern[i];
    if (c == '\'') {  // quoted text; '' is a quote
      std::string text;
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '\'') {
        format.tokens_.push_back({0, 0, "'"});
        i += 2;
        continue;
      }
      for (; j < pattern.size(); ++j) {
        if (pattern[j] == '\'' && j + 1 < pattern.size() && pattern[j + 1] == '\'') {
          text += '\'';
          ++j;
        } else if (pattern[j] == '\'') {
          break;
        } else {
          text += pattern[j];
        }
      }
      if (j >= pattern.size()) return Status::Invalid("Unclosed quote in datetime pattern '", pattern, "'");
      format.tokens_.push_back({0, 0, text});
      i = j + 1;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(c))) {
      format.tokens_.push_back({0, 0, std::string(1, c)});
      ++i;
      continue;
    }
    size_t run = 1;
    while (i + run < pattern.size() && pattern[i + run] == c) ++run;
    if (std::string("yMdHhmsSaED").find(c) == std::string::npos) {
      return Status::Invalid("Unsupported letter '", std::string(run, c), "' in datetime pattern '", pattern,
                             "' (supported: y M d H h m s S a E D and quoted text)");
    }
    format.tokens_.push_back({c, static_cast<int>(run), ""});
    i += run;
  }
  return format;
}

namespace {

std::string Padded(int64_t v, int width) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  if (static_cast<int>(digits.size()) < width) digits.insert(0, width - digits.size(), '0');
  return (v < 0 ? "-" : "") + digits;
}

}  // namespace

std::string TimestampFormat::Format(int64_t micros) const {
  static const char* kMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                  "July",    "August",   "September", "October", "November", "December"};
  static const char* kDays[] = {"Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"};
  constexpr int64_t kDay = 86400LL * 1000000;
  const int64_t days = micros >= 0 ? micros / kDay : -((-micros + kDay - 1) / kDay);
  const int64_t in_day = micros - days * kDay;
  const CivilDate date = CivilFromDays(days);
  const int64_t seconds = in_day / 1000000, fraction = in_day % 1000000;
  const int hour = static_cast<int>(seconds / 3600), minute = static_cast<int>(seconds / 60 % 60);
  std::string out;
  for (const Token& t : tokens_) {
    switch (t.letter) {
      case 0: out += t.text; break;
      case 'y': out += t.width == 2 ? Padded(date.year % 100, 2) : Padded(date.year, t.width); break;
      case 'M':
        if (t.width >= 4) {
          out += kMonths[date.month - 1];
        } else if (t.width == 3) {
          out += std::string(kMonths[date.month - 1]).substr(0, 3);
        } else {
          out += Padded(date.month, t.width);
        }
        break;
      case 'd': out += Padded(date.day, t.width); break;
      case 'D': out += Padded(days - DaysFromCivil(date.year, 1, 1) + 1, t.width); break;
      case 'H': out += Padded(hour, t.width); break;
      case 'h': out += Padded(hour % 12 == 0 ? 12 : hour % 12, t.width); break;
      case 'm': out += Padded(minute, t.width); break;
      case 's': out += Padded(seconds % 60, t.width); break;
      case 'S': out += Padded(fraction, 6).substr(0, std::min(t.width, 6)) + std::string(t.width > 6 ? t.width - 6 : 0, '0'); break;
      case 'a': out += hour < 12 ? "AM" : "PM"; break;
      case 'E': {
        const std::string name = kDays[((days % 7) + 7) % 7];
        out += t.width >= 4 ? name : name.substr(0, 3);
        break;
      }
    }
  }
  return out;
}

}  // namespace sluice::util
