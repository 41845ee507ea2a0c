// Iceberg schema JSON (spec Appendix C) and the Arrow mapping (spec Appendix A, Parquet column).
#include "iceberg/schema.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <cstdio>

#include "util/compute_init.h"

namespace sluice::iceberg {
namespace {

bool ParseDecimal(const std::string& type, int* precision, int* scale) {
  return std::sscanf(type.c_str(), "decimal(%d, %d)", precision, scale) == 2 ||
         std::sscanf(type.c_str(), "decimal(%d,%d)", precision, scale) == 2;
}

std::string DecimalType(int precision, int scale) {
  return "decimal(" + std::to_string(precision) + ", " + std::to_string(scale) + ")";
}

// True when a value of Iceberg type `from` can be written to a column of type `to` losslessly.
bool Promotes(const std::string& from, const std::string& to) {
  if (from == to) return true;
  if (from == "int" && to == "long") return true;
  if (from == "float" && to == "double") return true;
  int fp, fs, tp, ts;
  if (ParseDecimal(from, &fp, &fs) && ParseDecimal(to, &tp, &ts)) return fs == ts && fp <= tp;
  return false;
}

}  // namespace

json Schema::ToJson() const {
  json fs = json::array();
  for (const auto& f : fields) {
    fs.push_back({{"id", f.id}, {"name", f.name}, {"required", f.required}, {"type", f.type}});
  }
  return {{"type", "struct"}, {"schema-id", schema_id}, {"fields", fs}};
}

Result<Schema> Schema::FromJson(const json& j) {
  Schema s;
  s.schema_id = j.value("schema-id", 0);
  if (!j.contains("fields") || !j["fields"].is_array()) return Status::Invalid("Iceberg schema without fields");
  for (const auto& f : j["fields"]) {
    Field field;
    field.id = f.at("id").get<int>();
    field.name = f.at("name").get<std::string>();
    field.required = f.value("required", false);
    if (!f.at("type").is_string()) {
      return Status::NotImplemented("Iceberg column '", field.name, "' has a nested type (", f["type"].dump(),
                                    "); sluice supports primitive columns only");
    }
    field.type = f["type"].get<std::string>();
    s.fields.push_back(std::move(field));
  }
  return s;
}

int Schema::HighestFieldId() const {
  int m = 0;
  for (const auto& f : fields) m = std::max(m, f.id);
  return m;
}

const Field* Schema::FindByName(const std::string& name) const {
  for (const auto& f : fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool Schema::SameColumns(const Schema& other) const {
  if (fields.size() != other.fields.size()) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& a = fields[i];
    const auto& b = other.fields[i];
    if (a.name != b.name || a.type != b.type || a.required != b.required) return false;
  }
  return true;
}

Result<std::string> IcebergTypeOf(const arrow::DataType& type, const std::string& column) {
  switch (type.id()) {
    case arrow::Type::BOOL: return std::string("boolean");
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32: return std::string("int");
    case arrow::Type::INT64: return std::string("long");
    case arrow::Type::FLOAT: return std::string("float");
    case arrow::Type::DOUBLE: return std::string("double");
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING: return std::string("string");
    case arrow::Type::DATE32: return std::string("date");
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampType&>(type);
      return std::string(ts.timezone().empty() ? "timestamp" : "timestamptz");
    }
    case arrow::Type::DECIMAL128: {
      const auto& d = static_cast<const arrow::Decimal128Type&>(type);
      return DecimalType(d.precision(), d.scale());
    }
    default:
      return Status::NotImplemented("Column '", column, "' has type ", type.ToString(),
                                    ", which the Iceberg sink does not support (supported: boolean, int, long, float, "
                                    "double, string, date, timestamp, decimal)");
  }
}

Result<std::shared_ptr<arrow::DataType>> ArrowTypeOf(const std::string& type) {
  if (type == "boolean") return arrow::boolean();
  if (type == "int") return arrow::int32();
  if (type == "long") return arrow::int64();
  if (type == "float") return arrow::float32();
  if (type == "double") return arrow::float64();
  if (type == "string") return arrow::utf8();
  if (type == "date") return arrow::date32();
  if (type == "timestamp") return arrow::timestamp(arrow::TimeUnit::MICRO);
  if (type == "timestamptz") return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  int p, s;
  if (ParseDecimal(type, &p, &s)) return arrow::decimal128(p, s);
  return Status::NotImplemented("Iceberg type '", type, "' is not supported by sluice");
}

Result<Schema> SchemaFromArrow(const arrow::Schema& schema) {
  Schema s;
  int id = 0;
  for (const auto& f : schema.fields()) {
    Field field;
    field.id = ++id;
    field.name = f->name();
    field.required = !f->nullable();
    ARROW_ASSIGN_OR_RAISE(field.type, IcebergTypeOf(*f->type(), f->name()));
    s.fields.push_back(std::move(field));
  }
  return s;
}

Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const Schema& schema) {
  arrow::FieldVector fields;
  for (const auto& f : schema.fields) {
    ARROW_ASSIGN_OR_RAISE(auto type, ArrowTypeOf(f.type));
    auto md = arrow::key_value_metadata({kFieldIdKey}, {std::to_string(f.id)});
    fields.push_back(arrow::field(f.name, type, !f.required, md));
  }
  return arrow::schema(fields);
}

Status CheckWritable(const arrow::Schema& query, const Schema& table, const std::string& table_name) {
  for (const auto& f : query.fields()) {
    const Field* col = table.FindByName(f->name());
    if (!col) {
      return Status::Invalid("Cannot write to Iceberg table ", table_name, ": column '", f->name(),
                             "' of the query is not in the table (table columns: ", table.ToJson()["fields"].dump(), ")");
    }
    ARROW_ASSIGN_OR_RAISE(auto type, IcebergTypeOf(*f->type(), f->name()));
    if (!Promotes(type, col->type)) {
      return Status::Invalid("Cannot write to Iceberg table ", table_name, ": column '", f->name(), "' is ", type,
                             " in the query but ", col->type, " in the table");
    }
  }
  for (const auto& col : table.fields) {
    if (query.GetFieldIndex(col.name) < 0) {
      return Status::Invalid("Cannot write to Iceberg table ", table_name, ": table column '", col.name,
                             "' is missing from the query's columns");
    }
  }
  return Status::OK();
}

std::vector<std::string> ColumnsNotInTable(const arrow::Schema& query, const Schema& table) {
  std::vector<std::string> missing;
  for (const auto& f : query.fields()) {
    if (!table.FindByName(f->name())) missing.push_back(f->name());
  }
  return missing;
}

Result<Schema> AddNullableColumns(const arrow::Schema& query, const Schema& table, int last_column_id) {
  Schema merged = table;
  int id = std::max(last_column_id, table.HighestFieldId());
  for (const auto& f : query.fields()) {
    if (merged.FindByName(f->name())) continue;
    Field field;
    field.id = ++id;
    field.name = f->name();
    field.required = false;
    ARROW_ASSIGN_OR_RAISE(field.type, IcebergTypeOf(*f->type(), f->name()));
    merged.fields.push_back(std::move(field));
  }
  return merged;
}

Result<std::shared_ptr<arrow::Table>> ConformToSchema(const arrow::Table& rows, const Schema& table,
                                                      const std::string& table_name) {
  ARROW_RETURN_NOT_OK(CheckWritable(*rows.schema(), table, table_name));
  ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
  ARROW_ASSIGN_OR_RAISE(auto target, ToArrowSchema(table));
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (int i = 0; i < target->num_fields(); ++i) {
    const auto& f = target->field(i);
    auto column = rows.GetColumnByName(f->name());
    if (!f->nullable() && column->null_count() > 0) {
      return Status::Invalid("Cannot write to Iceberg table ", table_name, ": required column '", f->name(),
                             "' has ", column->null_count(), " null value(s)");
    }
    if (!column->type()->Equals(*f->type())) {
      arrow::compute::CastOptions opts = arrow::compute::CastOptions::Safe(f->type());
      opts.allow_time_truncate = true;  // nanoseconds -> Iceberg's microseconds
      auto cast = arrow::compute::Cast(column, opts);
      if (!cast.ok()) {
        return Status::Invalid("Cannot write to Iceberg table ", table_name, ": column '", f->name(), "' (",
                               column->type()->ToString(), ") does not convert to ", f->type()->ToString(), ": ",
                               cast.status().message());
      }
      column = cast->chunked_array();
    }
    columns.push_back(column);
  }
  return arrow::Table::Make(target, columns, rows.num_rows());
}

}  // namespace sluice::iceberg
