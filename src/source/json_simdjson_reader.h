// The simdjson JSON-lines decoder (FileFormatOptions::json_reader = simdjson, the default).
//
// It builds Arrow arrays directly from simdjson's parse of each line and handles the common
// case only: files whose every non-blank line is one JSON object whose declared fields hold
// values of the declared flat types. Whenever a file holds anything else (a line that is not
// valid JSON or not an object, a value of another JSON kind, a number or timestamp the declared
// type cannot take, a declared key given twice, bytes that are not UTF-8), the decoder declines
// the file and the caller decodes it with Arrow's reader, which handles malformed records per
// `mode` (file_record_readers.cc). So both readers return the same table for every file: the
// values accepted here are exactly those Arrow's reader accepts, converted the same way
// (integers in range, doubles correctly rounded, timestamps by Arrow's ISO-8601 parser).
//
// Declared types decoded here: string, int8..int64, double, boolean, timestamp (any unit),
// date (as text; ConformToSchema casts it). A schema with any other type (struct, list, float,
// decimal, binary, ...) is decoded by Arrow's reader for the whole file.
//
// A schema with a MAP column (at any depth) is the exception: Arrow's reader has no map type, so
// this decoder alone reads such files (json_value_builder.h: nested values, and the types it
// takes), and a line it declines is a malformed record (file_record_readers.cc bisects the file
// with it). Then timestamps with more than six fractional digits are truncated, not declined.
//
// Thread-safe (no shared mutable state). Lines are parsed one at a time: a file is never parsed
// as one document, and only the output arrays grow with it.
#pragma once

#include <arrow/buffer.h>
#include <arrow/table.h>

#include <memory>
#include <string>

#include "sluice/status.h"
#include "source/source.h"

namespace sluice::source {

/// Whether every field of `parse_schema` has a type the simdjson decoder builds.
bool SimdjsonDecodesSchema(const arrow::Schema& parse_schema);

/// Whether `schema` has a MAP at any depth of any field.
bool SchemaHoldsMap(const arrow::Schema& schema);

/// For a schema with a MAP: OK when the decoder reads every field, else an error naming the
/// field it does not read.
Status CheckSimdjsonDecodesMapSchema(const arrow::Schema& parse_schema);

/// `data` (JSON lines) as a table of exactly `parse_schema`, or nullptr when the decoder
/// declines it (see above; `why`, when given, receives the reason for a declined line).
/// `use_threads`: a large file is split into line ranges parsed in parallel (rows keep the
/// file's order).
///
/// `filter` (a pushed predicate, source.h): lines are decoded by blocks, the predicate's columns
/// first (every column is still checked, so the decoder declines exactly the files it declines
/// without it); the predicate is evaluated on the block and only the rows it keeps get their other
/// columns decoded. The table then holds a superset of the rows the predicate keeps (the decoder
/// stops filtering when the predicate keeps most rows or cannot be evaluated); `rows_filtered`
/// (when given) is increased by the rows it dropped. Ignored for a schema with a MAP.
///
/// `shapes`: a line with the layout of a line parsed before it is read without the parser
/// (json_line_shape.h: same values, same lines declined); false parses every line (for tests
/// that compare the two).
Result<std::shared_ptr<arrow::Table>> DecodeJsonLinesSimdjson(const std::shared_ptr<arrow::Buffer>& data,
                                                              const std::shared_ptr<arrow::Schema>& parse_schema,
                                                              bool use_threads, std::string* why = nullptr,
                                                              const ScanFilter* filter = nullptr,
                                                              int64_t* rows_filtered = nullptr, bool shapes = true);

/// `filter` when the decoder may apply it to a file read with `parse_schema` for the declared
/// `schema`: every column it reads is decoded here and every column decodes straight to its
/// declared type (no later cast could then reject a row the filter dropped). Else null.
const ScanFilter* SimdjsonFilter(const ScanFilter* filter, const arrow::Schema& parse_schema,
                                 const arrow::Schema& schema);

}  // namespace sluice::source
