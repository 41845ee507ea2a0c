#include "sql/sql_types.h"

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

}  // namespace

Result<std::shared_ptr<arrow::DataType>> TypeFromSql(const nlohmann::json& type_name, const SqlText& text) {
  const int location = LocationOf(type_name);
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
