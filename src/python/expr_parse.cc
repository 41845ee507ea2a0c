#include "python/expr_parse.h"

#include <arrow/type.h>

#include "api/access.h"
#include "sql/sql_expr.h"
#include "sql/sql_functions.h"
#include "sql/sql_parse.h"
#include "sql/sql_text.h"

namespace sluice::python {

Result<Column> ParseColumnExpression(const std::string& sql, const std::shared_ptr<arrow::Schema>& schema) {
  // Parsed as the only item of a SELECT; the prefix is blanked out of error carets by offset.
  static const std::string kPrefix = "SELECT ";
  sql::SqlText text("<expr>", kPrefix + sql);
  ARROW_ASSIGN_OR_RAISE(auto stmts, sql::ParseStatements(text));
  const nlohmann::json stmt = stmts.size() == 1 ? stmts[0] : nlohmann::json();
  const auto& select = sql::Field(sql::Field(stmt, "stmt"), "SelectStmt");
  const auto& targets = sql::Field(select, "targetList");
  if (stmts.size() != 1 || !targets.is_array() || targets.size() != 1 || !sql::Field(select, "fromClause").is_null()) {
    return Status::Invalid("expr(\"", sql, "\"): expected one SQL expression, optionally followed by AS <name>");
  }
  const auto& target = sql::Field(targets[0], "ResTarget");
  sql::ExprTranslator translator(text, schema ? schema : arrow::schema({}), {});
  ARROW_ASSIGN_OR_RAISE(auto e, translator.Translate(sql::Field(target, "val")));
  Column column = api::MakeColumn(e);
  const std::string alias = sql::StringField(target, "name");
  if (!alias.empty()) {
    // The alias as the user spelled it (the parser folds unquoted names to lower case).
    const int start = sql::LocationOf(target);
    column = column.alias(text.SpellingIn(alias, start, static_cast<int>(text.text().size())));
  }
  return column;
}

Result<Column> CallSqlFunction(const std::string& name, const std::vector<Column>& args) {
  sql::SqlFunctionCall call;
  call.name = name;
  std::string shown = name + "(";
  for (size_t i = 0; i < args.size(); ++i) {
    call.args.push_back(api::ExprOf(args[i]));
    call.arg_locations.push_back(0);
    shown += (i ? ", " : "") + args[i].toString();
  }
  call.location = 0;
  sql::SqlText text("<" + name + ">", shown + ")");
  ARROW_ASSIGN_OR_RAISE(auto e, sql::BuildFunctionCall(call, text));
  return api::MakeColumn(e);
}

std::vector<std::string> SqlFunctionNames() { return sql::SqlFunctionNames(); }

}  // namespace sluice::python
