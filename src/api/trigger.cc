#include "sluice/trigger.h"

namespace sluice {

std::string Trigger::toString() const {
  switch (kind) {
    case Kind::kOnce:
      return "Once";
    case Kind::kAvailableNow:
      return "AvailableNow";
    case Kind::kProcessingTime:
      break;
  }
  return "ProcessingTime(" + std::to_string(interval_ms) + " ms)";
}

}  // namespace sluice
