// Where sluice's diagnostics go: warnings about a clean-up that was skipped, a degraded mode, a
// failed query. By default one line per message on stderr ("sluice: <message>", with "warning: "
// before warnings). An embedding application routes them into its own logging:
//
//   sluice::SetLogSink([](sluice::LogLevel level, std::string_view message) {
//     my_logger.log(sluice::LogLevelName(level), message);
//   });
//   sluice::SetMinLogLevel(sluice::LogLevel::kWarning);
//
// Thread-safety: the sink is called from any thread (query threads included), one message at a
// time under one process-wide mutex; a sink must not call back into sluice's logging.
#pragma once

#include <functional>
#include <string_view>

namespace sluice {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3 };

/// "debug", "info", "warning", "error".
const char* LogLevelName(LogLevel level);

using LogSink = std::function<void(LogLevel level, std::string_view message)>;

/// Replaces the process-wide sink and returns the previous one; an empty sink restores the
/// default (stderr).
LogSink SetLogSink(LogSink sink);

/// Messages below `level` are dropped before they reach the sink (default: kInfo).
void SetMinLogLevel(LogLevel level);

}  // namespace sluice
