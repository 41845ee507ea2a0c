// Partition specs, transforms and tuple layout (see partition_spec.h).
#include "iceberg/partition_spec.h"

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

namespace sluice::iceberg {
namespace {

using json = nlohmann::json;

constexpr int kFirstPartitionFieldId = 1000;  // spec: partition field ids start at 1000
constexpr int64_t kMicrosPerDay = 86400LL * 1000000;
constexpr int64_t kMicrosPerHour = 3600LL * 1000000;

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A column name as written: `name` and "name" lose their quotes.
std::string Unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '`' || s.front() == '"') && s.back() == s.front()) return s.substr(1, s.size() - 2);
  return s;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

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

template <typename T>
std::string LittleEndianBytes(T v) {
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));  // x86-64 / aarch64: little-endian
  return out;
}

// Java's URLEncoder.encode(s, UTF_8), which Iceberg's PartitionSpec.partitionToPath applies to
// names and values: letters, digits and ".-*_" stay, space becomes '+', other bytes %XX.
std::string UrlEncode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '.' || c == '-' || c == '*' || c == '_') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string DateText(int64_t days) {
  const auto d = util::CivilFromDays(days);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02d", static_cast<long long>(d.year), d.month, d.day);
  return buf;
}

// java.time.LocalDateTime.toString: seconds and the fraction only when not zero, the fraction
// in groups of three digits.
std::string LocalDateTimeText(int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t rest = micros - days * kMicrosPerDay;
  const int64_t h = rest / kMicrosPerHour, m = rest / 60000000 % 60, s = rest / 1000000 % 60, us = rest % 1000000;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%sT%02lld:%02lld", DateText(days).c_str(), static_cast<long long>(h),
                static_cast<long long>(m));
  std::string out = buf;
  if (s != 0 || us != 0) {
    std::snprintf(buf, sizeof(buf), ":%02lld", static_cast<long long>(s));
    out += buf;
  }
  if (us != 0) {
    std::snprintf(buf, sizeof(buf), us % 1000 == 0 ? ".%03lld" : ".%06lld",
                  static_cast<long long>(us % 1000 == 0 ? us / 1000 : us));
    out += buf;
  }
  return out;
}

// Transform::toHumanString of Iceberg Java, which names the partition directories.
Result<std::string> HumanString(const PartitionField& f, const std::string& source_type, const json& v) {
  if (v.is_null()) return std::string("null");
  char buf[64];
  switch (f.transform) {
    case Transform::kYear:
      std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(1970 + v.get<int64_t>()));
      return std::string(buf);
    case Transform::kMonth: {
      const int64_t m = v.get<int64_t>();
      std::snprintf(buf, sizeof(buf), "%04lld-%02lld", static_cast<long long>(1970 + FloorDiv(m, 12)),
                    static_cast<long long>(m - FloorDiv(m, 12) * 12 + 1));
      return std::string(buf);
    }
    case Transform::kDay: return DateText(v.get<int64_t>());
    case Transform::kHour: {
      const int64_t hours = v.get<int64_t>();
      const int64_t days = FloorDiv(hours, 24);
      std::snprintf(buf, sizeof(buf), "%s-%02lld", DateText(days).c_str(), static_cast<long long>(hours - days * 24));
      return std::string(buf);
    }
    case Transform::kBucket: return std::to_string(v.get<int64_t>());
    case Transform::kIdentity:
    case Transform::kTruncate: break;
  }
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return std::string(v.get<bool>() ? "true" : "false");
  if (source_type == "date") return DateText(v.get<int64_t>());
  if (source_type == "timestamp") return LocalDateTimeText(v.get<int64_t>());
  if (source_type == "timestamptz") return LocalDateTimeText(v.get<int64_t>()) + "Z";
  if (v.is_number_float()) {
    auto scalar = arrow::MakeScalar(v.get<double>());
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*scalar, 1));
    return util::FormatShowCell(*array, 0);
  }
  return v.dump();
}

// The first `width` code points of UTF-8 `s`.
std::string TruncateUtf8(const std::string& s, int64_t width) {
  size_t i = 0;
  for (int64_t n = 0; i < s.size() && n < width; ++n) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return s.substr(0, i);
}

// The integer a date/time/int/long cell holds (days, micros or the value).
int64_t IntegerAt(const arrow::Array& a, int64_t row) {
  switch (a.type_id()) {
    case arrow::Type::INT32: return static_cast<const arrow::Int32Array&>(a).Value(row);
    case arrow::Type::DATE32: return static_cast<const arrow::Date32Array&>(a).Value(row);
    case arrow::Type::INT64: return static_cast<const arrow::Int64Array&>(a).Value(row);
    case arrow::Type::TIMESTAMP: return static_cast<const arrow::TimestampArray&>(a).Value(row);
    default: return 0;
  }
}

// The partition value of one cell (source column of Iceberg type `type`, conformed Arrow type).
Result<json> TransformCell(const PartitionField& f, const std::string& type, const arrow::Array& a, int64_t row) {
  if (a.IsNull(row)) return json(nullptr);
  const bool is_string = a.type_id() == arrow::Type::STRING;
  switch (f.transform) {
    case Transform::kIdentity: {
      if (is_string) return json(std::string(static_cast<const arrow::StringArray&>(a).GetView(row)));
      if (a.type_id() == arrow::Type::BOOL) return json(static_cast<const arrow::BooleanArray&>(a).Value(row));
      if (a.type_id() == arrow::Type::FLOAT) return json(static_cast<const arrow::FloatArray&>(a).Value(row));
      if (a.type_id() == arrow::Type::DOUBLE) return json(static_cast<const arrow::DoubleArray&>(a).Value(row));
      return json(IntegerAt(a, row));
    }
    case Transform::kYear:
    case Transform::kMonth:
    case Transform::kDay: {
      const int64_t days = type == "date" ? IntegerAt(a, row) : FloorDiv(IntegerAt(a, row), kMicrosPerDay);
      if (f.transform == Transform::kDay) return json(days);
      const auto d = util::CivilFromDays(days);
      if (f.transform == Transform::kYear) return json(d.year - 1970);
      return json((d.year - 1970) * 12 + d.month - 1);
    }
    case Transform::kHour: return json(FloorDiv(IntegerAt(a, row), kMicrosPerHour));
    case Transform::kBucket: {
      std::string bytes;
      if (is_string) {
        bytes = std::string(static_cast<const arrow::StringArray&>(a).GetView(row));
      } else if (a.type_id() == arrow::Type::DECIMAL128) {
        ARROW_ASSIGN_OR_RAISE(auto scalar, a.GetScalar(row));
        ARROW_ASSIGN_OR_RAISE(bytes, SingleValue(*scalar));
      } else {
        bytes = LittleEndianBytes<int64_t>(IntegerAt(a, row));  // ints and dates hash as longs
      }
      return json(static_cast<int64_t>((Murmur3Hash32(bytes) & INT32_MAX) % f.parameter));
    }
    case Transform::kTruncate: {
      if (is_string) {
        return json(TruncateUtf8(std::string(static_cast<const arrow::StringArray&>(a).GetView(row)), f.parameter));
      }
      const int64_t v = IntegerAt(a, row);
      return json(v - (((v % f.parameter) + f.parameter) % f.parameter));
    }
  }
  return json(nullptr);
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
  const std::string name = Lower(Trim(t.substr(0, open)));
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
        if (Lower(seen.ToString()) == Lower(term.ToString())) {
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
      if (Lower(c.name) == Lower(term.column)) source = &c;
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
      ARROW_ASSIGN_OR_RAISE(auto v, TransformCell(spec.fields[i], sources[i].type, *sources[i].array, r));
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
      ARROW_ASSIGN_OR_RAISE(auto human, HumanString(f, sources[i].type, group.first[i]));
      part.dir += (part.dir.empty() ? "" : "/") + UrlEncode(f.name) + "=" + UrlEncode(human);
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

int32_t Murmur3Hash32(const std::string& bytes) {
  // MurmurHash3_x86_32 (Austin Appleby, public domain), seed 0, as Guava's murmur3_32_fixed.
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t len = bytes.size();
  const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  uint32_t h1 = 0;
  auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  const size_t blocks = len / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k1;
    std::memcpy(&k1, data + i * 4, 4);
    k1 *= c1;
    k1 = rotl(k1, 15);
    k1 *= c2;
    h1 ^= k1;
    h1 = rotl(h1, 13);
    h1 = h1 * 5 + 0xe6546b64;
  }
  const uint8_t* tail = data + blocks * 4;
  uint32_t k1 = 0;
  switch (len & 3) {
    case 3: k1 ^= static_cast<uint32_t>(tail[2]) << 16; [[fallthrough]];
    case 2: k1 ^= static_cast<uint32_t>(tail[1]) << 8; [[fallthrough]];
    case 1:
      k1 ^= tail[0];
      k1 *= c1;
      k1 = rotl(k1, 15);
      k1 *= c2;
      h1 ^= k1;
  }
  h1 ^= static_cast<uint32_t>(len);
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6b;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35;
  h1 ^= h1 >> 16;
  return static_cast<int32_t>(h1);
}

}  // namespace sluice::iceberg
