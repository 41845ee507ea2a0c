// JSON values (simdjson DOM elements) appended to Arrow builders: the conversions the simdjson
// JSON-lines decoder applies (json_simdjson_reader.h), for flat and nested types.
//
// Nested types are decoded here only for a schema with a MAP column, which Arrow's JSON reader
// cannot read (a schema with structs and arrays alone is left to Arrow's reader). A JSON object
// read as MAP<STRING, V> keeps its keys in the record's order, a repeated key included (as
// Spark's JSON reader does); a JSON null value is a null entry. A JSON object read as a STRUCT
// fills the declared fields it names (others null, unknown names ignored); an array is read as an
// ARRAY. A value of another JSON kind than the declared type takes, anywhere in the value, makes
// the record malformed. Leaves convert as the flat decoder converts its columns, except that
// timestamps with more than six fractional digits are truncated to microseconds (as Spark).
//
// Stateless and thread-safe.
#pragma once

#include <arrow/array/builder_base.h>
#include <arrow/type.h>
#include <simdjson.h>

#include <cstdint>
#include <utility>

#include "sluice/status.h"

namespace sluice::source {

/// The JSON kind of `value` as Spark's messages name it ("an object", "a string", ...).
const char* JsonKindName(simdjson::dom::element_type kind);

/// Whether `value` is an integer literal in [min, max] (then stored in `*out`). simdjson reads
/// "1.0", "1e2" and "-0" as doubles, which Arrow's integer parser also rejects.
bool JsonIntegerIn(const simdjson::dom::element& value, int64_t min, int64_t max, int64_t* out);

/// The range of an integer type (INT8 to INT64) as JsonIntegerIn takes it; INT64's for others.
std::pair<int64_t, int64_t> JsonIntegerRange(arrow::Type::type id);

/// Whether `value` is a JSON number (stored in `*out` as the nearest double).
bool JsonNumber(const simdjson::dom::element& value, double* out);

/// Whether `value` is timestamp text Arrow's ISO-8601 parser reads as `type` (an offset or `Z` is
/// converted to UTC). With `truncate_fractions`, digits beyond microseconds are cut first.
bool JsonTimestamp(const simdjson::dom::element& value, const arrow::TimestampType& type, bool truncate_fractions,
                   int64_t* out);

/// Whether AppendJsonValue decodes `type` and every type nested in it: string, byte, short, int,
/// long, float, double, boolean, timestamp, date, and ARRAY / STRUCT / MAP<STRING, _> of those.
bool JsonValueBuilderDecodes(const arrow::DataType& type);

/// Appends `value` to `builder` (made by arrow::MakeBuilder for `type`, which
/// JsonValueBuilderDecodes). Invalid, with the reason, when the value does not fit the type;
/// the builder is then part-way through a value and must be discarded.
Status AppendJsonValue(const simdjson::dom::element& value, const arrow::DataType& type,
                       arrow::ArrayBuilder* builder);

}  // namespace sluice::source
