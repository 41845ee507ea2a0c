// StreamingQueryListener implemented in Python: each event becomes a call
// `dispatch(kind, fields)` on the Python object python/sluice/sql/streaming.py registers, with
// the GIL taken for the call only. A listener's exception is printed, never propagated (Spark
// logs it): a batch must not fail because of an observer.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "python/bindings.h"

namespace sluice::python {
namespace {

class PythonListener : public StreamingQueryListener {
 public:
  explicit PythonListener(nb::handle dispatch) : dispatch_(HoldCallable(dispatch)) {}

  void onQueryStarted(const QueryStartedEvent& e) override {
    Call("started", [&] { return Fields({{"id", e.id}, {"runId", e.runId}, {"name", e.name}, {"timestamp", e.timestamp}}); });
  }
  void onQueryProgress(const QueryProgressEvent& e) override {
    Call("progress", [&] { return Fields({{"progress", e.progress}}); });
  }
  void onQueryIdle(const QueryIdleEvent& e) override {
    Call("idle", [&] { return Fields({{"id", e.id}, {"runId", e.runId}, {"timestamp", e.timestamp}}); });
  }
  void onQueryTerminated(const QueryTerminatedEvent& e) override {
    Call("terminated", [&] {
      nb::dict d = Fields({{"id", e.id}, {"runId", e.runId}});
      d["exception"] = e.exception ? nb::cast(*e.exception) : nb::none();
      return d;
    });
  }

 private:
  static nb::dict Fields(std::initializer_list<std::pair<const char*, std::string>> fields) {
    nb::dict d;
    for (const auto& [k, v] : fields) d[k] = v;
    return d;
  }

  template <typename MakeFields>
  void Call(const char* kind, MakeFields make_fields) {
    if (!PythonAlive()) return;
    nb::gil_scoped_acquire locked;
    try {
      (*dispatch_)(kind, make_fields());
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("sluice StreamingQueryListener");
    }
  }

  std::shared_ptr<nb::object> dispatch_;
};

}  // namespace

void BindListener(nb::module_& m) {
  nb::class_<StreamingQueryListener>(m, "NativeListener");
  m.def("add_listener", [](Session& s, nb::handle dispatch) {
    std::shared_ptr<StreamingQueryListener> listener = std::make_shared<PythonListener>(dispatch);
    s.streams().addListener(listener);
    return listener;
  });
  m.def("remove_listener", [](Session& s, const std::shared_ptr<StreamingQueryListener>& listener) {
    nb::gil_scoped_release unlocked;  // may wait for an event being delivered
    s.streams().removeListener(listener);
  });
}

}  // namespace sluice::python
