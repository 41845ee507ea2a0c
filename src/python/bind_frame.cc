// DataFrame transformations and batch actions. Every transformation raises at once when the
// result holds an error (PySpark raises AnalysisException when the plan is built).
#include <arrow/table.h>
#include <arrow/type.h>

#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/arrow_bridge.h"
#include "python/bindings.h"
#include "python/expr_parse.h"

namespace sluice::python {

void BindFrame(nb::module_& m) {
  nb::class_<DataFrame>(m, "DataFrame")
      .def_prop_ro("is_streaming", &DataFrame::isStreaming)
      .def("schema", [](const DataFrame& df) { return ArrowSchemaRef{df.schema()}; })
      .def("select",
           [](const DataFrame& df, std::vector<Column> cols) { return CheckedFrame(df.select(std::move(cols))); })
      .def("select_expr",
           [](const DataFrame& df, const std::vector<std::string>& exprs) {
             std::vector<Column> cols;
             for (const auto& e : exprs) cols.push_back(Unwrap(ParseColumnExpression(e, df.schema())));
             return CheckedFrame(df.select(std::move(cols)));
           })
      .def("filter", [](const DataFrame& df, const Column& c) { return CheckedFrame(df.filter(c)); })
      .def("filter_expr",
           [](const DataFrame& df, const std::string& condition) {
             return CheckedFrame(df.filter(Unwrap(ParseColumnExpression(condition, df.schema()))));
           })
      .def("with_column",
           [](const DataFrame& df, const std::string& name, const Column& c) {
             return CheckedFrame(df.withColumn(name, c));
           })
      .def("with_column_renamed",
           [](const DataFrame& df, const std::string& existing, const std::string& name) {
             return CheckedFrame(df.withColumnRenamed(existing, name));
           })
      .def("drop", [](const DataFrame& df, const std::vector<std::string>& names) { return CheckedFrame(df.drop(names)); })
      .def("agg",
           [](const DataFrame& df, std::vector<Column> keys, std::vector<Column> aggs) {
             return CheckedFrame(df.groupBy(std::move(keys)).agg(std::move(aggs)));
           })
      .def("group_count",
           [](const DataFrame& df, std::vector<Column> keys) { return CheckedFrame(df.groupBy(std::move(keys)).count()); })
      .def("with_watermark",
           [](const DataFrame& df, const std::string& event_time, const std::string& delay) {
             return CheckedFrame(df.withWatermark(event_time, delay));
           })
      .def("drop_duplicates",
           [](const DataFrame& df, const std::vector<std::string>& cols) { return CheckedFrame(df.dropDuplicates(cols)); })
      .def("drop_duplicates_within_watermark",
           [](const DataFrame& df, const std::vector<std::string>& cols) {
             return CheckedFrame(df.dropDuplicatesWithinWatermark(cols));
           })
      .def("union_all", [](const DataFrame& df, const DataFrame& other) { return CheckedFrame(df.unionAll(other)); })
      .def("join_using",
           [](const DataFrame& df, const DataFrame& other, const std::vector<std::string>& on, const std::string& how) {
             return CheckedFrame(df.join(other, on, how));
           })
      .def("join_on",
           [](const DataFrame& df, const DataFrame& other, const Column& condition, const std::string& how) {
             return CheckedFrame(df.join(other, condition, how));
           })
      .def("explain", &DataFrame::explain)
      .def("collect",
           [](const DataFrame& df) {
             Result<std::shared_ptr<arrow::Table>> rows;
             {
               nb::gil_scoped_release unlocked;
               rows = df.collect();
             }
             return ArrowStream{Unwrap(std::move(rows))};
           })
      .def("write_files",
           [](const DataFrame& df, const std::string& format, const std::string& mode,
              const std::map<std::string, std::string>& options, const std::string& path) {
             DataFrameWriter writer = df.write();
             writer.format(format).mode(mode);
             for (const auto& [k, v] : options) writer.option(k, v);
             Status st;
             {
               nb::gil_scoped_release unlocked;
               st = writer.save(path);
             }
             Check(st);
           });
}

}  // namespace sluice::python
