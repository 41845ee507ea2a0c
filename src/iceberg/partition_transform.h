// The partition transforms applied to one cell, and the text Iceberg Java gives their values in
// data-file directory names (Transform.toHumanString, URL-encoded). Used by partition_spec.cc;
// the transforms themselves are specified in partition_spec.h.
#pragma once

#include <arrow/type_fwd.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <string>

#include "iceberg/partition_spec.h"

namespace sluice::iceberg {

/// The partition value (Avro value model; null for a null cell) of row `row` of `array`, a
/// source column of Iceberg type `source_type` conformed to its Arrow type.
Result<nlohmann::json> TransformValue(const PartitionField& field, const std::string& source_type,
                                      const arrow::Array& array, int64_t row);

/// Iceberg Java's human string of a partition value: dates yyyy-MM-dd, months yyyy-MM, hours
/// yyyy-MM-dd-HH, timestamps as java.time prints them, "null" for null.
Result<std::string> PartitionValueText(const PartitionField& field, const std::string& source_type,
                                       const nlohmann::json& value);

/// Java's URLEncoder.encode(s, UTF_8): letters, digits and ".-*_" kept, space '+', else %XX.
std::string UrlEncodePathPart(const std::string& s);

/// `v`'s bytes, little-endian (the hosts sluice builds on are little-endian).
template <typename T>
std::string LittleEndianBytes(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

}  // namespace sluice::iceberg
