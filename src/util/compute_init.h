// Arrow 21+ keeps most compute kernels in libarrow_compute, registered by
// arrow::compute::Initialize(). Call this before using kernels (casts, filters, ...); it runs
// the registration once per process and is cheap afterwards. Thread-safe.
#pragma once

#include "sluice/status.h"

namespace sluice::util {

Status EnsureComputeInitialized();

}  // namespace sluice::util
