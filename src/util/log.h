// The library's one channel for diagnostics: warnings about a clean-up that was skipped, a
// degraded mode, a failed query reported by the CLI. Nothing in src/ writes to std::cerr directly.
//
// The default sink writes one line per message to stderr: "sluice: <message>", with "warning: "
// before warnings. Embedders and tests replace the sink (tests/support/log_capture.h captures it).
// Thread-safety: every function here may be called from any thread; messages are handed to the
// sink one at a time under one mutex, so a sink must not log itself.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "util/strings.h"

namespace sluice::util {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

/// "debug", "info", "warning", "error".
const char* LogLevelName(LogLevel level);

using LogSink = std::function<void(LogLevel level, std::string_view message)>;

/// Replaces the process-wide sink and returns the previous one; an empty sink restores the
/// default (stderr).
LogSink SetLogSink(LogSink sink);

/// Messages below `level` are dropped before they reach the sink (default: kInfo).
void SetMinLogLevel(LogLevel level);

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
