// Typing of the functions over nested values (Spark's complex types): structs (Arrow struct
// arrays), arrays (Arrow list arrays) and maps (Arrow map arrays). Every field and element of a result is nullable, so
// the type a kernel builds is the type resolution promised. Indexes follow Spark: element_at
// is 1-based (negative counts from the end), the subscript x[i] (get_item) is 0-based; out of
// range is an error under ANSI (Spark 4's default) and NULL otherwise. A map's value by key
// (m['k'], m[k], element_at(m, k)) is NULL for a missing key.
#include <arrow/api.h>

#include "plan/function_registry.h"
#include "util/strings.h"

namespace sluice::plan {
namespace {

using DataTypePtr = std::shared_ptr<arrow::DataType>;

Status NeedArray(const Expr& call, const arrow::FieldVector& args, size_t i) {
  const auto& t = *args[i]->type();
  if (t.id() == arrow::Type::LIST || IsNullType(t)) return Status::OK();
  return Status::TypeError("argument ", i + 1, " of ", call.name, " must be an array, but it is ", TypeName(t), " in ",
                           call.ToString());
}

bool IsMap(const arrow::DataType& t) { return t.id() == arrow::Type::MAP; }

Status NeedMap(const Expr& call, const arrow::FieldVector& args, size_t i) {
  const auto& t = *args[i]->type();
  if (IsMap(t) || IsNullType(t)) return Status::OK();
  return Status::TypeError("argument ", i + 1, " of ", call.name, " must be a map, but it is ", TypeName(t), " in ",
                           call.ToString());
}

// m[key], element_at(m, key): the key is compared as the map's key type; a missing key gives
// NULL, so the result is nullable.
Result<CallSignature> MapValue(const Expr& call, const arrow::FieldVector& args) {
  const auto& map = static_cast<const arrow::MapType&>(*args[0]->type());
  DataTypePtr key = CommonType(map.key_type(), args[1]->type());
  if (!key || !key->Equals(*map.key_type())) {
    return Status::TypeError("the key of ", call.name, " must be ", TypeName(*map.key_type()), " (the map's key type), "
                             "but it is ", TypeName(*args[1]->type()), " in ", call.ToString());
  }
  return CallSignature{{args[0]->type(), map.key_type()}, map.item_type(), true};
}

DataTypePtr ElementType(const arrow::DataType& t) {
  if (t.id() == arrow::Type::LIST) return static_cast<const arrow::ListType&>(t).value_type();
  return arrow::null();
}

// The name struct(...) gives a field: the column's (or alias's) name, else col<n> as Spark.
std::string StructFieldName(const Expr& arg, size_t i) {
  if (arg.kind == Expr::Kind::kColumn || arg.kind == Expr::Kind::kAlias) return arg.name;
  if (arg.kind == Expr::Kind::kCall && arg.name == "get_field" && arg.args.size() == 2 && arg.args[1]->value) {
    return arg.args[1]->value->ToString();
  }
  return "col" + std::to_string(i + 1);
}

Result<CallSignature> Struct(const Expr& call, const arrow::FieldVector& args) {
  CallSignature sig{{}, nullptr, false};
  arrow::FieldVector fields;
  for (size_t i = 0; i < args.size(); ++i) {
    sig.arg_types.push_back(args[i]->type());
    fields.push_back(arrow::field(StructFieldName(*call.args[i], i), args[i]->type()));
  }
  sig.out = arrow::struct_(std::move(fields));
  return sig;
}

Result<CallSignature> NamedStruct(const Expr& call, const arrow::FieldVector& args) {
  if (args.size() % 2 != 0) {
    return Status::Invalid("named_struct takes name/value pairs ('a', x, 'b', y, ...) but got ", args.size(),
                           " arguments in ", call.ToString());
  }
  CallSignature sig{{}, nullptr, false};
  arrow::FieldVector fields;
  for (size_t i = 0; i < args.size(); i += 2) {
    ARROW_ASSIGN_OR_RAISE(auto name, LiteralArg(call, i, IsStringType, "string"));
    sig.arg_types.push_back(args[i]->type());
    sig.arg_types.push_back(args[i + 1]->type());
    fields.push_back(arrow::field(name->ToString(), args[i + 1]->type()));
  }
  sig.out = arrow::struct_(std::move(fields));
  return sig;
}

}  // namespace

Result<int> FindStructField(const Expr& call, const arrow::DataType& type, const std::string& name) {
  if (type.id() != arrow::Type::STRUCT) {
    return Status::TypeError("field access '", name, "' needs a struct, but ", call.args[0]->ToString(), " is ",
                             TypeName(type), " in ", call.ToString());
  }
  std::string names;
  int found = -1;
  for (int i = 0; i < type.num_fields(); ++i) {
    const std::string& f = type.field(i)->name();
    names += (i ? ", " : "") + f;
    if (f == name) return i;
    if (found < 0 && util::ToLower(f) == util::ToLower(name)) found = i;  // Spark is case-insensitive by default
  }
  if (found >= 0) return found;
  return Status::Invalid("No such struct field '", name, "' in ", call.args[0]->ToString(), "; its fields are: [",
                         names, "]");
}

namespace {

// get_field(s, 'name'): s.name and s['name'] in SQL.
Result<CallSignature> GetField(const Expr& call, const arrow::FieldVector& args) {
  if (IsMap(*args[0]->type())) return MapValue(call, args);  // m['k']
  ARROW_ASSIGN_OR_RAISE(auto name, LiteralArg(call, 1, IsStringType, "string"));
  if (IsNullType(*args[0]->type())) return CallSignature{{args[0]->type(), args[1]->type()}, arrow::null(), true};
  ARROW_ASSIGN_OR_RAISE(int index, FindStructField(call, *args[0]->type(), name->ToString()));
  return CallSignature{{args[0]->type(), args[1]->type()}, args[0]->type()->field(index)->type(), true};
}

// array(a, b, ...): the elements' common type.
Result<CallSignature> Array(const Expr& call, const arrow::FieldVector& args) {
  DataTypePtr common = arrow::null();
  for (const auto& a : args) {
    common = CommonType(common, a->type());
    if (!common) return TypeMismatch("array", call, args);
  }
  return CallSignature{std::vector<DataTypePtr>(args.size(), common), arrow::list(common), false};
}

// element_at(array, index) and get_item(array, index): the element type.
Result<CallSignature> ElementAt(const Expr& call, const arrow::FieldVector& args) {
  if (IsMap(*args[0]->type())) return MapValue(call, args);
  ARROW_RETURN_NOT_OK(NeedArray(call, args, 0));
  ARROW_RETURN_NOT_OK(IntegerArg(call, args, 1));
  const DataTypePtr& a = args[0]->type();
  return CallSignature{{IsNullType(*a) ? arrow::list(arrow::null()) : a, arrow::int32()}, ElementType(*a), true};
}

// size(array) / cardinality(array): -1 for NULL without ANSI (Spark's legacy sizeOfNull), NULL with it.
Result<CallSignature> Size(const Expr& call, const arrow::FieldVector& args) {
  if (!IsMap(*args[0]->type())) ARROW_RETURN_NOT_OK(NeedArray(call, args, 0));
  const DataTypePtr& a = args[0]->type();
  const bool nullable = call.mode != EvalMode::kLegacy && args[0]->nullable();
  return CallSignature{{IsNullType(*a) ? arrow::list(arrow::null()) : a}, arrow::int32(), nullable};
}

// array_contains(array, value): the value is compared as the element type.
Result<CallSignature> ArrayContains(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(NeedArray(call, args, 0));
  const DataTypePtr element = ElementType(*args[0]->type());
  DataTypePtr common = CommonType(element, args[1]->type());
  if (!common) return TypeMismatch("array_contains", call, args);
  if (IsNullType(*common)) common = arrow::boolean();
  return CallSignature{{arrow::list(common), common}, arrow::boolean(), true};
}

// map_keys(m), map_values(m): arrays of the keys and of the values, in the map's order.
Result<CallSignature> MapKeysOrValues(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(NeedMap(call, args, 0));
  const DataTypePtr& m = args[0]->type();
  if (IsNullType(*m)) return CallSignature{{m}, arrow::list(arrow::null()), true};
  const auto& map = static_cast<const arrow::MapType&>(*m);
  return CallSignature{{m}, arrow::list(call.name == "map_keys" ? map.key_type() : map.item_type()),
                       args[0]->nullable()};
}

// map_contains_key(m, key): whether the map has the key.
Result<CallSignature> MapContainsKey(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(NeedMap(call, args, 0));
  if (IsNullType(*args[0]->type())) return CallSignature{{args[0]->type(), args[1]->type()}, arrow::boolean(), true};
  ARROW_ASSIGN_OR_RAISE(auto sig, MapValue(call, args));
  sig.out = arrow::boolean();
  return sig;
}

// split(str, regex[, limit]): limit > 0 keeps at most limit pieces (the last holds the rest);
// limit <= 0 (default -1) keeps every piece, trailing empty ones too.
Result<CallSignature> Split(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(StringArg(call, args, 0).status());
  ARROW_RETURN_NOT_OK(LiteralArg(call, 1, IsStringType, "string").status());
  CallSignature sig{{arrow::utf8(), arrow::utf8()}, arrow::list(arrow::utf8()), args[0]->nullable()};
  if (args.size() == 3) {
    ARROW_RETURN_NOT_OK(LiteralArg(call, 2, IsIntegerType, "integer").status());
    sig.arg_types.push_back(arrow::int64());
  }
  return sig;
}

}  // namespace

std::vector<FunctionTyping> NestedFunctionTypings() {
  return {
      {"struct", 1, SIZE_MAX, "struct(a, b, ...)", Struct},
      {"named_struct", 2, SIZE_MAX, "named_struct('a', x, 'b', y, ...)", NamedStruct},
      {"get_field", 2, 2, "s.name, s['name']", GetField},
      {"array", 0, SIZE_MAX, "array(a, b, ...)", Array},
      {"element_at", 2, 2, "element_at(array, index) or element_at(map, key)", ElementAt},
      {"get_item", 2, 2, "array[index] or map[key]", ElementAt},
      {"size", 1, 1, "size(array or map)", Size},
      {"cardinality", 1, 1, "cardinality(array or map)", Size},
      {"map_keys", 1, 1, "map_keys(map)", MapKeysOrValues},
      {"map_values", 1, 1, "map_values(map)", MapKeysOrValues},
      {"map_contains_key", 2, 2, "map_contains_key(map, key)", MapContainsKey},
      {"array_contains", 2, 2, "array_contains(array, value)", ArrayContains},
      {"split", 2, 3, "split(str, regex[, limit])", Split},
  };
}

}  // namespace sluice::plan
