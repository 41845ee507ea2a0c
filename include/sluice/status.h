// Errors in the Arrow style: every fallible call returns Status or Result<T>; no exceptions
// cross the public API. Messages name the file, option or row at fault.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

namespace sluice {

using Status = arrow::Status;
template <typename T>
using Result = arrow::Result<T>;

}  // namespace sluice
