// StreamingQuery: every call that may wait for a batch releases the GIL.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "python/bindings.h"

namespace sluice::python {

void BindQuery(nb::module_& m) {
  nb::class_<StreamingQuery>(m, "StreamingQuery")
      .def_prop_ro("id", &StreamingQuery::id)
      .def_prop_ro("run_id", &StreamingQuery::runId)
      .def_prop_ro("name", &StreamingQuery::name)
      .def_prop_ro("is_active", &StreamingQuery::isActive)
      .def("stop",
           [](StreamingQuery& q) {
             Status st;
             {
               nb::gil_scoped_release unlocked;
               st = q.stop();
             }
             Check(st, ErrorKind::kStreamingQuery);
           })
      .def(
          "await_termination",
          [](StreamingQuery& q, int64_t timeout_ms) {
            // Waits in slices so Ctrl-C (a pending signal) interrupts the wait.
            const int64_t kSliceMs = 100;
            for (int64_t waited = 0;; waited += kSliceMs) {
              int64_t slice = timeout_ms < 0 ? kSliceMs : std::min(kSliceMs, timeout_ms - waited);
              Result<bool> done;
              {
                nb::gil_scoped_release unlocked;
                done = q.awaitTermination(std::max<int64_t>(slice, 0));
              }
              if (!done.ok()) Raise(ErrorKind::kStreamingQuery, done.status());
              if (*done) {
                auto error = q.exception();
                if (error) Raise(ErrorKind::kStreamingQuery, *error);
                return true;
              }
              if (timeout_ms >= 0 && waited + slice >= timeout_ms) return false;
              if (PyErr_CheckSignals() != 0) throw nb::python_error();
            }
          },
          nb::arg("timeout_ms"))
      .def("process_all_available",
           [](StreamingQuery& q) {
             Status st;
             {
               nb::gil_scoped_release unlocked;
               st = q.processAllAvailable();
             }
             Check(st, ErrorKind::kStreamingQuery);
           })
      .def_prop_ro("last_progress", &StreamingQuery::lastProgress)
      .def_prop_ro("recent_progress", &StreamingQuery::recentProgress)
      .def_prop_ro("status",
                   [](StreamingQuery& q) {
                     QueryStatus s = q.status();
                     return std::make_tuple(s.message, s.isDataAvailable, s.isTriggerActive);
                   })
      .def("exception", [](StreamingQuery& q) -> std::optional<std::string> {
        auto error = q.exception();
        if (!error) return std::nullopt;
        return error->message();
      });
}

}  // namespace sluice::python
