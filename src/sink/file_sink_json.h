// JSON lines encoder for the json file sink (Arrow C++ has a JSON reader but no writer), over
// util/json_text.h, matching Spark's JSON generator: one object per
// row in schema order, each line ending in '\n'; timestamps ISO-8601 (util/value_text.h);
// doubles as Java prints them ("1.0", "1.0E10"), NaN/Infinity as quoted strings; binary as
// base64; dates "yyyy-MM-dd"; lists as arrays; structs and maps as objects.
#pragma once

#include <arrow/io/interfaces.h>
#include <arrow/table.h>

#include <string>

#include "sluice/status.h"

namespace sluice::sink {

/// Writes every row of `table` as one JSON line to `out` (buffered in ~1 MiB writes).
/// Top-level null columns are omitted or written as null like struct fields.
Status WriteJsonLines(const arrow::Table& table, bool ignore_null_fields, arrow::io::OutputStream* out);

}  // namespace sluice::sink
