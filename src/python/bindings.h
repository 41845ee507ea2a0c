// The native half of the Python package (sluice._sluice): thin nanobind wrappers over the
// public C++ API (include/sluice). PySpark's shape (builders, properties, exception classes)
// lives in python/sluice; this layer only converts values, releases the GIL around anything
// that may wait for a batch, and turns an error Status into a Python exception.
#pragma once

#include <nanobind/nanobind.h>

#include <memory>
#include <string>

#include "sluice/sluice.h"

namespace sluice::python {

namespace nb = nanobind;

/// Which Python exception an error becomes (python/sluice/errors.py registers the classes).
enum class ErrorKind { kAnalysis, kStreamingQuery, kIllegalArgument };

/// Raises the Python exception of `kind` with `status`'s message (never returns).
[[noreturn]] void Raise(ErrorKind kind, const Status& status);

template <typename T>
T Unwrap(Result<T> r, ErrorKind kind = ErrorKind::kAnalysis) {
  if (!r.ok()) Raise(kind, r.status());
  return std::move(r).ValueUnsafe();
}
inline void Check(const Status& s, ErrorKind kind = ErrorKind::kAnalysis) {
  if (!s.ok()) Raise(kind, s);
}

/// A DataFrame as Python sees it: errors surface when the frame is made (as PySpark's
/// AnalysisException does), so a wrapped frame always has an OK status.
DataFrame CheckedFrame(DataFrame df);

/// False once the interpreter is shutting down: engine threads then must not touch Python.
bool PythonAlive();
/// A Python callable an engine thread may call and drop; dropped while Python shuts down, it is
/// leaked rather than touched without an interpreter.
std::shared_ptr<nb::object> HoldCallable(nb::handle fn);

void BindErrors(nb::module_& m);
void BindArrow(nb::module_& m);
void BindColumn(nb::module_& m);
void BindFrame(nb::module_& m);
void BindWriter(nb::module_& m);
void BindSession(nb::module_& m);
void BindQuery(nb::module_& m);
void BindListener(nb::module_& m);

}  // namespace sluice::python
