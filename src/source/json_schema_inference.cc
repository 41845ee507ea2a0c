// JSON-lines schema inference (schema_inference.h), with Spark's rules: each line's value gets a
// type, and the types of all lines are merged, the way Spark's JsonInferSchema does.
#include <simdjson.h>

#include <arrow/api.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <thread>
#include <string_view>
#include <utility>
#include <vector>

#include "source/file_readers.h"
#include "source/json_string_values.h"
#include "source/schema_inference.h"

namespace sluice::source {
namespace {

namespace od = simdjson::ondemand;

constexpr int32_t kMaxDecimalPrecision = 38;
// A block is folded on several threads from this many bytes per thread.
constexpr size_t kParallelBytes = 1 << 20;

// A Spark type as inference sees it: NULL until a value says otherwise.
struct JsonType {
  enum class Kind : uint8_t { kNull, kBoolean, kLong, kDecimal, kDouble, kString, kStruct, kArray };
  Kind kind = Kind::kNull;
  int32_t precision = 0, scale = 0;                       // kDecimal
  std::vector<std::pair<std::string, JsonType>> fields;  // kStruct: sorted by name
  std::vector<JsonType> element;                         // kArray: exactly one

  static JsonType Of(Kind k) {
    JsonType t;
    t.kind = k;
    return t;
  }
  static JsonType Decimal(int32_t p, int32_t s) {
    JsonType t = Of(Kind::kDecimal);
    t.precision = p;
    t.scale = s;
    return t;
  }
};
using JsonKind = JsonType::Kind;

// Two decimals: enough integer digits for either and the larger scale; beyond 38 digits, DOUBLE.
JsonType MergeDecimals(const JsonType& a, const JsonType& b) {
  const int32_t scale = std::max(a.scale, b.scale);
  const int32_t range = std::max(a.precision - a.scale, b.precision - b.scale);
  if (range + scale > kMaxDecimalPrecision) return JsonType::Of(JsonKind::kDouble);
  return JsonType::Decimal(range + scale, scale);
}

// The type both `a` and `b` fit in (Spark's compatibleType): NULL gives way to anything, BIGINT
// widens to DOUBLE or to a decimal of 20 digits, structs merge field by field, arrays by element,
// and any other pair is a STRING (every JSON value can be read as its text).
JsonType Merge(JsonType a, const JsonType& b) {
  if (b.kind == JsonKind::kNull) return a;
  if (a.kind == JsonKind::kNull) return b;
  if (a.kind == JsonKind::kStruct && b.kind == JsonKind::kStruct) {
    // Most records name no field the merged type lacks: then it is merged in place.
    auto i = a.fields.begin();
    bool known = true;
    for (const auto& f : b.fields) {
      while (i != a.fields.end() && i->first < f.first) ++i;
      if (i == a.fields.end() || i->first != f.first) {
        known = false;
        break;
      }
      ++i;
    }
    if (known) {
      i = a.fields.begin();
      for (const auto& f : b.fields) {
        while (i->first < f.first) ++i;
        i->second = Merge(std::move(i->second), f.second);
        ++i;
      }
      return a;
    }
    std::vector<std::pair<std::string, JsonType>> out;
    out.reserve(a.fields.size() + b.fields.size());
    i = a.fields.begin();
    auto j = b.fields.begin();
    while (i != a.fields.end() || j != b.fields.end()) {
      if (j == b.fields.end() || (i != a.fields.end() && i->first < j->first)) {
        out.push_back(std::move(*i++));
      } else if (i == a.fields.end() || j->first < i->first) {
        out.push_back(*j++);
      } else {
        out.emplace_back(std::move(i->first), Merge(std::move(i->second), j->second));
        ++i, ++j;
      }
    }
    a.fields = std::move(out);
    return a;
  }
  if (a.kind == JsonKind::kArray && b.kind == JsonKind::kArray) {
    a.element[0] = Merge(std::move(a.element[0]), b.element[0]);
    return a;
  }
  if (a.kind == b.kind) return a.kind == JsonKind::kDecimal ? MergeDecimals(a, b) : a;
  auto either = [&](JsonKind x, JsonKind y) { return (a.kind == x && b.kind == y) || (a.kind == y && b.kind == x); };
  if (either(JsonKind::kLong, JsonKind::kDouble) || either(JsonKind::kDecimal, JsonKind::kDouble)) return JsonType::Of(JsonKind::kDouble);
  if (either(JsonKind::kLong, JsonKind::kDecimal)) {
    return MergeDecimals(JsonType::Decimal(20, 0), a.kind == JsonKind::kDecimal ? a : b);
  }
  return JsonType::Of(JsonKind::kString);
}

// A JSON number's type from its text: an integer that fits BIGINT is BIGINT, a longer one a
// DECIMAL of its digits (DOUBLE beyond 38), anything with a fraction or exponent DOUBLE, or with
// `prefers_decimal` the DECIMAL of its digits and scale (*negative_scale set when that scale is
// below 0, as for `1e3`, which Spark refuses). False when the text is not a JSON number.
bool NumberType(std::string_view text, bool prefers_decimal, JsonType* out, bool* negative_scale) {
  size_t i = 0;
  if (i < text.size() && text[i] == '-') ++i;
  const size_t int_start = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  const size_t digits = i - int_start;
  if (digits == 0 || (digits > 1 && text[int_start] == '0')) return false;
  bool integer = true;
  std::string_view fraction;
  int64_t exponent = 0;
  if (i < text.size() && text[i] == '.') {
    integer = false;
    const size_t f = ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == f) return false;
    fraction = text.substr(f, i - f);
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    integer = false;
    ++i;
    const bool minus = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    const size_t e = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      exponent = std::min<int64_t>(exponent * 10 + (text[i] - '0'), int64_t{1} << 40);
      ++i;
    }
    if (i == e) return false;
    if (minus) exponent = -exponent;
  }
  if (i != text.size()) return false;
  if (!integer && prefers_decimal) {
    // As Java's BigDecimal of the text: the digits without leading zeros (at least one) and the
    // scale, the fraction's digits less the exponent.
    std::string digits_text = std::string(text.substr(int_start, digits)) + std::string(fraction);
    const size_t nonzero = digits_text.find_first_not_of('0');
    const auto precision = static_cast<int64_t>(nonzero == std::string::npos ? 1 : digits_text.size() - nonzero);
    const int64_t scale = static_cast<int64_t>(fraction.size()) - exponent;
    if (scale < 0) {
      *negative_scale = true;
    } else if (std::max(precision, scale) <= kMaxDecimalPrecision) {
      *out = JsonType::Decimal(static_cast<int32_t>(std::max(precision, scale)), static_cast<int32_t>(scale));
      return true;
    }
  }
  if (!integer) {
    *out = JsonType::Of(JsonKind::kDouble);
    return true;
  }
  // Fits a signed 64-bit integer: fewer than 19 digits, or 19 no larger than its limit.
  const std::string_view mag = text.substr(int_start);
  const std::string_view limit = text[0] == '-' ? "9223372036854775808" : "9223372036854775807";
  if (digits < 19 || (digits == 19 && mag <= limit)) {
    *out = JsonType::Of(JsonKind::kLong);
  } else if (static_cast<int32_t>(digits) <= kMaxDecimalPrecision) {
    *out = JsonType::Decimal(static_cast<int32_t>(digits), 0);
  } else {
    *out = JsonType::Of(JsonKind::kDouble);
  }
  return true;
}

// Why a line cannot be inferred from: it is not valid JSON (a malformed record), or an object
// on it names a field twice (`fatal`: as in Spark, two columns of one name fail the read).
struct LineError {
  std::string message;
  bool fatal = false;
};

class JsonSchemaInference final : public SchemaInference {
 public:
  JsonSchemaInference(FileFormatOptions options, int64_t block_bytes)
      : options_(std::move(options)), block_bytes_(block_bytes) {}

  Status AddFile(io::FileSystem* fs, const std::string& path) override {
    return ForEachLineBlock(fs, path, block_bytes_,
                            [&](const std::shared_ptr<arrow::Buffer>& block, int64_t first_line, bool) {
                              return AddBlock(*block, first_line, path);
                            });
  }

  Result<std::shared_ptr<arrow::Schema>> Finish() override {
    if (passes_.empty() || (!passes_[0].seen_record && !passes_[0].seen_corrupt)) return nullptr;
    JsonType root = passes_[0].root;
    root.kind = JsonKind::kStruct;
    if (passes_[0].seen_corrupt) root = Merge(std::move(root), CorruptStruct());
    ARROW_RETURN_NOT_OK(CheckNamesDifferNotOnlyInCase(root, ""));
    std::vector<std::shared_ptr<arrow::Field>> fields;
    for (const auto& [name, type] : root.fields) {
      if (name.empty()) continue;  // as Spark: a field without a name is left out
      if (auto t = ToArrow(type)) fields.push_back(arrow::field(name, t));
    }
    return arrow::schema(std::move(fields));
  }

 private:
  // What the lines of one range of a block add up to (a range per thread).
  struct Pass {
    od::parser parser;
    JsonType root;
    bool seen_record = false;
    bool seen_corrupt = false;
    Status status;  // the range's first error (FAILFAST, a field named twice)
  };

  Status AddBlock(const arrow::Buffer& block, int64_t first_line, const std::string& path) {
    // One padded copy of the block, so each line can be parsed where it is.
    padded_.resize(static_cast<size_t>(block.size()) + simdjson::SIMDJSON_PADDING);
    std::memcpy(padded_.data(), block.data(), static_cast<size_t>(block.size()));
    const char* base = padded_.data();
    const size_t size = static_cast<size_t>(block.size());
    // A large block is cut into ranges of whole lines, one per core, folded in parallel and
    // merged in order (merging is order-independent; the first range's error is the file's first).
    const size_t cores = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
    const size_t parts = std::max<size_t>(1, std::min(cores, size / kParallelBytes));
    std::vector<size_t> starts = {0};
    for (size_t k = 1; k < parts; ++k) {
      const auto* nl = static_cast<const char*>(std::memchr(base + size * k / parts, '\n', size - size * k / parts));
      if (nl == nullptr || static_cast<size_t>(nl - base) + 1 >= size) break;
      if (static_cast<size_t>(nl - base) + 1 > starts.back()) starts.push_back(static_cast<size_t>(nl - base) + 1);
    }
    starts.push_back(size);
    passes_.resize(starts.size() - 1);
    auto fold = [&](size_t k, int64_t line) {
      Pass& pass = passes_[k];
      for (size_t b = starts[k]; b < starts[k + 1] && pass.status.ok(); ++line) {
        const auto* nl = static_cast<const char*>(std::memchr(base + b, '\n', starts[k + 1] - b));
        const size_t e = nl ? static_cast<size_t>(nl - base) : starts[k + 1];
        pass.status = AddLine(pass, base + b, e - b, padded_.size() - b, line, path);
        b = e + 1;
      }
    };
    std::vector<std::thread> threads;
    int64_t line = first_line;
    for (size_t k = 1; k + 1 < starts.size(); ++k) {
      line += std::count(base + starts[k - 1], base + starts[k], '\n');
      threads.emplace_back(fold, k, line);
    }
    fold(0, first_line);
    for (auto& t : threads) t.join();
    for (size_t k = 0; k < passes_.size(); ++k) {
      Pass& pass = passes_[k];
      ARROW_RETURN_NOT_OK(pass.status);
      if (k > 0) {
        passes_[0].root = Merge(std::move(passes_[0].root), pass.root);
        passes_[0].seen_record |= pass.seen_record;
        passes_[0].seen_corrupt |= pass.seen_corrupt;
        pass.root = JsonType();
        pass.seen_record = pass.seen_corrupt = false;
      }
    }
    return Status::OK();
  }

  Status AddLine(Pass& pass, const char* p, size_t len, size_t capacity, int64_t line, const std::string& path) {
    std::string_view text = TrimJsonSpaceRight(std::string_view(p, len));
    size_t lead = 0;
    while (lead < text.size() && (text[lead] == ' ' || text[lead] == '\t' || text[lead] == '\r')) ++lead;
    if (lead == text.size()) return Status::OK();  // a blank line: no record
    JsonType type;
    LineError error;
    bool ok = TypeOfLine(pass.parser, p, text.size(), capacity, &type, &error);
    if (!ok && !error.fatal) {  // perhaps for what follows the line's first value, which Spark ignores
      const size_t first = FirstJsonValueLength(text);
      if (first < text.size()) ok = TypeOfLine(pass.parser, p, first, capacity, &type, &(error = LineError()));
    }
    if (!ok) {
      if (error.fatal) {
        return Status::Invalid("Cannot infer the schema of ", io::PathToUri(path), ": line ", line, " ",
                               error.message);
      }
      return Malformed(pass, line, path, error.message);
    }
    // A top-level array holds records: its elements' type is the line's.
    while (type.kind == JsonKind::kArray) type = std::move(type.element[0]);
    if (type.kind == JsonKind::kNull) return Status::OK();  // null, [] or [null]: no record
    if (type.kind != JsonKind::kStruct) {
      return Malformed(pass, line, path, "the line is not a JSON object (or an array of objects)");
    }
    pass.seen_record = true;
    pass.root = Merge(std::move(pass.root), type);
    return Status::OK();
  }

  // Column names are not case-sensitive (as in Spark by default): two fields of one struct whose
  // names differ only in case would be one column named twice, which Spark refuses too.
  static Status CheckNamesDifferNotOnlyInCase(const JsonType& t, const std::string& where) {
    if (t.kind == JsonKind::kArray) return CheckNamesDifferNotOnlyInCase(t.element[0], where);
    if (t.kind != JsonKind::kStruct) return Status::OK();
    std::vector<std::pair<std::string, const std::string*>> lower;
    for (const auto& [name, type] : t.fields) {
      std::string l = name;
      std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      lower.emplace_back(std::move(l), &name);
      ARROW_RETURN_NOT_OK(CheckNamesDifferNotOnlyInCase(type, where + name + "."));
    }
    std::sort(lower.begin(), lower.end());
    for (size_t i = 1; i < lower.size(); ++i) {
      if (lower[i].first == lower[i - 1].first) {
        return Status::Invalid("the records give the fields `", where, *lower[i - 1].second, "` and `", where,
                               *lower[i].second, "`, whose names differ only in case, and column names are not "
                               "case-sensitive; declare the schema");
      }
    }
    return Status::OK();
  }

  // PERMISSIVE: the schema gets the corrupt-record column; DROPMALFORMED: the line is ignored;
  // FAILFAST: the read fails, naming the file and the line.
  Status Malformed(Pass& pass, int64_t line, const std::string& path, const std::string& why) const {
    switch (options_.mode) {
      case ParseMode::kPermissive:
        pass.seen_corrupt = true;
        return Status::OK();
      case ParseMode::kDropMalformed:
        return Status::OK();
      case ParseMode::kFailFast:
        break;
    }
    return Status::Invalid("Malformed records are detected in schema inference. Parse Mode: FAILFAST. ",
                           io::PathToUri(path), " line ", line, ": ", why);
  }

  JsonType CorruptStruct() const {
    JsonType s = JsonType::Of(JsonKind::kStruct);
    s.fields.emplace_back(options_.corrupt_column, JsonType::Of(JsonKind::kString));
    return s;
  }

  bool TypeOfLine(od::parser& parser, const char* p, size_t len, size_t capacity, JsonType* out,
                  LineError* error) const {
    od::document doc;
    auto fail = [&](simdjson::error_code code) {
      error->message = std::string("not valid JSON (") + simdjson::error_message(code) + ")";
      return false;
    };
    if (auto code = parser.iterate(simdjson::padded_string_view(p, len, capacity)).get(doc)) return fail(code);
    od::json_type kind;
    if (auto code = doc.type().get(kind)) return fail(code);
    if (kind == od::json_type::object || kind == od::json_type::array) {
      od::value root;
      if (auto code = doc.get_value().get(root)) return fail(code);
      if (!TypeOf(root, out, error)) return false;
    } else if (kind == od::json_type::null) {
      bool is_null = false;
      if (auto code = doc.is_null().get(is_null)) return fail(code);
      if (!is_null) return fail(simdjson::N_ATOM_ERROR);
      *out = JsonType::Of(JsonKind::kNull);
    } else {
      *out = JsonType::Of(JsonKind::kString);  // a scalar: not a record, whatever its type
    }
    return true;  // anything after the line's first value is ignored, as Spark does
  }

  bool TypeOf(od::value value, JsonType* out, LineError* error) const {
    auto fail = [&](simdjson::error_code code) {
      error->message = std::string("not valid JSON (") + simdjson::error_message(code) + ")";
      return false;
    };
    od::json_type kind;
    if (auto code = value.type().get(kind)) return fail(code);
    switch (kind) {
      case od::json_type::object: {
        od::object object;
        if (auto code = value.get_object().get(object)) return fail(code);
        *out = JsonType::Of(JsonKind::kStruct);
        for (auto field : object) {
          std::string_view key;
          if (auto code = field.unescaped_key().get(key)) return fail(code);
          std::string name(key);
          JsonType type;
          od::value v;
          if (auto code = field.value().get(v)) return fail(code);
          if (!TypeOf(v, &type, error)) return false;
          out->fields.emplace_back(std::move(name), std::move(type));
        }
        std::stable_sort(out->fields.begin(), out->fields.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        for (size_t i = 1; i < out->fields.size(); ++i) {
          if (out->fields[i].first == out->fields[i - 1].first) {
            error->message = "names the field \"" + out->fields[i].first +
                             "\" twice in one object, which would make two columns of that name";
            error->fatal = true;
            return false;
          }
        }
        return true;
      }
      case od::json_type::array: {
        od::array array;
        if (auto code = value.get_array().get(array)) return fail(code);
        *out = JsonType::Of(JsonKind::kArray);
        JsonType element;
        for (auto item : array) {
          od::value v;
          if (auto code = item.get(v)) return fail(code);
          JsonType t;
          if (!TypeOf(v, &t, error)) return false;
          element = Merge(std::move(element), t);
        }
        out->element.push_back(std::move(element));
        return true;
      }
      case od::json_type::number: {
        const std::string_view text = TrimJsonSpaceRight(value.raw_json_token());
        bool negative_scale = false;
        if (!NumberType(text, options_.prefers_decimal, out, &negative_scale)) return fail(simdjson::NUMBER_ERROR);
        if (negative_scale) {
          error->message = "gives the number " + std::string(text) + ", a decimal of negative scale with option "
                           "prefersDecimal, which Spark refuses too";
          error->fatal = true;
          return false;
        }
        break;
      }
      case od::json_type::string: {
        std::string_view s;
        if (auto code = value.get_string().get(s)) return fail(code);
        *out = JsonType::Of(JsonKind::kString);
        return true;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto code = value.get_bool().get(b)) return fail(code);
        *out = JsonType::Of(JsonKind::kBoolean);
        break;
      }
      case od::json_type::null: {
        bool is_null = false;
        if (auto code = value.is_null().get(is_null)) return fail(code);
        if (!is_null) return fail(simdjson::N_ATOM_ERROR);
        *out = JsonType::Of(JsonKind::kNull);
        return true;
      }
    }
    if (options_.primitives_as_string) *out = JsonType::Of(JsonKind::kString);  // a number or a boolean
    return true;
  }

  // The Arrow type of an inferred type, or null when Spark leaves the field out: an empty struct
  // (or an array of one), and with dropFieldIfAllNull a field never seen with a value. A NULL
  // field is otherwise a STRING.
  std::shared_ptr<arrow::DataType> ToArrow(const JsonType& t) const {
    switch (t.kind) {
      case JsonKind::kNull:
        return options_.drop_field_if_all_null ? nullptr : arrow::utf8();
      case JsonKind::kBoolean:
        return arrow::boolean();
      case JsonKind::kLong:
        return arrow::int64();
      case JsonKind::kDecimal:
        return arrow::decimal128(t.precision, t.scale);
      case JsonKind::kDouble:
        return arrow::float64();
      case JsonKind::kString:
        return arrow::utf8();
      case JsonKind::kArray: {
        auto element = ToArrow(t.element[0]);
        return element ? arrow::list(arrow::field("element", element)) : nullptr;
      }
      case JsonKind::kStruct: {
        std::vector<std::shared_ptr<arrow::Field>> fields;
        for (const auto& [name, type] : t.fields) {
          if (name.empty()) continue;
          if (auto f = ToArrow(type)) fields.push_back(arrow::field(name, f));
        }
        return fields.empty() ? nullptr : arrow::struct_(std::move(fields));
      }
    }
    return arrow::utf8();
  }

  FileFormatOptions options_;
  int64_t block_bytes_;
  std::vector<char> padded_;
  std::vector<Pass> passes_;  // [0] holds what every block so far adds up to
};

}  // namespace

std::unique_ptr<SchemaInference> MakeJsonSchemaInference(const FileFormatOptions& options, int64_t block_bytes) {
  return std::make_unique<JsonSchemaInference>(options, block_bytes);
}

}  // namespace sluice::source
