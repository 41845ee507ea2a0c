// Iceberg schemas (flat: primitive columns) and their mapping to Arrow.
//
// Types supported: boolean, int, long, float, double, date, timestamp, timestamptz (both
// microseconds), string, decimal(P,S). Arrow mapping: bool, int32, int64, float32, float64,
// date32, timestamp[us], timestamp[us, UTC], utf8, decimal128(P,S). Every Arrow field made here
// carries its Iceberg field id as metadata "PARQUET:field_id", which Arrow's Parquet writer
// stores in the Parquet schema (readers match columns by id, not by name).
#pragma once

#include <arrow/type_fwd.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::iceberg {

using json = nlohmann::json;

inline constexpr const char* kFieldIdKey = "PARQUET:field_id";

struct Field {
  int id = 0;
  std::string name;
  bool required = false;
  std::string type;  // Iceberg type string: "long", "decimal(10,2)", ...
};

struct Schema {
  int schema_id = 0;
  std::vector<Field> fields;

  json ToJson() const;
  static Result<Schema> FromJson(const json& j);
  int HighestFieldId() const;
  const Field* FindByName(const std::string& name) const;
  /// Same columns (name, type, required) in the same order; ids are not compared.
  bool SameColumns(const Schema& other) const;
};

/// The Iceberg type of an Arrow type (int8/int16 widen to int; any timestamp unit maps to
/// micros; a timestamp with a time zone is timestamptz). Errors name `column`.
Result<std::string> IcebergTypeOf(const arrow::DataType& type, const std::string& column);
/// The Arrow type Iceberg type `type` is written and read as.
Result<std::shared_ptr<arrow::DataType>> ArrowTypeOf(const std::string& type);

/// A new table schema from a query's Arrow schema: ids 1..n in column order; a non-nullable
/// Arrow field becomes a required column.
Result<Schema> SchemaFromArrow(const arrow::Schema& schema);
/// Arrow schema for `schema`, every field annotated with its field id.
Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const Schema& schema);

/// Checks that rows of `query` can be written to a table with `table` schema: the same column
/// names (order free), each of a type that converts without loss (same type, int -> long,
/// float -> double, decimal with the same scale and no greater precision). Errors name the
/// table and the column.
Status CheckWritable(const arrow::Schema& query, const Schema& table, const std::string& table_name);

/// The query's columns `table` does not have (by name), in query order.
std::vector<std::string> ColumnsNotInTable(const arrow::Schema& query, const Schema& table);

/// Schema evolution: `table` with the query's columns it lacks appended as optional (nullable)
/// columns — whatever the query's nullability, as Iceberg adds no required column to a table
/// with rows — with ids last_column_id + 1, + 2, ... (schema id: the caller's). Existing columns
/// are not changed: CheckWritable against the result still refuses a type change or a table
/// column the query lacks. Errors name the column (an unsupported type).
Result<Schema> AddNullableColumns(const arrow::Schema& query, const Schema& table, int last_column_id);

/// `rows` reordered and cast to the table's Arrow schema (with field ids). Refuses a null in a
/// required column, naming it.
Result<std::shared_ptr<arrow::Table>> ConformToSchema(const arrow::Table& rows, const Schema& table,
                                                      const std::string& table_name);

}  // namespace sluice::iceberg
