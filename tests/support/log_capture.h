// Captures what the library logs through src/util/log.h while the object lives, then puts the
// previous sink back. Thread-safe: the library may log from query threads.
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "util/log.h"

namespace sluice::testing {

class LogCapture {
 public:
  LogCapture() {
    previous_ = util::SetLogSink([this](util::LogLevel level, std::string_view message) {
      std::lock_guard<std::mutex> lock(mu_);
      entries_.emplace_back(level, std::string(message));
    });
  }
  ~LogCapture() { util::SetLogSink(std::move(previous_)); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<std::pair<util::LogLevel, std::string>> entries() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_;
  }

  /// Every message as "<level>: <message>\n", in order.
  std::string Text() const {
    std::string out;
    for (const auto& [level, message] : entries()) {
      out += std::string(util::LogLevelName(level)) + ": " + message + "\n";
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<util::LogLevel, std::string>> entries_;
  util::LogSink previous_;
};

}  // namespace sluice::testing
