// Kernels of the JSON functions (typing: plan/function_types_json.cc), on nlohmann-json (its
// ordered_json keeps an object's keys in the order written, as Jackson does). Parsing never
// throws: text that is not JSON is a NULL result (get_json_object) or a struct of NULL fields
// (from_json, Spark's PERMISSIVE mode).
#include <arrow/api.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

#include "exec/expr_function_table.h"
#include "exec/expr_kernels.h"
#include "util/json_text.h"

namespace sluice::exec::internal {
namespace {

using arrow::Datum;
using Json = nlohmann::ordered_json;
using plan::CallSignature;
using plan::Expr;

Result<std::shared_ptr<arrow::StringArray>> AsStringArray(const Datum& d) {
  if (d.is_array()) return std::static_pointer_cast<arrow::StringArray>(d.make_array());
  ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*d.scalar(), 1));
  return std::static_pointer_cast<arrow::StringArray>(array);
}

Datum Shaped(const Datum& like, const std::shared_ptr<arrow::Array>& out) {
  if (like.is_array()) return Datum(out);
  auto scalar = out->GetScalar(0);
  return scalar.ok() ? Datum(*scalar) : Datum(out);
}

// The text from_json gives field type `type` for value `v` before the cast to `type`: nullopt
// when the JSON kind does not fit (a string for an INT field, an object for a DOUBLE field).
std::optional<std::string> FieldText(const Json& v, const arrow::DataType& type) {
  if (v.is_null()) return std::nullopt;
  if (plan::IsStringType(type)) return v.is_string() ? v.get<std::string>() : v.dump();
  if (plan::IsIntegerType(type)) {
    if (v.is_number_integer()) return v.dump();
    return std::nullopt;
  }
  if (type.id() == arrow::Type::BOOL) {
    if (v.is_boolean()) return v.dump();
    return std::nullopt;
  }
  if (plan::IsNumericType(type)) {
    if (v.is_number()) return v.dump();
    return std::nullopt;
  }
  // dates, timestamps, binary: from their text.
  if (v.is_string()) return v.get<std::string>();
  return std::nullopt;
}

// from_json(str, schema): each field read as text of the right JSON kind, then cast with
// NULL for what does not parse; a NULL string gives a NULL struct.
Result<Datum> FromJson(const Expr&, const std::vector<Datum>& args, const CallSignature& sig) {
  ARROW_ASSIGN_OR_RAISE(auto input, AsStringArray(args[0]));
  const auto& struct_type = static_cast<const arrow::StructType&>(*sig.out);
  const int num_fields = struct_type.num_fields();
  std::vector<arrow::StringBuilder> texts(num_fields);
  for (auto& b : texts) ARROW_RETURN_NOT_OK(b.Reserve(input->length()));
  for (int64_t i = 0; i < input->length(); ++i) {
    Json doc;
    if (input->IsValid(i)) doc = Json::parse(input->GetView(i), nullptr, /*allow_exceptions=*/false);
    const bool object = input->IsValid(i) && !doc.is_discarded() && doc.is_object();
    for (int f = 0; f < num_fields; ++f) {
      std::optional<std::string> text;
      if (object) {
        auto it = doc.find(struct_type.field(f)->name());
        if (it != doc.end()) text = FieldText(*it, *struct_type.field(f)->type());
      }
      ARROW_RETURN_NOT_OK(text ? texts[f].Append(*text) : texts[f].AppendNull());
    }
  }
  arrow::ArrayVector children;
  for (int f = 0; f < num_fields; ++f) {
    ARROW_ASSIGN_OR_RAISE(auto text, texts[f].Finish());
    ARROW_ASSIGN_OR_RAISE(auto typed, SparkCast(Datum(text), struct_type.field(f)->type(), plan::EvalMode::kLegacy));
    children.push_back(typed.make_array());
  }
  std::shared_ptr<arrow::Buffer> validity;
  if (input->null_count() > 0) {
    ARROW_ASSIGN_OR_RAISE(validity, arrow::AllocateBitmap(input->length()));
    for (int64_t i = 0; i < input->length(); ++i) arrow::bit_util::SetBitTo(validity->mutable_data(), i, input->IsValid(i));
  }
  auto out = std::make_shared<arrow::StructArray>(sig.out, input->length(), std::move(children), validity);
  return Shaped(args[0], out);
}

// to_json(struct or array): Spark's JSON text, null fields left out.
Result<Datum> ToJson(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  std::shared_ptr<arrow::Array> input;
  if (args[0].is_array()) {
    input = args[0].make_array();
  } else {
    ARROW_ASSIGN_OR_RAISE(input, arrow::MakeArrayFromScalar(*args[0].scalar(), 1));
  }
  arrow::StringBuilder out;
  std::string text;
  for (int64_t i = 0; i < input->length(); ++i) {
    if (input->IsNull(i)) {
      ARROW_RETURN_NOT_OK(out.AppendNull());
      continue;
    }
    text.clear();
    ARROW_RETURN_NOT_OK(util::AppendJsonValue(*input, i, /*ignore_null_fields=*/true, &text));
    ARROW_RETURN_NOT_OK(out.Append(text));
  }
  ARROW_ASSIGN_OR_RAISE(auto result, out.Finish());
  return Shaped(args[0], result);
}

// One step of a JSON path: a field name or an array index.
struct PathStep {
  std::string name;
  int64_t index = -1;  // >= 0: an array index
};

// Spark's get_json_object paths: $ then .name, ['name'] or [n] steps. Nullopt for anything
// else (wildcards included), which gives NULL as Spark gives for a path it cannot read.
std::optional<std::vector<PathStep>> ParsePath(std::string_view path) {
  if (path.empty() || path[0] != '$') return std::nullopt;
  std::vector<PathStep> steps;
  size_t i = 1;
  while (i < path.size()) {
    if (path[i] == '.') {
      size_t end = i + 1;
      while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
      if (end == i + 1 || path.substr(i + 1, end - i - 1) == "*") return std::nullopt;
      steps.push_back({std::string(path.substr(i + 1, end - i - 1))});
      i = end;
    } else if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view inside = path.substr(i + 1, close - i - 1);
      if (inside.size() >= 2 && inside.front() == '\'' && inside.back() == '\'') {
        steps.push_back({std::string(inside.substr(1, inside.size() - 2))});
      } else {
        if (inside.empty()) return std::nullopt;
        int64_t n = 0;
        for (char c : inside) {
          if (!std::isdigit(static_cast<unsigned char>(c)) || n > (INT64_MAX - 9) / 10) return std::nullopt;
          n = n * 10 + (c - '0');
        }
        steps.push_back({"", n});
      }
      i = close + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

std::optional<std::string> Lookup(std::string_view text, const std::vector<PathStep>& steps) {
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  const Json* at = &doc;
  for (const auto& step : steps) {
    if (step.index >= 0) {
      if (!at->is_array() || step.index >= static_cast<int64_t>(at->size())) return std::nullopt;
      at = &(*at)[static_cast<size_t>(step.index)];
    } else {
      if (!at->is_object()) return std::nullopt;
      auto it = at->find(step.name);
      if (it == at->end()) return std::nullopt;
      at = &*it;
    }
  }
  if (at->is_null()) return std::nullopt;
  if (at->is_string()) return at->get<std::string>();
  return at->dump();
}

Result<Datum> GetJsonObject(const Expr&, const std::vector<Datum>& args, const CallSignature&) {
  ARROW_ASSIGN_OR_RAISE(auto input, AsStringArray(args[0]));
  ARROW_ASSIGN_OR_RAISE(auto paths, AsStringArray(args[1]));
  const bool one_path = args[1].is_scalar();
  std::optional<std::vector<PathStep>> steps;
  if (one_path && paths->IsValid(0)) steps = ParsePath(paths->GetView(0));
  const int64_t n = std::max(input->length(), paths->length());
  arrow::StringBuilder out;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t row = input->length() == 1 ? 0 : i, path_row = one_path ? 0 : i;
    if (!one_path) steps = paths->IsValid(path_row) ? ParsePath(paths->GetView(path_row)) : std::nullopt;
    std::optional<std::string> found;
    if (input->IsValid(row) && steps) found = Lookup(input->GetView(row), *steps);
    ARROW_RETURN_NOT_OK(found ? out.Append(*found) : out.AppendNull());
  }
  ARROW_ASSIGN_OR_RAISE(auto result, out.Finish());
  return args[0].is_scalar() && args[1].is_scalar() ? Shaped(args[0], result) : Datum(result);
}

}  // namespace

std::vector<FunctionKernelEntry> JsonKernels() {
  return {{"from_json", FromJson}, {"to_json", ToJson}, {"get_json_object", GetJsonObject}};
}

}  // namespace sluice::exec::internal
