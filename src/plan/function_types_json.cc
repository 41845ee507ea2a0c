// Typing of the JSON functions: from_json(str, 'a INT, b STRING') gives the struct the DDL
// schema describes (a literal, parsed at plan time, so a bad schema fails before the query
// runs); to_json(struct or array) and get_json_object(str, path) give strings.
#include <arrow/api.h>

#include "plan/function_registry.h"

namespace sluice::plan {
namespace {

}  // namespace

Result<std::shared_ptr<arrow::DataType>> FromJsonSchema(const Expr& call) {
  ARROW_ASSIGN_OR_RAISE(auto ddl, LiteralArg(call, 1, IsStringType, "string"));
  auto schema = ParseSchemaDDL(ddl->ToString());
  if (!schema.ok()) {
    return Status::Invalid("from_json: the schema ", call.args[1]->ToString(), " is not a DDL schema such as "
                           "'a INT, b STRING': ", schema.status().message());
  }
  arrow::FieldVector fields;
  for (const auto& f : (*schema)->fields()) fields.push_back(arrow::field(f->name(), f->type()));
  return arrow::struct_(std::move(fields));
}

namespace {

Result<CallSignature> FromJson(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(StringArg(call, args, 0).status());
  ARROW_ASSIGN_OR_RAISE(auto out, FromJsonSchema(call));
  return CallSignature{{arrow::utf8(), args[1]->type()}, out, args[0]->nullable()};
}

Result<CallSignature> ToJson(const Expr& call, const arrow::FieldVector& args) {
  const auto& t = *args[0]->type();
  if (t.id() != arrow::Type::STRUCT && t.id() != arrow::Type::LIST && !IsNullType(t)) {
    return Status::TypeError("to_json needs a struct or an array, but ", call.args[0]->ToString(), " is ", TypeName(t),
                             "; wrap values in struct(...) or named_struct(...)");
  }
  return CallSignature{{args[0]->type()}, arrow::utf8(), args[0]->nullable()};
}

// get_json_object(json, path): NULL when the text is not JSON or the path finds nothing.
Result<CallSignature> GetJsonObject(const Expr& call, const arrow::FieldVector& args) {
  ARROW_RETURN_NOT_OK(StringArg(call, args, 0).status());
  ARROW_RETURN_NOT_OK(StringArg(call, args, 1).status());
  return CallSignature{{arrow::utf8(), arrow::utf8()}, arrow::utf8(), true};
}

}  // namespace

std::vector<FunctionTyping> JsonFunctionTypings() {
  return {
      {"from_json", 2, 2, "from_json(str, 'a INT, b STRING')", FromJson},
      {"to_json", 1, 1, "to_json(struct)", ToJson},
      {"get_json_object", 2, 2, "get_json_object(str, '$.a.b[0]')", GetJsonObject},
  };
}

}  // namespace sluice::plan
