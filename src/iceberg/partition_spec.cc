// Partition specs, transforms and tuple layout (see partition_spec.h).
#include "iceberg/partition_spec.h"

#include "iceberg/partition_transform.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>

#include "iceberg/data_file.h"
#include "util/calendar.h"
#include "util/value_text.h"
#include "util/strings.h"

namespace sluice::iceberg {
namespace {

using json = nlohmann::json;

constexpr int kFirstPartitionFieldId = 1000;  // spec: partition field ids start at 1000

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// A column name as written: `name` and "name" lose their quotes.
std::string Unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '`' || s.front() == '"') && s.back() == s.front()) return s.substr(1, s.size() - 2);
  return s;
}

const char* TransformWord(Transform t) {
  switch (t) {
    case Transform::kIdentity: return "identity";
    case Transform::kYear: return "year";
    case Transform::kMonth: return "month";
    case Transform::kDay: return "day";
    case Transform::kHour: return "hour";
    case Transform::kBucket: return "bucket";
    case Transform::kTruncate: return "truncate";
  }
  return "identity";
}

const char* NameSuffix(Transform t) {
  switch (t) {
    case Transform::kIdentity: return "";
    case Transform::kYear: return "_year";
    case Transform::kMonth: return "_month";
    case Transform::kDay: return "_day";
    case Transform::kHour: return "_hour";
    case Transform::kBucket: return "_bucket";
    case Transform::kTruncate: return "_trunc";
  }
  return "";
}

const char* const kTermUsage =
    "a partition term is a column (country) or a transform of one: years(ts), months(ts), days(ts), hours(ts) "
    "(or year/month/day/hour), bucket(16, id), truncate(4, name), identity(c)";

bool IsTimestamp(const std::string& t) { return t == "timestamp" || t == "timestamptz"; }
bool IsDecimal(const std::string& t) { return t.rfind("decimal", 0) == 0; }

// Whether `transform` takes a source column of Iceberg type `type`.
bool Accepts(Transform transform, const std::string& type) {
  switch (transform) {
    case Transform::kIdentity: return !IsDecimal(type);
    case Transform::kYear:
    case Transform::kMonth:
    case Transform::kDay: return type == "date" || IsTimestamp(type);
    case Transform::kHour: return IsTimestamp(type);
    case Transform::kBucket:
      return type == "int" || type == "long" || type == "date" || IsTimestamp(type) || type == "string" ||
             IsDecimal(type);
    case Transform::kTruncate: return type == "int" || type == "long" || type == "string";
  }
  return false;
}

const Field* SourceOf(const PartitionField& f, const Schema& schema) {
  for (const auto& c : schema.fields) {
    if (c.id == f.source_id) return &c;
  }
  return nullptr;
}

Result<json> AvroTypeOf(const std::string& type) {
  if (type == "date") return json{{"type", "int"}, {"logicalType", "date"}};
  if (IsTimestamp(type)) {
    return json{{"type", "long"}, {"logicalType", "timestamp-micros"}, {"adjust-to-utc", type == "timestamptz"}};
  }
  if (type == "boolean" || type == "int" || type == "long" || type == "float" || type == "double" ||
      type == "string") {
    return json(type);
  }
  return Status::NotImplemented("partition values of type ", type);
}

// Single-value serialization of a partition value of Iceberg type `type`.
std::string ValueBytes(const std::string& type, const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return std::string(1, v.get<bool>() ? '\1' : '\0');
  if (type == "float") return LittleEndianBytes<float>(v.get<float>());
  if (type == "double") return LittleEndianBytes<double>(v.get<double>());
  if (type == "int" || type == "date") return LittleEndianBytes<int32_t>(static_cast<int32_t>(v.get<int64_t>()));
  return LittleEndianBytes<int64_t>(v.get<int64_t>());
}

bool Less(const json& a, const json& b) {
  if (a.is_string()) return a.get<std::string>() < b.get<std::string>();
  if (a.is_boolean()) return !a.get<bool>() && b.get<bool>();
  if (a.is_number_float() || b.is_number_float()) return a.get<double>() < b.get<double>();
  return a.get<int64_t>() < b.get<int64_t>();
}

}  // namespace

std::string PartitionTerm::ToString() const {
  switch (transform) {
    case Transform::kIdentity: return column;
    case Transform::kBucket:
    case Transform::kTruncate: return std::string(TransformWord(transform)) + "(" + std::to_string(parameter) + ", " + column + ")";
    default: return std::string(TransformWord(transform)) + "(" + column + ")";
  }
}

Result<PartitionTerm> ParsePartitionTerm(const std::string& text) {
  const std::string t = Trim(text);
  PartitionTerm term;
  const size_t open = t.find('(');
  if (open == std::string::npos) {
    term.column = Unquote(t);
    if (term.column.empty()) return Status::Invalid("Empty partition term; ", kTermUsage);
    return term;
  }
  if (t.back() != ')') return Status::Invalid("Cannot parse partition term '", t, "': ", kTermUsage);
  const std::string name = util::ToLower(Trim(t.substr(0, open)));
  std::vector<std::string> args;
  std::string inner = t.substr(open + 1, t.size() - open - 2);
  for (size_t start = 0;;) {
    size_t comma = inner.find(',', start);
    args.push_back(Trim(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  static const std::map<std::string, Transform> kNames = {
      {"identity", Transform::kIdentity}, {"year", Transform::kYear},     {"years", Transform::kYear},
      {"month", Transform::kMonth},       {"months", Transform::kMonth},  {"day", Transform::kDay},
      {"days", Transform::kDay},          {"hour", Transform::kHour},     {"hours", Transform::kHour},
      {"bucket", Transform::kBucket},     {"truncate", Transform::kTruncate}};
  auto it = kNames.find(name);
  if (it == kNames.end()) {
    return Status::Invalid("Unknown partition transform '", name, "' in '", t, "': ", kTermUsage);
  }
  term.transform = it->second;
  const bool parameterized = term.transform == Transform::kBucket || term.transform == Transform::kTruncate;
  if (args.size() != (parameterized ? 2u : 1u)) {
    return Status::Invalid("Partition term '", t, "' takes ", parameterized ? "a number and a column" : "one column",
                           ": ", kTermUsage);
  }
  if (parameterized) {
    auto is_number = [](const std::string& s) {
      return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 10;
    };
    const bool first = is_number(args[0]);
    if (!first && !is_number(args[1])) {
      return Status::Invalid("Partition term '", t, "' needs a positive integer ", name == "bucket" ? "bucket count" : "width",
                             ": ", kTermUsage);
    }
    term.parameter = std::stoll(first ? args[0] : args[1]);
    term.column = Unquote(first ? args[1] : args[0]);
    if (term.parameter <= 0) {
      return Status::Invalid("Partition term '", t, "': the ", name == "bucket" ? "bucket count" : "width",
                             " must be positive");
    }
  } else {
    term.column = Unquote(args[0]);
  }
  if (term.column.empty()) return Status::Invalid("Partition term '", t, "' names no column: ", kTermUsage);
  return term;
}

Result<std::vector<PartitionTerm>> ParsePartitionTerms(const std::string& option) {
  std::vector<PartitionTerm> terms;
  if (Trim(option).empty()) return terms;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= option.size(); ++i) {
    if (i < option.size() && option[i] == '(') ++depth;
    if (i < option.size() && option[i] == ')') --depth;
    if (i == option.size() || (option[i] == ',' && depth == 0)) {
      ARROW_ASSIGN_OR_RAISE(auto term, ParsePartitionTerm(option.substr(start, i - start)));
      for (const auto& seen : terms) {
        if (util::ToLower(seen.ToString()) == util::ToLower(term.ToString())) {
          return Status::Invalid("Partition terms '", option, "' name ", term.ToString(), " twice");
        }
      }
      terms.push_back(std::move(term));
      start = i + 1;
    }
  }
  return terms;
}

std::string PartitionField::TransformName() const {
  if (transform == Transform::kBucket || transform == Transform::kTruncate) {
    return std::string(TransformWord(transform)) + "[" + std::to_string(parameter) + "]";
  }
  return TransformWord(transform);
}

json PartitionSpec::FieldsJson() const {
  json out = json::array();
  for (const auto& f : fields) {
    out.push_back({{"source-id", f.source_id}, {"field-id", f.field_id}, {"name", f.name},
                   {"transform", f.TransformName()}});
  }
  return out;
}

json PartitionSpec::ToJson() const { return {{"spec-id", spec_id}, {"fields", FieldsJson()}}; }

Result<PartitionSpec> PartitionSpec::FromJson(const json& j) {
  PartitionSpec spec;
  spec.spec_id = j.value("spec-id", 0);
  for (const auto& f : j.value("fields", json::array())) {
    PartitionField field;
    field.source_id = f.at("source-id").get<int>();
    field.field_id = f.value("field-id", kFirstPartitionFieldId + static_cast<int>(spec.fields.size()));
    field.name = f.at("name").get<std::string>();
    const std::string transform = f.at("transform").get<std::string>();
    const size_t open = transform.find('[');
    const std::string word = transform.substr(0, open);
    if (open != std::string::npos) field.parameter = std::strtoll(transform.c_str() + open + 1, nullptr, 10);
    static const std::map<std::string, Transform> kWords = {
        {"identity", Transform::kIdentity}, {"year", Transform::kYear}, {"month", Transform::kMonth},
        {"day", Transform::kDay},           {"hour", Transform::kHour}, {"bucket", Transform::kBucket},
        {"truncate", Transform::kTruncate}};
    auto it = kWords.find(word);
    if (it == kWords.end() || ((word == "bucket" || word == "truncate") && field.parameter <= 0)) {
      return Status::NotImplemented("partition transform '", transform, "' of field '", field.name,
                                    "' (sluice writes identity, year, month, day, hour, bucket[N], truncate[W])");
    }
    field.transform = it->second;
    spec.fields.push_back(std::move(field));
  }
  return spec;
}

int PartitionSpec::LastFieldId() const {
  int last = kFirstPartitionFieldId - 1;
  for (const auto& f : fields) last = std::max(last, f.field_id);
  return last;
}

std::string PartitionSpec::Describe(const Schema& schema) const {
  if (fields.empty()) return "(unpartitioned)";
  std::string out;
  for (const auto& f : fields) {
    const Field* source = SourceOf(f, schema);
    PartitionTerm term{f.transform, f.parameter, source ? source->name : "<field " + std::to_string(f.source_id) + ">"};
    out += (out.empty() ? "" : ", ") + term.ToString();
  }
  return out;
}

bool PartitionSpec::SameTerms(const PartitionSpec& other) const {
  if (fields.size() != other.fields.size()) return false;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto &a = fields[i], &b = other.fields[i];
    if (a.source_id != b.source_id || a.transform != b.transform || a.parameter != b.parameter) return false;
  }
  return true;
}

Result<PartitionSpec> BindPartitionSpec(const std::vector<PartitionTerm>& terms, const Schema& schema, int spec_id) {
  PartitionSpec spec;
  spec.spec_id = spec_id;
  for (const auto& term : terms) {
    const Field* source = nullptr;
    for (const auto& c : schema.fields) {
      if (util::ToLower(c.name) == util::ToLower(term.column)) source = &c;
    }
    if (!source) {
      std::string names;
      for (const auto& c : schema.fields) names += (names.empty() ? "" : ", ") + c.name;
      return Status::Invalid("Cannot partition by ", term.ToString(), ": column '", term.column,
                             "' is not among the table's columns (", names, ")");
    }
    if (!Accepts(term.transform, source->type)) {
      return Status::Invalid("Cannot partition by ", term.ToString(), ": transform ", TransformWord(term.transform),
                             " does not take column '", source->name, "' of type ", source->type,
                             IsDecimal(source->type) && term.transform == Transform::kIdentity
                                 ? " (partition by bucket(N, column) instead)"
                                 : "");
    }
    PartitionField f;
    f.source_id = source->id;
    f.field_id = kFirstPartitionFieldId + static_cast<int>(spec.fields.size());
    f.name = source->name + NameSuffix(term.transform);
    f.transform = term.transform;
    f.parameter = term.parameter;
    for (const auto& seen : spec.fields) {
      if (seen.name == f.name) return Status::Invalid("Partition terms give two fields named '", f.name, "'");
    }
    spec.fields.push_back(std::move(f));
  }
  return spec;
}

Result<std::string> PartitionResultType(const PartitionField& f, const Schema& schema) {
  const Field* source = SourceOf(f, schema);
  if (!source) return Status::Invalid("Partition field '", f.name, "' has source id ", f.source_id, " not in the schema");
  switch (f.transform) {
    case Transform::kIdentity:
    case Transform::kTruncate: return source->type;
    case Transform::kDay: return std::string("date");
    default: return std::string("int");
  }
}

Result<json> PartitionAvroType(const PartitionSpec& spec, const Schema& schema) {
  json fields = json::array();
  for (const auto& f : spec.fields) {
    ARROW_ASSIGN_OR_RAISE(auto type, PartitionResultType(f, schema));
    ARROW_ASSIGN_OR_RAISE(auto avro, AvroTypeOf(type));
    fields.push_back({{"name", f.name}, {"field-id", f.field_id}, {"type", json::array({"null", avro})}, {"default", nullptr}});
  }
  return json{{"type", "record"}, {"name", "r102"}, {"fields", fields}};
}

Result<std::vector<PartitionedRows>> SplitByPartitionSpec(const arrow::Table& rows, const PartitionSpec& spec,
                                                          const Schema& schema) {
  std::vector<PartitionedRows> parts;
  if (rows.num_rows() == 0) return parts;
  if (spec.unpartitioned()) {
    PartitionedRows all;
    ARROW_ASSIGN_OR_RAISE(all.rows, rows.CombineChunks());
    parts.push_back(std::move(all));
    return parts;
  }
  ARROW_ASSIGN_OR_RAISE(auto combined, rows.CombineChunks());
  struct Source {
    const arrow::Array* array;
    std::string type;
  };
  std::vector<Source> sources;
  for (const auto& f : spec.fields) {
    const Field* source = SourceOf(f, schema);
    if (!source) return Status::Invalid("Partition field '", f.name, "' has source id ", f.source_id, " not in the schema");
    const int column = combined->schema()->GetFieldIndex(source->name);
    if (column < 0) return Status::Invalid("Partition source column '", source->name, "' is missing from the rows");
    sources.push_back({combined->column(column)->chunk(0).get(), source->type});
  }
  // Tuple (as JSON text, a total order) -> tuple and row numbers, in input order.
  std::map<std::string, std::pair<json, std::vector<int64_t>>> groups;
  for (int64_t r = 0; r < combined->num_rows(); ++r) {
    json tuple = json::array();
    for (size_t i = 0; i < spec.fields.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto v, TransformValue(spec.fields[i], sources[i].type, *sources[i].array, r));
      tuple.push_back(std::move(v));
    }
    auto& group = groups[tuple.dump()];
    if (group.second.empty()) group.first = std::move(tuple);
    group.second.push_back(r);
  }
  for (auto& [key, group] : groups) {
    PartitionedRows part;
    for (size_t i = 0; i < spec.fields.size(); ++i) {
      const auto& f = spec.fields[i];
      part.partition[f.name] = group.first[i];
      ARROW_ASSIGN_OR_RAISE(auto human, PartitionValueText(f, sources[i].type, group.first[i]));
      part.dir += (part.dir.empty() ? "" : "/") + UrlEncodePathPart(f.name) + "=" + UrlEncodePathPart(human);
    }
    arrow::Int64Builder b;
    ARROW_RETURN_NOT_OK(b.AppendValues(group.second));
    ARROW_ASSIGN_OR_RAISE(auto take, b.Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(combined, take));
    part.rows = taken.table();
    parts.push_back(std::move(part));
  }
  return parts;
}

Result<json> PartitionSummaries(const PartitionSpec& spec, const Schema& schema, const std::vector<json>& tuples) {
  json out = json::array();
  for (const auto& f : spec.fields) {
    ARROW_ASSIGN_OR_RAISE(auto type, PartitionResultType(f, schema));
    bool contains_null = false, contains_nan = false;
    std::optional<json> lo, hi;
    for (const auto& t : tuples) {
      const json v = t.is_object() ? t.value(f.name, json()) : json();
      if (v.is_null()) {
        contains_null = true;
        continue;
      }
      if (v.is_number_float() && std::isnan(v.get<double>())) {
        contains_nan = true;
        continue;
      }
      if (!lo || Less(v, *lo)) lo = v;
      if (!hi || Less(*hi, v)) hi = v;
    }
    auto bytes = [&](const std::optional<json>& v) -> json {
      if (!v) return nullptr;
      const std::string b = ValueBytes(type, *v);
      return json::binary(std::vector<std::uint8_t>(b.begin(), b.end()));
    };
    const bool floating = type == "float" || type == "double";
    out.push_back({{"contains_null", contains_null},
                   {"contains_nan", floating ? json(contains_nan) : json(nullptr)},
                   {"lower_bound", bytes(lo)},
                   {"upper_bound", bytes(hi)}});
  }
  return out;
}

}  // namespace sluice::iceberg
