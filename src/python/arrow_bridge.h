// Arrow data between Python and C++ through the Arrow C data interface (PyCapsule protocol):
// no copies; the capsule's release callback keeps the C++ table alive while Python uses it.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>

#include "python/bindings.h"

namespace sluice::python {

/// A C++ table handed to Python: pyarrow reads it with pa.table(obj) / pa.RecordBatchReader.from_stream(obj).
struct ArrowStream {
  std::shared_ptr<arrow::Table> table;
};

/// A C++ schema handed to Python: pa.schema(obj).
struct ArrowSchemaRef {
  std::shared_ptr<arrow::Schema> schema;
};

/// Any Python object with __arrow_c_stream__ (a pyarrow Table, RecordBatchReader, ...) as a
/// C++ table; raises TypeError for anything else.
std::shared_ptr<arrow::Table> TableFromPython(nb::handle obj);

}  // namespace sluice::python
