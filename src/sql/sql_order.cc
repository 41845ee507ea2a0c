#include "sql/sql_order.h"

#include <arrow/api.h>

#include "api/access.h"
#include "plan/expr_resolve.h"
#include "sql/sql_parse.h"

namespace sluice::sql {
namespace {

using nlohmann::json;
using plan::ExprPtr;

const plan::Expr& Unalias(const plan::Expr& e) {
  return e.kind == plan::Expr::Kind::kAlias && !e.args.empty() ? Unalias(*e.args[0]) : e;
}

// An integer literal's value, if `e` is one.
std::optional<int64_t> IntegerLiteral(const plan::Expr& e) {
  if (e.kind != plan::Expr::Kind::kLiteral || !e.value || !e.value->is_valid) return std::nullopt;
  if (!plan::IsIntegerType(*e.value->type)) return std::nullopt;
  auto v = e.value->CastTo(arrow::int64());
  if (!v.ok()) return std::nullopt;
  return static_cast<const arrow::Int64Scalar&>(**v).value;
}

Result<ExprPtr> SortExpr(const json& node, int location, const DataFrame& frame, const std::vector<SelectItem>& items,
                         ExprTranslator& translator, ExprTranslator& result_translator, const SqlText& text) {
  const arrow::Schema& out = *frame.schema();
  ARROW_ASSIGN_OR_RAISE(ExprPtr written, translator.Translate(node));
  if (auto pos = IntegerLiteral(*written)) {
    if (*pos < 1 || *pos > out.num_fields()) {
      return text.ErrorAt(location, "ORDER BY position " + std::to_string(*pos) + " is not in the select list (1.." +
                                        std::to_string(out.num_fields()) + ")");
    }
    return plan::Expr::Column(out.field(static_cast<int>(*pos - 1))->name());
  }
  const std::string written_text = written->ToString();
  for (const auto& item : items) {
    if (plan::IsStar(*item.expr)) continue;
    if (Unalias(*item.expr).ToString() == written_text) return plan::Expr::Column(plan::OutputName(*item.expr));
  }
  ARROW_ASSIGN_OR_RAISE(ExprPtr over_result, result_translator.Translate(node));
  auto resolved = plan::ResolveExpr(*over_result, out);
  if (!resolved.ok()) {
    return result_translator.LocateError(
        over_result,
        Status::Invalid(resolved.status().message(), " (ORDER BY may use the query's result columns, their "
                                                     "positions, or a selected expression written again)"),
        location);
  }
  return over_result;
}

}  // namespace

Result<DataFrame> ApplyOrderByAndLimit(const json& select, int begin, const DataFrame& frame,
                                       const std::vector<SelectItem>& items, ExprTranslator& translator,
                                       ExprTranslator& result_translator, const SqlText& text) {
  if (!Field(select, "limitOffset").is_null()) {
    return text.ErrorAt(FirstLocation(Field(select, "limitOffset"), begin), "OFFSET is not supported");
  }
  DataFrame df = frame;
  const json& sort = Field(select, "sortClause");
  if (sort.is_array() && !sort.empty()) {
    std::vector<SortOrder> keys;
    for (const auto& item : sort) {
      const json& by = Field(item, "SortBy");
      const int location = FirstLocation(Field(by, "node"), begin);
      ARROW_ASSIGN_OR_RAISE(ExprPtr e, SortExpr(Field(by, "node"), location, frame, items, translator,
                                                result_translator, text));
      const std::string dir = StringField(by, "sortby_dir", "SORTBY_DEFAULT");
      if (dir == "SORTBY_USING") return text.ErrorAt(location, "ORDER BY ... USING is not supported");
      SortOrder key(api::MakeColumn(e), dir != "SORTBY_DESC");
      const std::string nulls = StringField(by, "sortby_nulls", "SORTBY_NULLS_DEFAULT");
      if (nulls == "SORTBY_NULLS_FIRST") key.nulls_first = true;
      if (nulls == "SORTBY_NULLS_LAST") key.nulls_first = false;
      keys.push_back(std::move(key));
    }
    df = df.orderBy(std::move(keys));
    if (!df.ok()) return text.ErrorAt(FirstLocation(sort, begin), df.status().message());
  }
  const json& limit = Field(select, "limitCount");
  if (!limit.is_null()) {
    const int location = FirstLocation(limit, begin);
    ARROW_ASSIGN_OR_RAISE(ExprPtr n, translator.Translate(limit));
    if (n->kind == plan::Expr::Kind::kLiteral && n->value && !n->value->is_valid) return df;  // LIMIT ALL / NULL
    auto value = IntegerLiteral(*n);
    if (!value || *value < 0) {
      return text.ErrorAt(location, "LIMIT takes a non-negative integer literal, not " + n->ToString());
    }
    df = df.limit(*value);
    if (!df.ok()) return text.ErrorAt(location, df.status().message());
  }
  return df;
}

}  // namespace sluice::sql
