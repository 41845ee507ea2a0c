#include "sql/sql_types.h"

#include <arrow/api.h>

#include <cctype>

#include "plan/expr.h"
#include "sql/sql_parse.h"

namespace sluice::sql {
namespace {

// libpg_query's internal names for the SQL standard spellings.
std::string SparkName(const std::string& pg_name) {
  if (pg_name == "int8") return "bigint";
  if (pg_name == "int4") return "int";
  if (pg_name == "int2") return "smallint";
  if (pg_name == "float8") return "double";
  if (pg_name == "float4") return "float";
  if (pg_name == "bool") return "boolean";
  if (pg_name == "numeric") return "decimal";
  if (pg_name == "bpchar" || pg_name == "varchar") return "string";
  return pg_name;
}

using DataTypePtr = std::shared_ptr<arrow::DataType>;

// Spark's nested type syntax, read from the user's text (the grammar saw a placeholder name, see
// kSparkNestedTypeWords): ARRAY<t>, STRUCT<name[:] t, ...> (names may be `quoted`), MAP<k, v>;
// the leaves are the names plan::ParseTypeName knows.
class NestedTypeReader {
 public:
  NestedTypeReader(const SqlText& text, size_t pos) : text_(text), s_(text.text()), pos_(pos) {}

  Result<DataTypePtr> Type() {
    Skip();
    const size_t at = pos_;
    const std::string word = Word();
    const std::string lower = FoldCase(word);
    if (lower == "array" || lower == "struct" || lower == "map") {
      ARROW_RETURN_NOT_OK(Expect('<'));
      if (lower == "array") {
        ARROW_ASSIGN_OR_RAISE(auto element, Type());
        ARROW_RETURN_NOT_OK(Expect('>'));
        return arrow::list(arrow::field("element", element));
      }
      if (lower == "map") {
        ARROW_ASSIGN_OR_RAISE(auto key, Type());
        ARROW_RETURN_NOT_OK(Expect(','));
        ARROW_ASSIGN_OR_RAISE(auto value, Type());
        ARROW_RETURN_NOT_OK(Expect('>'));
        return arrow::map(key, value);
      }
      arrow::FieldVector fields;
      for (;;) {
        Skip();
        const size_t name_at = pos_;
        std::string name;
        if (pos_ < s_.size() && s_[pos_] == '`') {
          const size_t close = s_.find('`', pos_ + 1);
          if (close == std::string::npos) return text_.ErrorAt(static_cast<int>(pos_), "unclosed `quoted` field name");
          name = s_.substr(pos_ + 1, close - pos_ - 1);
          pos_ = close + 1;
        } else {
          name = Word();
        }
        if (name.empty()) return text_.ErrorAt(static_cast<int>(name_at), "expected a field name in STRUCT<name TYPE, ...>");
        Skip();
        if (pos_ < s_.size() && s_[pos_] == ':') ++pos_;
        ARROW_ASSIGN_OR_RAISE(auto type, Type());
        fields.push_back(arrow::field(name, type));
        Skip();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        ARROW_RETURN_NOT_OK(Expect('>'));
        return arrow::struct_(std::move(fields));
      }
    }
    if (word.empty()) return text_.ErrorAt(static_cast<int>(at), "expected a type name");
    std::string name = lower;
    Skip();
    if (pos_ < s_.size() && s_[pos_] == '(') {  // DECIMAL(10,2), VARCHAR(20)
      const size_t close = s_.find(')', pos_);
      if (close == std::string::npos) return text_.ErrorAt(static_cast<int>(pos_), "unclosed '(' in a type");
      for (size_t k = pos_; k <= close; ++k) {
        if (!std::isspace(static_cast<unsigned char>(s_[k]))) name += s_[k];
      }
      pos_ = close + 1;
    }
    auto type = plan::ParseTypeName(name);
    if (!type.ok()) return text_.ErrorAt(static_cast<int>(at), type.status().message());
    return *type;
  }

 private:
  void Skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  std::string Word() {
    const size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    return s_.substr(start, pos_ - start);
  }
  Status Expect(char c) {
    Skip();
    if (pos_ >= s_.size() || s_[pos_] != c) {
      return text_.ErrorAt(static_cast<int>(pos_), std::string("expected '") + c + "' in a nested type such as "
                                                   "ARRAY<STRING>, STRUCT<city: STRING, zip: INT> or MAP<STRING, INT>");
    }
    ++pos_;
    return Status::OK();
  }

  const SqlText& text_;
  const std::string& s_;
  size_t pos_;
};

bool StartsNestedType(const std::string& s, size_t at) {
  for (const char* word : {"array", "struct", "map"}) {
    const size_t n = std::char_traits<char>::length(word);
    if (at + n < s.size() && FoldCase(s.substr(at, n)) == word && s[at + n] == '<') return true;
  }
  return false;
}

}  // namespace

Result<std::shared_ptr<arrow::DataType>> TypeFromSql(const nlohmann::json& type_name, const SqlText& text) {
  const int location = LocationOf(type_name);
  if (location >= 0 && StartsNestedType(text.text(), static_cast<size_t>(location))) {
    return NestedTypeReader(text, static_cast<size_t>(location)).Type();
  }
  std::vector<std::string> names = StringList(Field(type_name, "names"));
  if (names.empty()) return text.ErrorAt(location, "missing type name");
  std::string written = names.back();
  if (Field(type_name, "arrayBounds").is_array()) {
    return text.ErrorAt(location, "array types are not supported (type '" + written + "[]')");
  }
  std::string name = SparkName(written);
  if (name == "decimal") {
    // DECIMAL(p,s): the modifiers are A_Const integer nodes.
    std::vector<int64_t> mods;
    for (const auto& m : Field(type_name, "typmods")) {
      const auto& c = Field(m, "A_Const");
      mods.push_back(IntField(Field(c, "ival"), "ival", 0));
    }
    if (mods.size() == 1) name = "decimal(" + std::to_string(mods[0]) + ",0)";
    if (mods.size() == 2) name = "decimal(" + std::to_string(mods[0]) + "," + std::to_string(mods[1]) + ")";
  }
  auto type = plan::ParseTypeName(name);
  if (!type.ok()) return text.ErrorAt(location, type.status().message());
  return *type;
}

}  // namespace sluice::sql
