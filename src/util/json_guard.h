// Reading JSON that others wrote (checkpoint files, Iceberg metadata, manifests, Avro schemas):
// nlohmann's accessors (at(), get<T>()) throw on a missing key or a wrong type. GuardJson runs
// such reading code and turns the exception into a Status naming what was read, so a corrupt
// file is an error message, never an uncaught exception.
#pragma once

#include <arrow/status.h>

#include <nlohmann/json.hpp>
#include <string_view>

namespace sluice::util {

/// Runs `read` (returning a Status or a Result) and returns its outcome; a JSON exception becomes
/// Invalid("<what>: <exception text>").
template <typename F>
auto GuardJson(std::string_view what, F&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const nlohmann::json::exception& e) {
    return arrow::Status::Invalid(what, ": ", e.what());
  }
}

}  // namespace sluice::util
