// StreamingQueryProgress JSON (Spark's field names, docs/progress.md).
#pragma once

#include <cstdint>
#include <string>

namespace sluice::runtime {

/// "2026-11-29T08:40:00.123Z" for milliseconds since the epoch.
std::string IsoTimestamp(int64_t ms);

}  // namespace sluice::runtime
