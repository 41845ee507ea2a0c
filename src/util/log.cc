#include "util/log.h"

#include <atomic>
#include <iostream>
#include <mutex>
#include <string>

namespace sluice::util {
namespace {

// The whole line in one write: stderr is unbuffered, and a line written in pieces could be cut
// by another thread's output to it (the CLI's progress lines).
void StderrSink(LogLevel level, std::string_view message) {
  std::string line = "sluice: ";
  if (level == LogLevel::kWarning) line += "warning: ";
  line.append(message);
  line += '\n';
  std::cerr.write(line.data(), static_cast<std::streamsize>(line.size()));
  std::cerr.flush();
}

// Function-local statics: usable from other translation units' static initialisers and
// destructors, and never destroyed before them.
std::mutex& SinkMutex() {
  static auto* mu = new std::mutex;
  return *mu;
}
LogSink& Sink() {
  static auto* sink = new LogSink(StderrSink);
  return *sink;
}
std::atomic<int> min_level{static_cast<int>(LogLevel::kInfo)};

}  // namespace

void Log(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) < min_level.load()) return;
  std::lock_guard<std::mutex> lock(SinkMutex());
  Sink()(level, message);
}

}  // namespace sluice::util

namespace sluice {

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarning: return "warning";
    case LogLevel::kError: return "error";
  }
  return "unknown";
}

LogSink SetLogSink(LogSink sink) {
  std::lock_guard<std::mutex> lock(util::SinkMutex());
  LogSink previous = std::move(util::Sink());
  util::Sink() = sink ? std::move(sink) : LogSink(util::StderrSink);
  return previous;
}

void SetMinLogLevel(LogLevel level) { util::min_level.store(static_cast<int>(level)); }

}  // namespace sluice
