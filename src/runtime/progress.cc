#include "runtime/progress.h"

#include <cstdio>
#include <ctime>

namespace sluice::runtime {

std::string IsoTimestamp(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, static_cast<int>(ms % 1000));
  return out;
}

}  // namespace sluice::runtime
