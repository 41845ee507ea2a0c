// Session: configuration, readers and the query manager. python/sluice/sql/session.py keeps
// the one session of the process (SparkSession.builder.getOrCreate()) alive until exit and
// stops its queries first, so no C++ destructor ever waits for a batch while holding the GIL.
#include <arrow/table.h>

#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/arrow_bridge.h"
#include "python/bindings.h"
#include "sql/sql_query.h"

namespace sluice::python {
namespace {

template <typename Reader>
Reader& Configure(Reader& reader, const std::optional<std::string>& format, const std::optional<std::string>& ddl,
                  const std::map<std::string, std::string>& options) {
  if (format) reader.format(*format);
  if (ddl) reader.schema(*ddl);
  reader.options(options);
  return reader;
}

}  // namespace

void BindSession(nb::module_& m) {
  nb::class_<Session>(m, "Session")
      .def_static("make", &Session::Make)
      .def("set_conf", &Session::setConf)
      .def("conf", &Session::conf, nb::arg("key"), nb::arg("default") = "")
      .def(
          "read_stream",
          [](Session& s, const std::optional<std::string>& format, const std::optional<std::string>& ddl,
             const std::map<std::string, std::string>& options, const std::optional<std::string>& path) {
            DataStreamReader reader = s.readStream();
            Configure(reader, format, ddl, options);
            Result<DataFrame> df;
            {
              nb::gil_scoped_release unlocked;
              df = path ? reader.load(*path) : reader.load();
            }
            return CheckedFrame(Unwrap(std::move(df)));
          },
          nb::arg("format").none(), nb::arg("ddl").none(), nb::arg("options"), nb::arg("path").none())
      .def(
          "read",
          [](Session& s, const std::optional<std::string>& format, const std::optional<std::string>& ddl,
             const std::map<std::string, std::string>& options, const std::optional<std::string>& path,
             bool table) {
            DataFrameReader reader = s.read();
            Configure(reader, format, ddl, options);
            if (!path) Raise(ErrorKind::kIllegalArgument, Status::Invalid("read: a path (or table name) is required"));
            Result<DataFrame> df;
            {
              nb::gil_scoped_release unlocked;
              df = table ? reader.table(*path) : reader.load(*path);
            }
            return CheckedFrame(Unwrap(std::move(df)));
          },
          nb::arg("format").none(), nb::arg("ddl").none(), nb::arg("options"), nb::arg("path").none(),
          nb::arg("table") = false)
      .def("create_dataframe",
           [](Session& s, nb::handle rows) { return CheckedFrame(Unwrap(s.createDataFrame(TableFromPython(rows)))); })
      .def("sql",
           [](const std::shared_ptr<Session>& s, const std::string& query, const std::map<std::string, DataFrame>& views) {
             std::map<std::string, DataFrame> folded;
             for (const auto& [name, df] : views) folded.emplace(sql::FoldCase(name), df);
             Result<DataFrame> df;
             {
               nb::gil_scoped_release unlocked;
               df = sql::PlanQueryOverViews(s, sql::SqlText("<spark.sql>", query), folded);
             }
             return CheckedFrame(Unwrap(std::move(df)));
           })
      .def("memory_table", [](const Session& s, const std::string& name) { return ArrowStream{Unwrap(s.memoryTable(name))}; })
      .def("active", [](const Session& s) { return s.streams().active(); })
      .def("get", [](const Session& s, const std::string& id) { return s.streams().get(id); })
      .def(
          "await_any_termination",
          [](const Session& s, int64_t timeout_ms) {
            // In slices, so Ctrl-C interrupts the wait.
            const int64_t kSliceMs = 100;
            for (int64_t waited = 0;; waited += kSliceMs) {
              int64_t slice = timeout_ms < 0 ? kSliceMs : std::max<int64_t>(0, std::min(kSliceMs, timeout_ms - waited));
              Result<bool> done;
              {
                nb::gil_scoped_release unlocked;
                done = s.streams().awaitAnyTermination(slice);
              }
              if (!done.ok()) Raise(ErrorKind::kStreamingQuery, done.status());
              if (*done) return true;
              if (timeout_ms >= 0 && waited + slice >= timeout_ms) return false;
              if (PyErr_CheckSignals() != 0) throw nb::python_error();
            }
          },
          nb::arg("timeout_ms"))
      .def("reset_terminated", [](const Session& s) { s.streams().resetTerminated(); });
}

}  // namespace sluice::python
