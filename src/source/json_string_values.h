// JSON lines that Spark reads and the decoders do not, rewritten into lines they read alike:
// any JSON value given for a STRING field (Spark reads the value's JSON text exactly as the line
// writes it: `12`, `1.50`, `true`, `{"a": 1}`, `[ ]`, where the decoders take only JSON strings),
// a line with more after its first value (ignored by Spark), and a line holding an array of
// objects (a record per object in Spark).
#pragma once

#include <arrow/buffer.h>
#include <arrow/type_fwd.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/status.h"

namespace sluice::source {

/// `data` (whole JSON lines) rewritten where a line starting with an object gives a STRING field
/// of `schema` a value that is not a JSON string or null (the value is replaced by a JSON string
/// of its text), or holds more after that object (it is cut there: Spark reads a line's first
/// value and ignores the rest). STRING fields at any depth count: top-level columns, struct
/// fields, array elements and map values. Lines are kept one for one (a line that is not valid
/// JSON, or needs nothing, is copied as it is), so line i of the result is line i of `data`.
/// Null when no line changes.
Result<std::shared_ptr<arrow::Buffer>> RewriteJsonLines(const arrow::Buffer& data, const arrow::Schema& schema);

/// `s` without the JSON whitespace (space, tab, CR, LF) it ends with.
std::string_view TrimJsonSpaceRight(std::string_view s);

/// The bytes of `line` up to the end of its first JSON value, when that value is an object or an
/// array (its brackets matched outside strings; leading blanks included); the whole line
/// otherwise, or when its brackets never close. What follows is what Spark ignores.
size_t FirstJsonValueLength(std::string_view line);

/// For a line holding a JSON array (one line of a JSON-lines file): its elements, one per line, when
/// every one of them is an object (none for `[]`); nothing when the line is not an array. An
/// array with an element that is not an object is an error (a malformed record, as in Spark).
Result<std::optional<std::string>> ArrayElementsAsLines(const arrow::Buffer& line);

}  // namespace sluice::source
