// JSON text of Arrow values, matching Spark's JSON generator: numbers and booleans bare, doubles
// as Java prints them ("1.0", "1.0E10"), NaN/Infinity as quoted strings, timestamps ISO-8601
// (util/value_text.h), dates "yyyy-MM-dd", binary as base64, lists as arrays, structs and maps as
// objects. Shared by the json file sink and to_json().
#pragma once

#include <arrow/array.h>

#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::util {

/// Appends the JSON text of row `i` of `array` to `out` ("null" for a null value). With
/// `ignore_null_fields`, null struct fields are omitted (Spark's default), else written as null.
/// Errors name the type that has no JSON form.
Status AppendJsonValue(const arrow::Array& array, int64_t i, bool ignore_null_fields, std::string* out);

/// Appends the object whose fields are `names[f]` -> `columns[f]` at row `i`.
Status AppendJsonObject(const std::vector<std::string>& names, const std::vector<const arrow::Array*>& columns,
                        int64_t i, bool ignore_null_fields, std::string* out);

}  // namespace sluice::util
