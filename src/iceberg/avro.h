// A small Avro implementation for Iceberg's manifests and manifest lists: schema parsing,
// binary encoding/decoding of records held as nlohmann::json values, and the object container
// file framing (magic, header metadata map, sync marker, blocks).
//
// Why not avro-c: it cannot write header metadata keys, and its schema printer drops the
// field-id / element-id / logicalType attributes Iceberg readers require (docs/iceberg.md). Here the schema text given by the caller
// goes into `avro.schema` verbatim, so every attribute survives.
//
// Value model (both directions): record = JSON object keyed by field name; array = JSON array;
// map = JSON object; union = the branch's value (null for the null branch; a non-null value
// selects the first branch it fits); int/long = integer; float/double = number;
// string = string; bytes/fixed = json::binary. Logical types are carried by the underlying type.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::iceberg::avro {

using json = nlohmann::json;

struct Type {
  enum class Kind { kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString, kFixed, kRecord, kArray, kMap, kUnion };
  Kind kind = Kind::kNull;
  std::string name;                                        // record / fixed
  std::vector<std::pair<std::string, std::shared_ptr<const Type>>> fields;  // record
  std::shared_ptr<const Type> items;                       // array items, map values
  std::vector<std::shared_ptr<const Type>> branches;       // union
  int64_t size = 0;                                        // fixed
};
using TypePtr = std::shared_ptr<const Type>;

/// Parses an Avro schema (JSON text or value). Unknown attributes are ignored; named types
/// may be referenced by name after their definition.
Result<TypePtr> ParseSchema(const json& schema);
Result<TypePtr> ParseSchema(const std::string& schema_text);

/// Appends the binary encoding of `value` (as `type`) to `out`. Errors name the field path.
Status Encode(const Type& type, const json& value, std::string* out);

/// Decodes one value of `type` from data[*pos...], advancing *pos.
Result<json> Decode(const Type& type, const std::string& data, size_t* pos);

/// Zig-zag varint of a long (Avro's int and long encoding), appended to `out`.
void WriteLong(int64_t v, std::string* out);
Result<int64_t> ReadLong(const std::string& data, size_t* pos);

/// An object container file's content.
struct FileContents {
  std::map<std::string, std::string> metadata;  // header, incl. avro.schema and avro.codec
  std::vector<json> records;
};

/// A complete container file: header with `metadata` plus `avro.schema` = schema_text and
/// `avro.codec` = "null", a random sync marker, then all records in one block (none when
/// `records` is empty).
Result<std::string> WriteContainer(const std::string& schema_text, const std::map<std::string, std::string>& metadata,
                                   const std::vector<json>& records);

/// Reads a container file written with the "null" codec (every file sluice writes; other
/// codecs are refused with a message naming `what`).
Result<FileContents> ReadContainer(const std::string& bytes, const std::string& what);

}  // namespace sluice::iceberg::avro
