#include "source/json_string_values.h"

#include <simdjson.h>

#include <arrow/api.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::source {
namespace {

namespace od = simdjson::ondemand;

// A value to replace: bytes [begin, end) of the padded copy.
struct Span {
  size_t begin;
  size_t end;
};

bool IsTextType(const arrow::DataType& t) {
  return t.id() == arrow::Type::STRING || t.id() == arrow::Type::LARGE_STRING;
}

bool HoldsString(const arrow::DataType& t) {
  if (IsTextType(t)) return true;
  for (const auto& child : t.fields()) {
    if (HoldsString(*child->type())) return true;
  }
  return false;
}

// Walks a line's values along the schema, collecting the spans of the values to quote. Any
// simdjson error ends the walk: such a line is left alone (its decoder finds it malformed).
class Walker {
 public:
  explicit Walker(const char* base) : base_(base) {}

  bool Value(od::value value, const arrow::DataType& type) {
    od::json_type kind;
    if (value.type().get(kind)) return false;
    if (IsTextType(type)) {
      std::string_view text;
      switch (kind) {
        case od::json_type::string:
        case od::json_type::null:
          return true;
        case od::json_type::number:
        case od::json_type::boolean:
          text = TrimJsonSpaceRight(value.raw_json_token());
          break;
        case od::json_type::object: {
          od::object object;
          if (value.get_object().get(object) || object.raw_json().get(text)) return false;
          break;
        }
        case od::json_type::array: {
          od::array array;
          if (value.get_array().get(array) || array.raw_json().get(text)) return false;
          break;
        }
      }
      text = TrimJsonSpaceRight(text);
      spans_.push_back(Span{static_cast<size_t>(text.data() - base_), static_cast<size_t>(text.data() - base_) + text.size()});
      return true;
    }
    if (type.id() == arrow::Type::STRUCT && kind == od::json_type::object) {
      od::object object;
      if (value.get_object().get(object)) return false;
      return Object(object, [&](std::string_view key) -> const arrow::DataType* {
        auto field = static_cast<const arrow::StructType&>(type).GetFieldByName(std::string(key));
        return field && HoldsString(*field->type()) ? field->type().get() : nullptr;
      });
    }
    if (type.id() == arrow::Type::MAP && kind == od::json_type::object) {
      od::object object;
      if (value.get_object().get(object)) return false;
      const arrow::DataType* item = static_cast<const arrow::MapType&>(type).item_type().get();
      return Object(object, [&](std::string_view) { return item; });
    }
    if ((type.id() == arrow::Type::LIST || type.id() == arrow::Type::LARGE_LIST) && kind == od::json_type::array) {
      od::array array;
      if (value.get_array().get(array)) return false;
      const auto& element = *static_cast<const arrow::BaseListType&>(type).value_type();
      for (auto item : array) {
        od::value v;
        if (item.get(v) || !Value(v, element)) return false;
      }
    }
    return true;  // a value of another kind is left to the decoder, which rejects it
  }

  // The fields of `object`; `type_of(key)` is the type to read a field's value as, or null when
  // nothing in it can need quoting.
  template <typename TypeOf>
  bool Object(od::object object, TypeOf type_of) {
    for (auto field : object) {
      std::string_view key;
      if (field.unescaped_key().get(key)) return false;
      const arrow::DataType* type = type_of(key);
      od::value v;
      if (field.value().get(v)) return false;
      if (type != nullptr && !Value(v, *type)) return false;
    }
    return true;
  }

  std::vector<Span>& spans() { return spans_; }

 private:
  const char* base_;
  std::vector<Span> spans_;
};

// `text` as a JSON string literal.
void AppendQuoted(std::string_view text, std::string* out) {
  out->push_back('"');
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof(esc), "\\u%04x", u);
      out->append(esc);
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

}  // namespace

std::string_view TrimJsonSpaceRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

size_t FirstJsonValueLength(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  if (i == line.size() || (line[i] != '{' && line[i] != '[')) return line.size();
  int64_t depth = 0;
  bool in_string = false;
  for (; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return line.size();
}

Result<std::shared_ptr<arrow::Buffer>> RewriteJsonLines(const arrow::Buffer& data, const arrow::Schema& schema) {
  const size_t size = static_cast<size_t>(data.size());
  std::vector<char> padded(size + simdjson::SIMDJSON_PADDING);
  std::memcpy(padded.data(), data.data(), size);
  const char* base = padded.data();
  od::parser parser;
  std::string out;  // the rewritten lines, once a line changes
  bool changed = false;
  size_t copied = 0;  // bytes of `data` before this offset are in `out`
  for (size_t b = 0; b < size;) {
    const auto* nl = static_cast<const char*>(std::memchr(base + b, '\n', size - b));
    const size_t e = nl ? static_cast<size_t>(nl - base) : size;
    // Only a line that starts with an object can need either rewrite.
    size_t first = b;
    while (first < e && (base[first] == ' ' || base[first] == '\t' || base[first] == '\r')) ++first;
    if (first < e && base[first] == '{') {
      // The line's object alone is parsed; what follows it is cut.
      const size_t len = FirstJsonValueLength(std::string_view(base + b, e - b));
      const bool cut = std::string_view(base + b + len, e - b - len).find_first_not_of(" \t\r") != std::string_view::npos;
      Walker walker(base);
      od::document doc;
      od::object root;
      bool ok = !parser.iterate(simdjson::padded_string_view(base + b, len, padded.size() - b)).get(doc) &&
                !doc.get_object().get(root) &&
                walker.Object(root, [&](std::string_view key) -> const arrow::DataType* {
                  auto field = schema.GetFieldByName(std::string(key));
                  return field && HoldsString(*field->type()) ? field->type().get() : nullptr;
                });
      if (ok && (!walker.spans().empty() || cut)) {
        if (!changed) out.reserve(size + size / 8);
        changed = true;
        for (const Span& s : walker.spans()) {
          out.append(base + copied, s.begin - copied);
          AppendQuoted(std::string_view(base + s.begin, s.end - s.begin), &out);
          copied = s.end;
        }
        if (cut) {  // the line ends with its object
          out.append(base + copied, b + len - copied);
          copied = e;
        }
      }
    }
    b = e + 1;
  }
  if (!changed) return nullptr;
  out.append(base + copied, size - copied);
  return arrow::Buffer::FromString(std::move(out));
}

Result<std::optional<std::string>> ArrayElementsAsLines(const arrow::Buffer& line) {
  const size_t size = static_cast<size_t>(line.size());
  size_t first = 0;
  const auto* bytes = reinterpret_cast<const char*>(line.data());
  while (first < size && (bytes[first] == ' ' || bytes[first] == '\t' || bytes[first] == '\r')) ++first;
  if (first == size || bytes[first] != '[') return std::nullopt;
  simdjson::padded_string padded(bytes, FirstJsonValueLength(std::string_view(bytes, size)));  // the rest is ignored
  od::parser parser;
  od::document doc;
  od::array array;
  auto bad = [](const std::string& why) { return Status::Invalid("a JSON array of records ", why); };
  if (auto code = parser.iterate(padded).get(doc)) return bad(simdjson::error_message(code));
  if (auto code = doc.get_array().get(array)) return bad(simdjson::error_message(code));
  std::string out;
  for (auto item : array) {
    od::value v;
    od::json_type kind;
    if (auto code = item.get(v)) return bad(simdjson::error_message(code));
    if (auto code = v.type().get(kind)) return bad(simdjson::error_message(code));
    if (kind != od::json_type::object) return bad("holds an element that is not an object");
    od::object object;
    std::string_view text;
    if (auto code = v.get_object().get(object)) return bad(simdjson::error_message(code));
    if (auto code = object.raw_json().get(text)) return bad(simdjson::error_message(code));
    out.append(TrimJsonSpaceRight(text));
    out.push_back('\n');
  }
  return std::optional<std::string>(std::move(out));  // anything after the array is ignored, as Spark does
}

}  // namespace sluice::source
