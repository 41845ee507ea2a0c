// When micro-batches start.
#pragma once

#include <cstdint>
#include <string>

namespace sluice {

struct Trigger {
  enum class Kind { kProcessingTime, kOnce, kAvailableNow };
  Kind kind = Kind::kProcessingTime;
  int64_t interval_ms = 0;  // kProcessingTime: 0 = as fast as possible (the default)

  std::string toString() const;
};

/// A batch every `interval_ms` (0: back to back). A batch that overruns its slot is followed
/// at once by the next; missed slots are not replayed.
inline Trigger ProcessingTime(int64_t interval_ms) { return {Trigger::Kind::kProcessingTime, interval_ms}; }
/// Exactly one batch with everything available (read limits lifted), then stop.
inline Trigger Once() { return {Trigger::Kind::kOnce, 0}; }
/// Everything available at start, in as many batches as the read limits need, then stop.
inline Trigger AvailableNow() { return {Trigger::Kind::kAvailableNow, 0}; }

}  // namespace sluice
