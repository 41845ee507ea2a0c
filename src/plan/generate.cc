#include "plan/generate.h"

#include <arrow/api.h>

#include "plan/expr_resolve.h"

namespace sluice::plan {
namespace {

bool IsPosExplode(const std::string& name) { return name == "posexplode" || name == "posexplode_outer"; }
bool IsOuter(const std::string& name) { return name == "explode_outer" || name == "posexplode_outer"; }

// The generator call of a select item (under an alias or not), or null.
const Expr* GeneratorOf(const Expr& item) {
  const Expr* e = &item;
  if (e->kind == Expr::Kind::kAlias && !e->args.empty()) e = e->args[0].get();
  return e->kind == Expr::Kind::kCall && IsGeneratorFunction(e->name) ? e : nullptr;
}

}  // namespace

bool IsGeneratorFunction(const std::string& name) {
  return name == "explode" || name == "explode_outer" || IsPosExplode(name);
}

Result<arrow::FieldVector> GeneratorFields(const Expr& generator, const arrow::Schema& input,
                                           const std::vector<std::string>& names) {
  if (generator.args.size() != 1) {
    return Status::Invalid(generator.name, " takes one array argument but got ", generator.args.size(), " in ",
                           generator.ToString());
  }
  ARROW_ASSIGN_OR_RAISE(auto arg, ResolveExpr(*generator.args[0], input));
  if (arg->type()->id() != arrow::Type::LIST) {
    return Status::TypeError(generator.name, " needs an array, but ", generator.args[0]->ToString(), " is ",
                             TypeName(*arg->type()), " (split(str, regex) or array(...) make one)");
  }
  const size_t want = IsPosExplode(generator.name) ? 2 : 1;
  if (names.size() != want) {
    return Status::Invalid(generator.name, " produces ", want, " column(s) but ", names.size(),
                           " name(s) were given in ", generator.ToString());
  }
  arrow::FieldVector out;
  if (want == 2) out.push_back(arrow::field(names[0], arrow::int32(), IsOuter(generator.name)));
  out.push_back(arrow::field(names.back(), static_cast<const arrow::ListType&>(*arg->type()).value_type()));
  return out;
}

Result<PlanPtr> LogicalPlan::Generate(PlanPtr input, ExprPtr generator, std::vector<std::string> columns) {
  ARROW_ASSIGN_OR_RAISE(auto fields, GeneratorFields(*generator, *input->schema, columns));
  arrow::FieldVector all = input->schema->fields();
  all.insert(all.end(), fields.begin(), fields.end());
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kGenerate;
  node->schema = arrow::schema(std::move(all));
  node->input = std::move(input);
  node->generator = std::move(generator);
  node->generator_columns = std::move(columns);
  return PlanPtr(node);
}

Result<PlanPtr> PlanSelectList(PlanPtr input, std::vector<ExprPtr> exprs) {
  const Expr* generator = nullptr;
  size_t at = 0;
  for (size_t i = 0; i < exprs.size(); ++i) {
    const Expr* g = GeneratorOf(*exprs[i]);
    if (!g) continue;
    if (generator) {
      return Status::Invalid("Only one generator is allowed per select list, but found ", generator->ToString(),
                             " and ", g->ToString(), "; explode in two steps (select, then select again)");
    }
    generator = g;
    at = i;
  }
  if (!generator) return LogicalPlan::Project(std::move(input), std::move(exprs));
  // Spark's names: col (and pos); an alias names the element column.
  std::vector<std::string> names;
  if (IsPosExplode(generator->name)) names.push_back("pos");
  names.push_back(exprs[at]->kind == Expr::Kind::kAlias ? exprs[at]->name : "col");
  // A generated column whose name an input column has is generated under a private name and
  // renamed by the Project.
  std::vector<std::string> internal = names;
  for (auto& n : internal) {
    if (input->schema->GetFieldIndex(n) >= 0) n = "__generate_" + n;
  }
  ExprPtr call = exprs[at]->kind == Expr::Kind::kAlias ? exprs[at]->args[0] : exprs[at];
  ARROW_ASSIGN_OR_RAISE(auto generated, LogicalPlan::Generate(std::move(input), call, internal));
  std::vector<ExprPtr> items;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i != at) {
      items.push_back(exprs[i]);
      continue;
    }
    for (size_t k = 0; k < names.size(); ++k) {
      ExprPtr column = Expr::Column(internal[k]);
      items.push_back(internal[k] == names[k] ? column : Expr::Alias(column, names[k]));
    }
  }
  return LogicalPlan::Project(std::move(generated), std::move(items));
}

}  // namespace sluice::plan
