// ISO-8601 text -> TIMESTAMP, as both the file sources and CAST read it: naive text (no zone)
// is UTC; text with 'Z' or an offset is converted to that instant.
#pragma once

#include <arrow/datum.h>
#include <arrow/result.h>
#include <arrow/type_fwd.h>

#include <memory>

namespace sluice::util {

/// `text` (a string array or scalar) as `type` (a timestamp type of any unit and zone label).
/// Fails when a value does not parse (the caller decides between NULL and an error).
arrow::Result<arrow::Datum> TimestampFromText(const arrow::Datum& text, const std::shared_ptr<arrow::DataType>& type);

}  // namespace sluice::util
