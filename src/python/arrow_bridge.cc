#include "python/arrow_bridge.h"

#include <arrow/c/abi.h>
#include <arrow/c/bridge.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

#include <nanobind/stl/string.h>

namespace sluice::python {
namespace {

void ReleaseStreamCapsule(PyObject* capsule) {
  auto* stream = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule, "arrow_array_stream"));
  if (stream == nullptr) return;
  if (stream->release != nullptr) stream->release(stream);
  delete stream;
}

void ReleaseSchemaCapsule(PyObject* capsule) {
  auto* schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, "arrow_schema"));
  if (schema == nullptr) return;
  if (schema->release != nullptr) schema->release(schema);
  delete schema;
}

nb::object StreamCapsule(const std::shared_ptr<arrow::Table>& table) {
  auto reader = std::make_shared<arrow::TableBatchReader>(table);
  auto* stream = new ArrowArrayStream();
  Status st = arrow::ExportRecordBatchReader(reader, stream);
  if (!st.ok()) {
    delete stream;
    Raise(ErrorKind::kAnalysis, st);
  }
  return nb::steal(PyCapsule_New(stream, "arrow_array_stream", ReleaseStreamCapsule));
}

nb::object SchemaCapsule(const std::shared_ptr<arrow::Schema>& schema) {
  auto* out = new ArrowSchema();
  Status st = arrow::ExportSchema(*schema, out);
  if (!st.ok()) {
    delete out;
    Raise(ErrorKind::kAnalysis, st);
  }
  return nb::steal(PyCapsule_New(out, "arrow_schema", ReleaseSchemaCapsule));
}

}  // namespace

std::shared_ptr<arrow::Table> TableFromPython(nb::handle obj) {
  if (!nb::hasattr(obj, "__arrow_c_stream__")) {
    throw nb::type_error("expected Arrow data (an object with __arrow_c_stream__, e.g. a pyarrow.Table)");
  }
  nb::object capsule = obj.attr("__arrow_c_stream__")();
  auto* stream = static_cast<ArrowArrayStream*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (stream == nullptr) throw nb::python_error();
  // Import moves the stream out (its release is set to null), so the capsule frees only its shell.
  auto reader = arrow::ImportRecordBatchReader(stream);
  if (!reader.ok()) Raise(ErrorKind::kIllegalArgument, reader.status());
  nb::gil_scoped_release unlocked;
  auto table = (*reader)->ToTable();
  if (!table.ok()) {
    nb::gil_scoped_acquire locked;
    Raise(ErrorKind::kIllegalArgument, table.status());
  }
  return *table;
}

void BindArrow(nb::module_& m) {
  nb::class_<ArrowStream>(m, "ArrowStream", "A C++ Arrow table; read it with pyarrow.table(obj).")
      .def("__arrow_c_stream__",
           [](const ArrowStream& s, nb::handle /*requested_schema*/) { return StreamCapsule(s.table); },
           nb::arg("requested_schema") = nb::none())
      .def_prop_ro("num_rows", [](const ArrowStream& s) { return s.table->num_rows(); });
  nb::class_<ArrowSchemaRef>(m, "ArrowSchemaRef", "A C++ Arrow schema; read it with pyarrow.schema(obj).")
      .def("__arrow_c_schema__", [](const ArrowSchemaRef& s) { return SchemaCapsule(s.schema); });
}

}  // namespace sluice::python
