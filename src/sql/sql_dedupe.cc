#include "sql/sql_dedupe.h"

#include <arrow/api.h>

#include "api/access.h"
#include "plan/logical_plan.h"
#include "sql/sql_parse.h"
#include "sql/sql_spark_spelling.h"

namespace sluice::sql {
namespace {

using nlohmann::json;

// Where a recorded dedupe (the ROW_NUMBER FuncCall body) is kept on a SelectStmt body; not a
// field libpg_query ever writes.
constexpr const char* kDedupeKey = "sluiceRowNumberDedupe";

const char* const kPattern = "ROW_NUMBER() OVER (PARTITION BY key ORDER BY ts) = 1";

bool IsOne(const json& node) {
  const json& c = Field(node, "A_Const");
  return !c.is_null() && Field(Field(c, "ival"), "ival").is_number_integer() && Field(Field(c, "ival"), "ival").get<int64_t>() == 1;
}

std::string FunctionName(const json& call) {
  const json& names = Field(call, "funcname");
  return names.is_array() && !names.empty() ? FoldCase(StringField(Field(names.back(), "String"), "sval")) : "";
}

// `expr` = 1 or 1 = `expr`: the other side, or null.
const json* EqualsOne(const json& node) {
  const json& e = Field(node, "A_Expr");
  if (e.is_null() || StringField(e, "kind") != "AEXPR_OP") return nullptr;
  const json& name = Field(e, "name");
  if (!name.is_array() || name.size() != 1 || StringField(Field(name[0], "String"), "sval") != "=") return nullptr;
  if (IsOne(Field(e, "rexpr"))) return &Field(e, "lexpr");
  if (IsOne(Field(e, "lexpr"))) return &Field(e, "rexpr");
  return nullptr;
}

// QUALIFY <expr>: the ROW_NUMBER call of `expr`, or a located refusal.
Result<json> QualifyCall(const json& expr, const SqlText& text, int fallback) {
  const int location = FirstLocation(expr, fallback);
  const json* side = EqualsOne(expr);
  const json& call = side ? Field(*side, "FuncCall") : json();
  if (call.is_null() || Field(call, "over").is_null()) {
    return text.ErrorAt(location, std::string("QUALIFY supports one form, a dedupe: QUALIFY ") + kPattern +
                                      " (keeps the first row of each key)");
  }
  if (FunctionName(call) != "row_number") {
    return text.ErrorAt(LocationOf(call), "window function '" + FunctionName(call) + "' is not supported in QUALIFY; "
                                          "only the dedupe " + kPattern + " is");
  }
  return call;
}

bool IsColumnNamed(const json& node, const std::string& name) {
  const json& fields = Field(Field(node, "ColumnRef"), "fields");
  return fields.is_array() && !fields.empty() && FoldCase(StringField(Field(fields.back(), "String"), "sval")) == FoldCase(name);
}

// The subquery form: outer WHERE holds `rn = 1` (alone or as an AND conjunct) and the FROM
// subquery's select list has ROW_NUMBER() OVER (...) AS rn.
std::optional<json> TakeSubqueryForm(const json& select) {
  const json& from = Field(select, "fromClause");
  if (!from.is_array() || from.size() != 1 || Field(from[0], "RangeSubselect").is_null()) return std::nullopt;
  const json& inner = Field(Field(Field(from[0], "RangeSubselect"), "subquery"), "SelectStmt");
  if (inner.is_null() || StringField(inner, "op", "SETOP_NONE") != "SETOP_NONE") return std::nullopt;
  const json& targets = Field(inner, "targetList");
  const json& where = Field(select, "whereClause");
  if (where.is_null()) return std::nullopt;
  for (size_t t = 0; t < targets.size(); ++t) {
    const json& target = Field(targets[t], "ResTarget");
    const json& call = Field(Field(target, "val"), "FuncCall");
    const std::string name = StringField(target, "name");
    if (call.is_null() || Field(call, "over").is_null() || FunctionName(call) != "row_number" || name.empty()) continue;
    // Find `name = 1` in WHERE.
    std::vector<json> conjuncts;
    const json& boolean = Field(where, "BoolExpr");
    const bool is_and = !boolean.is_null() && StringField(boolean, "boolop") == "AND_EXPR";
    if (is_and) {
      for (const auto& a : Field(boolean, "args")) conjuncts.push_back(a);
    } else {
      conjuncts.push_back(where);
    }
    for (size_t c = 0; c < conjuncts.size(); ++c) {
      const json* side = EqualsOne(conjuncts[c]);
      if (!side || !IsColumnNamed(*side, name)) continue;
      json out = select;
      conjuncts.erase(conjuncts.begin() + static_cast<std::ptrdiff_t>(c));
      if (conjuncts.empty()) {
        out.erase("whereClause");
      } else if (conjuncts.size() == 1) {
        out["whereClause"] = conjuncts[0];
      } else {
        out["whereClause"]["BoolExpr"]["args"] = conjuncts;
      }
      json& new_inner = out["fromClause"][0]["RangeSubselect"]["subquery"]["SelectStmt"];
      new_inner[kDedupeKey] = call;
      // rn stays a column (Spark's output has it): always 1 for the rows kept.
      new_inner["targetList"][t]["ResTarget"]["val"] =
          json{{"A_Const", {{"ival", {{"ival", 1}}}, {"location", LocationOf(call)}}}};
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<std::optional<json>> TakeRowNumberDedupe(const json& select, int begin, const SqlText& text) {
  const json& having = Field(select, "havingClause");
  if (!having.is_null() && IsQualifyClause(text.text(), begin, FirstLocation(having, begin))) {
    if (!Field(select, "groupClause").is_null()) {
      return text.ErrorAt(FirstLocation(having, begin), "QUALIFY with GROUP BY is not supported; dedupe in a "
                                                        "subquery and aggregate over it");
    }
    ARROW_ASSIGN_OR_RAISE(json call, QualifyCall(having, text, begin));
    json out = select;
    out.erase("havingClause");
    out[kDedupeKey] = call;
    return std::optional<json>(std::move(out));
  }
  return TakeSubqueryForm(select);
}

Result<DataFrame> ApplyRowNumberDedupe(const json& select, const DataFrame& df, const SqlText& text) {
  const json& call = Field(select, kDedupeKey);
  if (call.is_null()) return df;
  const int location = LocationOf(call);
  const json& over = Field(call, "over");
  const arrow::Schema& schema = *df.schema();
  std::vector<std::string> names;
  for (const auto& f : schema.fields()) names.push_back(f->name());
  // A plain column of the input, by its last name part (s.k is k).
  auto column = [&](const json& node, const char* what) -> Result<std::string> {
    const json& ref = Field(node, "ColumnRef");
    const int at = FirstLocation(node, location);
    const std::string folded = ref.is_null() ? "" : StringField(Field(Field(ref, "fields").back(), "String"), "sval");
    if (folded.empty()) {
      return text.ErrorAt(at, std::string("the ") + what + " of a ROW_NUMBER() dedupe must be a column: " + kPattern);
    }
    for (const auto& n : names) {
      if (FoldCase(n) == FoldCase(folded)) return n;
    }
    return text.ErrorAt(at, "column '" + folded + "' is not an input column of this query. Columns: " + JoinNames(names));
  };
  if (!StringField(over, "refname").empty() || !StringField(over, "name").empty()) {
    return text.ErrorAt(location, std::string("named windows are not supported; write ") + kPattern);
  }
  const json& partition = Field(over, "partitionClause");
  if (!partition.is_array() || partition.empty()) {
    return text.ErrorAt(location, std::string("ROW_NUMBER() for a dedupe needs PARTITION BY the key columns: ") + kPattern);
  }
  std::vector<std::string> keys;
  for (const auto& p : partition) {
    ARROW_ASSIGN_OR_RAISE(std::string key, column(p, "PARTITION BY"));
    keys.push_back(key);
  }
  const json& order = Field(over, "orderClause");
  if (!order.is_array() || order.empty()) {
    return text.ErrorAt(location, std::string("ROW_NUMBER() needs ORDER BY (as in Spark): ") + kPattern);
  }
  for (const auto& o : order) {
    const json& sort = Field(o, "SortBy");
    ARROW_RETURN_NOT_OK(column(Field(sort, "node"), "ORDER BY").status());
    if (StringField(sort, "sortby_dir") == "SORTBY_DESC") {
      return text.ErrorAt(FirstLocation(sort, location),
                          "ORDER BY ... DESC in a ROW_NUMBER() dedupe would keep the latest row of each key, which a "
                          "stream cannot know; keep the earliest (ASC), or aggregate with max_by(col, ts) GROUP BY the key");
    }
  }
  const auto& plan = api::PlanOf(df);
  const bool watermarked = !plan->WatermarkNodes().empty();
  DataFrame out = watermarked ? df.dropDuplicatesWithinWatermark(keys) : df.dropDuplicates(keys);
  if (!out.ok()) return text.ErrorAt(location, out.status().message());
  return out;
}

}  // namespace sluice::sql
