#include "util/duration.h"

#include "util/numbers.h"

namespace sluice::util {

arrow::Result<int64_t> ParseDurationMs(std::string_view what, std::string_view text) {
  static const std::vector<ScaleUnit> kUnits = {{{"", "ms", "msec", "msecs", "millisecond", "milliseconds"}, 1},
                                                {{"s", "sec", "secs", "second", "seconds"}, 1000},
                                                {{"m", "min", "mins", "minute", "minutes"}, 60 * 1000},
                                                {{"h", "hour", "hours"}, 3600 * 1000},
                                                {{"d", "day", "days"}, 24 * 3600 * 1000},
                                                {{"w", "week", "weeks"}, 7LL * 24 * 3600 * 1000}};
  return ParseScaled(text, kUnits, what, "a duration such as 7d, 12h, 30m, 10s or 500ms");
}

}  // namespace sluice::util
