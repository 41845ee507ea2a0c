// SQL expressions (libpg_query nodes) -> plan::Expr, producing exactly the trees the C++
// Column API builds (col, lit, operators, functions of plan::kFunctionNames), so a SQL query
// and its DataFrame twin have the same plan text. Remembers where each Expr came from, so a
// resolution error (unknown column, type mismatch) can point at the sub-expression at fault.
#pragma once

#include <arrow/type_fwd.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "plan/expr.h"
#include "sql/sql_interval.h"
#include "sql/sql_text.h"

namespace sluice::sql {

class ExprTranslator {
 public:
  /// `input` is the schema the expressions are evaluated on; `table_names` are the names a
  /// column may be qualified with (the FROM table and its alias), compared ignoring case.
  /// `mode` is given to every cast and function call it makes (spark.sql.ansi.enabled).
  ExprTranslator(const SqlText& text, std::shared_ptr<arrow::Schema> input, std::vector<std::string> table_names,
                 plan::EvalMode mode = plan::EvalMode::kAnsi);

  /// Translates one expression node ({"ColumnRef": ...}, {"A_Expr": ...}, ...). Errors for
  /// unsupported constructs and unknown functions are located; unknown columns are not
  /// detected here (LocateError finds them after the DataFrame refused the expression).
  Result<plan::ExprPtr> Translate(const nlohmann::json& node);

  /// Where `e` (a node this translator made) starts in the text, or -1.
  int LocationOf(const plan::Expr* e) const;

  /// Given that resolving `root` against the input schema failed with `error`, returns the
  /// error of the innermost sub-expression that fails on its own, located at that
  /// sub-expression; `error` located at `fallback_location` when no sub-expression fails alone.
  Status LocateError(const plan::ExprPtr& root, const Status& error, int fallback_location) const;

 private:
  plan::ExprPtr Remember(plan::ExprPtr e, int location);
  bool IsIntervalNode(const nlohmann::json& node) const;
  Result<IntervalValue> IntervalOf(const nlohmann::json& node) const;
  Result<plan::ExprPtr> TranslateColumnRef(const nlohmann::json& body);
  Result<plan::ExprPtr> TranslateConst(const nlohmann::json& body);
  Result<plan::ExprPtr> TranslateAExpr(const nlohmann::json& body);
  Result<plan::ExprPtr> TranslateBool(const nlohmann::json& body);
  Result<plan::ExprPtr> TranslateCase(const nlohmann::json& body);
  Result<plan::ExprPtr> TranslateFuncCall(const nlohmann::json& body);
  /// The pattern of [I]LIKE (`what`): a string literal, with `ESCAPE 'c'` rewritten to the
  /// evaluator's backslash escapes.
  Result<plan::ExprPtr> TranslateLikePattern(const nlohmann::json& rexpr, const std::string& what);
  Result<plan::ExprPtr> TranslateIndirection(const nlohmann::json& body);
  /// A window size: INTERVAL '10 minutes', INTERVAL '10' MINUTE or '10 minutes' -> a string literal.
  Result<plan::ExprPtr> TranslateIntervalLiteral(const nlohmann::json& node);
  Result<std::vector<plan::ExprPtr>> TranslateList(const nlohmann::json& nodes);
  /// The schema's spelling of column `name`: exact match, else the one column equal ignoring
  /// case (SQL identifiers are case-insensitive), else `name` unchanged.
  std::string ColumnName(const std::string& name) const;
  std::optional<Status> InnermostError(const plan::Expr& e, int inherited_location) const;

  const SqlText& text_;
  std::shared_ptr<arrow::Schema> input_;
  std::vector<std::string> table_names_;
  plan::EvalMode mode_;
  std::map<const plan::Expr*, int> locations_;
  std::vector<plan::ExprPtr> keep_alive_;  // keys of locations_ stay valid
};

}  // namespace sluice::sql
