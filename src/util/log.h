// The library's one channel for diagnostics: warnings about a clean-up that was skipped, a
// degraded mode, a failed query reported by the CLI. Nothing in src/ writes to std::cerr directly.
//
// The sink and the level are set through the public include/sluice/logging.h (tests:
// tests/support/log_capture.h captures messages).
// Thread-safety: every function here may be called from any thread; messages are handed to the
// sink one at a time under one mutex, so a sink must not log itself.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "sluice/logging.h"
#include "util/strings.h"

namespace sluice::util {

// The public controls (include/sluice/logging.h), under the names the library uses.
using ::sluice::LogLevel;
using ::sluice::LogLevelName;
using ::sluice::LogSink;
using ::sluice::SetLogSink;
using ::sluice::SetMinLogLevel;

void Log(LogLevel level, std::string_view message);

/// Log(level, Concat(args...)), e.g. LogWarning("could not delete ", path, ": ", st).
template <typename... Args>
void LogDebug(Args&&... args) {
  Log(LogLevel::kDebug, Concat(std::forward<Args>(args)...));
}
template <typename... Args>
void LogInfo(Args&&... args) {
  Log(LogLevel::kInfo, Concat(std::forward<Args>(args)...));
}
template <typename... Args>
void LogWarning(Args&&... args) {
  Log(LogLevel::kWarning, Concat(std::forward<Args>(args)...));
}
template <typename... Args>
void LogError(Args&&... args) {
  Log(LogLevel::kError, Concat(std::forward<Args>(args)...));
}

}  // namespace sluice::util
