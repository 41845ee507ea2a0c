#include "source/json_value_builder.h"

#include <arrow/api.h>
#include <arrow/util/value_parsing.h>

#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "plan/expr.h"
#include "plan/expr_resolve.h"

namespace sluice::source {
namespace {

namespace dom = simdjson::dom;

Status Mismatch(const dom::element& value, const arrow::DataType& type) {
  return Status::Invalid(JsonKindName(value.type()), " where ", plan::TypeName(type), " is declared");
}

template <typename Builder>
Status AppendInteger(const dom::element& value, const arrow::DataType& type, arrow::ArrayBuilder* builder) {
  using C = typename Builder::value_type;
  int64_t v = 0;
  if (!JsonIntegerIn(value, std::numeric_limits<C>::min(), std::numeric_limits<C>::max(), &v)) {
    return value.type() == dom::element_type::INT64 || value.type() == dom::element_type::UINT64
               ? Status::Invalid("the integer ", simdjson::minify(value), " is out of the range of ", plan::TypeName(type))
               : Mismatch(value, type);
  }
  return static_cast<Builder*>(builder)->Append(static_cast<C>(v));
}

Status AppendMap(const dom::element& value, const arrow::MapType& type, arrow::MapBuilder* builder) {
  dom::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) return Mismatch(value, type);
  ARROW_RETURN_NOT_OK(builder->Append());
  auto* keys = static_cast<arrow::StringBuilder*>(builder->key_builder());
  for (dom::key_value_pair entry : object) {
    ARROW_RETURN_NOT_OK(keys->Append(entry.key.data(), static_cast<int32_t>(entry.key.size())));
    auto st = AppendJsonValue(entry.value, *type.item_type(), builder->item_builder());
    if (!st.ok()) return Status::Invalid("key '", entry.key, "': ", st.message());
  }
  return Status::OK();
}

Status AppendStruct(const dom::element& value, const arrow::StructType& type, arrow::StructBuilder* builder) {
  dom::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) return Mismatch(value, type);
  std::vector<uint8_t> seen(static_cast<size_t>(type.num_fields()), 0);
  for (dom::key_value_pair entry : object) {
    int i = 0;
    while (i < type.num_fields() && type.field(i)->name() != entry.key) ++i;
    if (i == type.num_fields()) continue;  // a field the struct lacks is ignored
    // As at the top level (Arrow's reader rejects a repeated declared field).
    if (seen[static_cast<size_t>(i)]) return Status::Invalid("the field '", entry.key, "' is given twice");
    seen[static_cast<size_t>(i)] = 1;
    auto st = AppendJsonValue(entry.value, *type.field(i)->type(), builder->field_builder(i));
    if (!st.ok()) return Status::Invalid("field '", entry.key, "': ", st.message());
  }
  for (int i = 0; i < type.num_fields(); ++i) {
    if (!seen[static_cast<size_t>(i)]) ARROW_RETURN_NOT_OK(builder->field_builder(i)->AppendNull());
  }
  return builder->Append();
}

Status AppendList(const dom::element& value, const arrow::ListType& type, arrow::ListBuilder* builder) {
  dom::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) return Mismatch(value, type);
  ARROW_RETURN_NOT_OK(builder->Append());
  for (dom::element item : array) {
    ARROW_RETURN_NOT_OK(AppendJsonValue(item, *type.value_type(), builder->value_builder()));
  }
  return Status::OK();
}

}  // namespace

const char* JsonKindName(dom::element_type kind) {
  switch (kind) {
    case dom::element_type::ARRAY:
      return "an array";
    case dom::element_type::OBJECT:
      return "an object";
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
      return "an integer";
    case dom::element_type::DOUBLE:
      return "a number";
    case dom::element_type::STRING:
      return "a string";
    case dom::element_type::BOOL:
      return "a boolean";
    case dom::element_type::NULL_VALUE:
      return "null";
  }
  return "a value";
}

bool JsonIntegerIn(const dom::element& value, int64_t min, int64_t max, int64_t* out) {
  if (value.type() != dom::element_type::INT64) return false;
  const int64_t v = value.get_int64().value_unsafe();
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

std::pair<int64_t, int64_t> JsonIntegerRange(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::INT8:
      return {std::numeric_limits<int8_t>::min(), std::numeric_limits<int8_t>::max()};
    case arrow::Type::INT16:
      return {std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()};
    case arrow::Type::INT32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

bool JsonNumber(const dom::element& value, double* out) {
  switch (value.type()) {
    case dom::element_type::INT64:
      *out = static_cast<double>(value.get_int64().value_unsafe());
      return true;
    case dom::element_type::UINT64:
      *out = static_cast<double>(value.get_uint64().value_unsafe());
      return true;
    case dom::element_type::DOUBLE:
      *out = value.get_double().value_unsafe();
      return true;
    default:
      return false;
  }
}

bool JsonTimestamp(const dom::element& value, const arrow::TimestampType& type, bool truncate_fractions,
                   int64_t* out) {
  if (value.type() != dom::element_type::STRING) return false;
  const std::string_view s = value.get_string().value_unsafe();
  if (arrow::internal::ParseValue<arrow::TimestampType>(type, s.data(), s.size(), out)) return true;
  if (!truncate_fractions) return false;
  std::string cut(s);
  plan::TruncateFractionToMicros(&cut);
  return cut != s && arrow::internal::ParseValue<arrow::TimestampType>(type, cut.data(), cut.size(), out);
}

bool JsonValueBuilderDecodes(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::STRING:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE:
    case arrow::Type::BOOL:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::DATE32:
      return true;
    case arrow::Type::LIST:
      return JsonValueBuilderDecodes(*static_cast<const arrow::ListType&>(type).value_type());
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(type);
      return map.key_type()->id() == arrow::Type::STRING && JsonValueBuilderDecodes(*map.item_type());
    }
    case arrow::Type::STRUCT:
      for (const auto& f : type.fields()) {
        if (!JsonValueBuilderDecodes(*f->type())) return false;
      }
      return true;
    default:
      return false;
  }
}

Status AppendJsonValue(const dom::element& value, const arrow::DataType& type, arrow::ArrayBuilder* builder) {
  const auto kind = value.type();
  if (kind == dom::element_type::NULL_VALUE) return builder->AppendNull();
  switch (type.id()) {
    case arrow::Type::MAP:
      return AppendMap(value, static_cast<const arrow::MapType&>(type), static_cast<arrow::MapBuilder*>(builder));
    case arrow::Type::STRUCT:
      return AppendStruct(value, static_cast<const arrow::StructType&>(type),
                          static_cast<arrow::StructBuilder*>(builder));
    case arrow::Type::LIST:
      return AppendList(value, static_cast<const arrow::ListType&>(type), static_cast<arrow::ListBuilder*>(builder));
    case arrow::Type::STRING: {
      if (kind != dom::element_type::STRING) return Mismatch(value, type);
      const std::string_view s = value.get_string().value_unsafe();
      return static_cast<arrow::StringBuilder*>(builder)->Append(s.data(), static_cast<int32_t>(s.size()));
    }
    case arrow::Type::INT8:
      return AppendInteger<arrow::Int8Builder>(value, type, builder);
    case arrow::Type::INT16:
      return AppendInteger<arrow::Int16Builder>(value, type, builder);
    case arrow::Type::INT32:
      return AppendInteger<arrow::Int32Builder>(value, type, builder);
    case arrow::Type::INT64:
      return AppendInteger<arrow::Int64Builder>(value, type, builder);
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      double v = 0;
      if (!JsonNumber(value, &v)) return Mismatch(value, type);
      if (type.id() == arrow::Type::FLOAT) return static_cast<arrow::FloatBuilder*>(builder)->Append(static_cast<float>(v));
      return static_cast<arrow::DoubleBuilder*>(builder)->Append(v);
    }
    case arrow::Type::BOOL:
      if (kind != dom::element_type::BOOL) return Mismatch(value, type);
      return static_cast<arrow::BooleanBuilder*>(builder)->Append(value.get_bool().value_unsafe());
    case arrow::Type::TIMESTAMP: {
      int64_t v = 0;
      if (!JsonTimestamp(value, static_cast<const arrow::TimestampType&>(type), /*truncate_fractions=*/true, &v)) {
        return kind == dom::element_type::STRING ? Status::Invalid("'", value.get_string().value_unsafe(),
                                                                   "' is not a timestamp")
                                                 : Mismatch(value, type);
      }
      return static_cast<arrow::TimestampBuilder*>(builder)->Append(v);
    }
    case arrow::Type::DATE32: {
      if (kind != dom::element_type::STRING) return Mismatch(value, type);
      const std::string_view s = value.get_string().value_unsafe();
      int32_t days = 0;
      if (!arrow::internal::ParseValue<arrow::Date32Type>(s.data(), s.size(), &days)) {
        return Status::Invalid("'", s, "' is not a date");
      }
      return static_cast<arrow::Date32Builder*>(builder)->Append(days);
    }
    default:
      return Status::NotImplemented("the JSON reader does not decode ", plan::TypeName(type), " here");
  }
}

}  // namespace sluice::source
