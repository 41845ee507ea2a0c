// writeStream: everything PySpark's DataStreamWriter collects arrives in one call, which
// validates and starts the query with the GIL released. foreachBatch calls back into Python on
// the query's thread, taking the GIL only for the call.
#include <arrow/table.h>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <map>
#include <optional>

#include "python/arrow_bridge.h"
#include "python/bindings.h"

namespace sluice::python {
namespace {

// `fn(rows: ArrowStream, batch_id: int)` returns None, or the error text (python/sluice
// formats the traceback there) that fails the query.
std::function<Status(const std::shared_ptr<arrow::Table>&, int64_t)> ForeachBatch(nb::handle fn) {
  auto holder = HoldCallable(fn);
  return [holder](const std::shared_ptr<arrow::Table>& rows, int64_t batch_id) -> Status {
    if (!PythonAlive()) return Status::Cancelled("foreachBatch: the Python interpreter is shutting down");
    nb::gil_scoped_acquire locked;
    try {
      nb::object error = (*holder)(ArrowStream{rows}, batch_id);
      if (!error.is_none()) return Status::ExecutionError(nb::cast<std::string>(error));
      return Status::OK();
    } catch (nb::python_error& e) {
      return Status::ExecutionError("foreachBatch function failed: ", e.what());
    } catch (const std::exception& e) {
      return Status::ExecutionError("foreachBatch function failed: ", e.what());
    }
  };
}

Result<Trigger> TriggerOf(const std::string& kind, int64_t interval_ms) {
  if (kind == "processingTime") return ProcessingTime(interval_ms);
  if (kind == "once") return Once();
  if (kind == "availableNow") return AvailableNow();
  return Status::Invalid("unknown trigger '", kind, "' (processingTime, once or availableNow)");
}

}  // namespace

void BindWriter(nb::module_& m) {
  m.def(
      "start_stream",
      [](const DataFrame& df, const std::optional<std::string>& format, const std::optional<std::string>& output_mode,
         const std::map<std::string, std::string>& options, const std::optional<std::string>& trigger,
         int64_t interval_ms, const std::optional<std::string>& query_name, nb::handle foreach_batch,
         const std::optional<std::string>& path, const std::optional<std::string>& table) {
        DataStreamWriter writer = df.writeStream();
        if (format) writer.format(*format);
        if (output_mode) writer.outputMode(*output_mode);
        writer.options(options);
        if (trigger) writer.trigger(Unwrap(TriggerOf(*trigger, interval_ms), ErrorKind::kIllegalArgument));
        if (query_name) writer.queryName(*query_name);
        if (!foreach_batch.is_none()) writer.foreachBatch(ForeachBatch(foreach_batch));
        Result<StreamingQuery> query;
        {
          nb::gil_scoped_release unlocked;
          query = table ? writer.toTable(*table) : path ? writer.start(*path) : writer.start();
        }
        return Unwrap(std::move(query));
      },
      nb::arg("df"), nb::arg("format").none(), nb::arg("output_mode").none(), nb::arg("options"),
      nb::arg("trigger").none(), nb::arg("interval_ms"), nb::arg("query_name").none(), nb::arg("foreach_batch").none(),
      nb::arg("path").none(), nb::arg("table").none());
}

}  // namespace sluice::python
