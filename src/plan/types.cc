// Spark/SQL type names <-> Arrow types, and DDL schema strings.
#include <arrow/api.h>

#include <cctype>
#include <string>

#include "plan/expr.h"
#include "util/numbers.h"
#include "util/strings.h"

namespace sluice::plan {
namespace {

constexpr const char* kValidTypes =
    "bigint (long, int8), int (integer, int4), smallint (short), tinyint (byte), double (float8, double "
    "precision), float (real, float4), boolean (bool), string (text, varchar, varchar(n)), timestamp "
    "(timestamptz), timestamp_ntz, date, decimal(p,s) (numeric(p,s)), binary";

// Collapses runs of whitespace to one space and removes spaces around '(' ',' ')'.
std::string Normalize(const std::string& s) {
  std::string out;
  for (char c : util::ToLower(util::Trim(s))) {
    bool space = std::isspace(static_cast<unsigned char>(c));
    if (space) {
      if (!out.empty() && out.back() != ' ' && out.back() != '(' && out.back() != ',') out += ' ';
      continue;
    }
    if ((c == '(' || c == ',' || c == ')') && !out.empty() && out.back() == ' ') out.pop_back();
    out += c;
  }
  return out;
}

Status UnknownType(const std::string& name) {
  return Status::Invalid("Unknown type '", name, "'. Valid types: ", kValidTypes);
}

// Parses "(a)" or "(a,b)" after a type keyword into up to two integers.
bool ParseParams(const std::string& s, std::vector<int>* params) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return false;
  std::string body = s.substr(1, s.size() - 2);
  size_t start = 0;
  while (true) {
    size_t comma = body.find(',', start);
    std::string part = body.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty() || part.size() > 4 || part.front() == '-') return false;
    auto value = util::ParseInt32(part, "type parameter");
    if (!value.ok()) return false;
    params->push_back(*value);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return !params->empty() && params->size() <= 2;
}

}  // namespace

Result<std::shared_ptr<arrow::DataType>> ParseTypeName(const std::string& name) {
  const std::string n = Normalize(name);
  if (n == "bigint" || n == "long" || n == "int8") return arrow::int64();
  if (n == "int" || n == "integer" || n == "int4") return arrow::int32();
  if (n == "smallint" || n == "short" || n == "int2") return arrow::int16();
  if (n == "tinyint" || n == "byte") return arrow::int8();
  if (n == "double" || n == "float8" || n == "double precision") return arrow::float64();
  if (n == "float" || n == "real" || n == "float4") return arrow::float32();
  if (n == "boolean" || n == "bool") return arrow::boolean();
  if (n == "string" || n == "text" || n == "varchar" || n == "char") return arrow::utf8();
  if (n == "timestamp" || n == "timestamptz" || n == "timestamp_ltz") return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  if (n == "timestamp_ntz") return arrow::timestamp(arrow::TimeUnit::MICRO);
  if (n == "date") return arrow::date32();
  if (n == "binary" || n == "bytea") return arrow::binary();
  if (n == "decimal" || n == "numeric" || n == "dec") return arrow::decimal128(10, 0);
  auto paren = n.find('(');
  if (paren != std::string::npos) {
    std::string head = n.substr(0, paren);
    std::vector<int> params;
    if (!ParseParams(n.substr(paren), &params)) return UnknownType(name);
    if ((head == "varchar" || head == "char") && params.size() == 1) return arrow::utf8();
    if (head == "decimal" || head == "numeric" || head == "dec") {
      int precision = params[0];
      int scale = params.size() > 1 ? params[1] : 0;
      if (precision < 1 || precision > 38 || scale > precision) {
        return Status::Invalid("Invalid type '", name, "': decimal precision must be 1..38 and scale <= precision");
      }
      return arrow::decimal128(precision, scale);
    }
  }
  return UnknownType(name);
}

std::string TypeName(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT64: return "bigint";
    case arrow::Type::INT32: return "int";
    case arrow::Type::INT16: return "smallint";
    case arrow::Type::INT8: return "tinyint";
    case arrow::Type::DOUBLE: return "double";
    case arrow::Type::FLOAT: return "float";
    case arrow::Type::BOOL: return "boolean";
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::STRING_VIEW: return "string";
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY: return "binary";
    case arrow::Type::DATE32:
    case arrow::Type::DATE64: return "date";
    case arrow::Type::NA: return "void";
    case arrow::Type::TIMESTAMP:
      return static_cast<const arrow::TimestampType&>(type).timezone().empty() ? "timestamp_ntz" : "timestamp";
    case arrow::Type::DECIMAL128:
    case arrow::Type::DECIMAL256: {
      const auto& d = static_cast<const arrow::DecimalType&>(type);
      return "decimal(" + std::to_string(d.precision()) + "," + std::to_string(d.scale()) + ")";
    }
    case arrow::Type::LIST:
      return "array<" + TypeName(*static_cast<const arrow::ListType&>(type).value_type()) + ">";
    case arrow::Type::STRUCT: {
      std::string out = "struct<";
      for (int i = 0; i < type.num_fields(); ++i) {
        out += (i ? "," : "") + type.field(i)->name() + ":" + TypeName(*type.field(i)->type());
      }
      return out + ">";
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(type);
      return "map<" + TypeName(*map.key_type()) + "," + TypeName(*map.item_type()) + ">";
    }
    default: return type.ToString();
  }
}

Result<std::shared_ptr<arrow::Schema>> ParseSchemaDDL(const std::string& ddl) {
  // Split on top-level commas (decimal(10,2) holds one).
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : ddl) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  parts.push_back(current);

  arrow::FieldVector fields;
  for (const std::string& raw : parts) {
    std::string part = util::Trim(raw);
    if (part.empty()) return Status::Invalid("Empty column definition in schema '", ddl, "'");
    std::string name;
    size_t pos = 0;
    if (part[0] == '`') {
      size_t close = part.find('`', 1);
      if (close == std::string::npos) return Status::Invalid("Unclosed ` in column definition '", part, "'");
      name = part.substr(1, close - 1);
      pos = close + 1;
    } else {
      while (pos < part.size() && !std::isspace(static_cast<unsigned char>(part[pos]))) ++pos;
      name = part.substr(0, pos);
    }
    std::string type_text = util::Trim(part.substr(pos));
    if (!type_text.empty() && type_text[0] == ':') type_text = util::Trim(type_text.substr(1));  // "name: type"
    bool nullable = true;
    const std::string lower = util::ToLower(type_text);
    const std::string kNotNull = " not null";
    if (lower.size() > kNotNull.size() && lower.compare(lower.size() - kNotNull.size(), kNotNull.size(), kNotNull) == 0) {
      nullable = false;
      type_text = util::Trim(type_text.substr(0, type_text.size() - kNotNull.size()));
    }
    if (name.empty() || type_text.empty()) {
      return Status::Invalid("Column definition '", part, "' must be '<name> <type> [NOT NULL]'");
    }
    auto type = ParseTypeName(type_text);
    if (!type.ok()) {
      return Status::Invalid("In column '", name, "' of schema '", ddl, "': ", type.status().message());
    }
    for (const auto& f : fields) {
      if (f->name() == name) return Status::Invalid("Duplicate column '", name, "' in schema '", ddl, "'");
    }
    fields.push_back(arrow::field(name, *type, nullable));
  }
  return arrow::schema(std::move(fields));
}

}  // namespace sluice::plan
