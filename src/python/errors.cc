#include <nanobind/stl/string.h>

#include <map>

#include "python/bindings.h"

namespace sluice::python {
namespace {

// The exception classes python/sluice/errors.py hands over at import; owned references that
// live as long as the interpreter (never released: module teardown order is not ours).
std::map<ErrorKind, PyObject*>& Classes() {
  static auto* classes = new std::map<ErrorKind, PyObject*>();
  return *classes;
}

}  // namespace

void Raise(ErrorKind kind, const Status& status) {
  auto it = Classes().find(kind);
  PyObject* type = it != Classes().end() ? it->second : PyExc_RuntimeError;
  PyErr_SetString(type, status.message().c_str());
  throw nb::python_error();
}

bool PythonAlive() { return Py_IsInitialized() && !_Py_IsFinalizing(); }

std::shared_ptr<nb::object> HoldCallable(nb::handle fn) {
  return std::shared_ptr<nb::object>(new nb::object(nb::borrow(fn)), [](nb::object* p) {
    if (!PythonAlive()) return;
    nb::gil_scoped_acquire locked;
    delete p;
  });
}

DataFrame CheckedFrame(DataFrame df) {
  if (!df.ok()) Raise(ErrorKind::kAnalysis, df.status());
  return df;
}

void BindErrors(nb::module_& m) {
  m.def(
      "register_errors",
      [](nb::handle analysis, nb::handle streaming_query, nb::handle illegal_argument) {
        for (auto [kind, cls] : {std::pair{ErrorKind::kAnalysis, analysis},
                                 std::pair{ErrorKind::kStreamingQuery, streaming_query},
                                 std::pair{ErrorKind::kIllegalArgument, illegal_argument}}) {
          Py_XDECREF(Classes()[kind]);
          Classes()[kind] = cls.inc_ref().ptr();
        }
      },
      "Sets the Python exception classes errors are raised as.");
}

}  // namespace sluice::python
