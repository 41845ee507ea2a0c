// Proleptic Gregorian calendar arithmetic on days since 1970-01-01, and
// formatting of timestamps (microseconds since the epoch, UTC) with Spark's datetime pattern
// letters, as date_format and from_unixtime print them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::util {

struct CivilDate {
  int64_t year;
  int month;  // 1..12
  int day;    // 1..31
};

CivilDate CivilFromDays(int64_t days);
int64_t DaysFromCivil(int64_t year, int month, int day);
int DaysInMonth(int64_t year, int month);

/// A compiled Spark datetime pattern: letters y M d H h m s S a E D (runs give the width, as
/// Spark: "d" unpadded, "dd" two digits, "MMM" "Jan", "EEEE" "Monday"), quoted text and other
/// characters verbatim. Errors name an unsupported letter and the pattern.
class TimestampFormat {
 public:
  static Result<TimestampFormat> Compile(const std::string& pattern);
  std::string Format(int64_t micros) const;

 private:
  struct Token {
    char letter;  // 0: literal text
    int width;
    std::string text;
  };
  std::vector<Token> tokens_;
};

}  // namespace sluice::util
