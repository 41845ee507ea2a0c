#include "util/compute_init.h"

#include <arrow/compute/initialize.h>

#include <mutex>

namespace sluice::util {

Status EnsureComputeInitialized() {
  static std::once_flag once;
  static Status status;
  std::call_once(once, [] { status = arrow::compute::Initialize(); });
  return status;
}

}  // namespace sluice::util
