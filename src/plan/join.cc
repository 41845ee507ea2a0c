#include "plan/join.h"

#include <arrow/api.h>

#include <algorithm>
#include <set>

#include "plan/expr_resolve.h"
#include "util/strings.h"

namespace sluice::plan {
namespace {

void Conjuncts(const ExprPtr& e, std::vector<ExprPtr>* out) {
  if (e->kind == Expr::Kind::kCall && e->name == "and" && e->args.size() == 2) {
    Conjuncts(e->args[0], out);
    Conjuncts(e->args[1], out);
  } else {
    out->push_back(e);
  }
}

// Whether every column `e` reads is a field of `schema` (and it reads at least one).
bool ReadsOnly(const Expr& e, const arrow::Schema& schema, bool* reads_any) {
  if (e.kind == Expr::Kind::kColumn) {
    *reads_any = true;
    return schema.GetFieldIndex(e.name) >= 0;
  }
  return std::all_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return ReadsOnly(*a, schema, reads_any); });
}

bool SideOnly(const Expr& e, const arrow::Schema& schema) {
  bool any = false;
  return ReadsOnly(e, schema, &any) && any;
}

// Casts the narrower of a key pair to the type both compare as; refuses incomparable types.
Status AddKeyPair(ExprPtr l, ExprPtr r, const arrow::Schema& left, const arrow::Schema& right, JoinSpec* spec) {
  ARROW_ASSIGN_OR_RAISE(auto lf, ResolveExpr(*l, left));
  ARROW_ASSIGN_OR_RAISE(auto rf, ResolveExpr(*r, right));
  auto common = CommonType(lf->type(), rf->type());
  if (!common) {
    return Status::TypeError("join key ", l->ToString(), " = ", r->ToString(), " compares ", TypeName(*lf->type()),
                             " with ", TypeName(*rf->type()), ", which are not comparable");
  }
  if (!lf->type()->Equals(*common)) l = Expr::Cast(l, common);
  if (!rf->type()->Equals(*common)) r = Expr::Cast(r, common);
  spec->left_keys.push_back(std::move(l));
  spec->right_keys.push_back(std::move(r));
  return Status::OK();
}

std::shared_ptr<arrow::Field> Nullable(const std::shared_ptr<arrow::Field>& f, bool nullable) {
  return nullable ? f->WithNullable(true) : f;
}

}  // namespace

Result<JoinType> ParseJoinType(const std::string& how) {
  std::string h = util::ToLower(how);
  if (h == "inner") return JoinType::kInner;
  if (h == "left" || h == "leftouter" || h == "left_outer") return JoinType::kLeftOuter;
  if (h == "right" || h == "rightouter" || h == "right_outer") return JoinType::kRightOuter;
  if (h == "full" || h == "outer" || h == "fullouter" || h == "full_outer") return JoinType::kFullOuter;
  if (h == "semi" || h == "leftsemi" || h == "left_semi") return JoinType::kLeftSemi;
  if (h == "anti" || h == "leftanti" || h == "left_anti") return JoinType::kLeftAnti;
  return Status::Invalid("Unsupported join type '", how, "'. Supported join types include: inner, left, left_outer, "
                         "right, right_outer, full, full_outer, outer, left_semi, semi, left_anti, anti");
}

const char* JoinTypeName(JoinType type) {
  switch (type) {
    case JoinType::kInner: return "inner";
    case JoinType::kLeftOuter: return "left_outer";
    case JoinType::kRightOuter: return "right_outer";
    case JoinType::kFullOuter: return "full_outer";
    case JoinType::kLeftSemi: return "left_semi";
    case JoinType::kLeftAnti: return "left_anti";
  }
  return "inner";
}

std::string JoinSpec::ToString() const {
  std::string out = std::string("Join ") + JoinTypeName(type);
  if (!using_columns.empty()) {
    out += ", using [";
    for (size_t i = 0; i < using_columns.size(); ++i) out += (i ? ", " : "") + using_columns[i];
    return out + "]";
  }
  return condition ? out + ", " + condition->ToString() : out;
}

Result<std::shared_ptr<JoinSpec>> ResolveJoin(const arrow::Schema& left, const arrow::Schema& right, JoinType type,
                                              const std::vector<std::string>& using_columns, ExprPtr condition,
                                              std::shared_ptr<arrow::Schema>* output_schema) {
  auto spec = std::make_shared<JoinSpec>();
  spec->type = type;
  const bool null_left = type == JoinType::kRightOuter || type == JoinType::kFullOuter;
  const bool null_right = type == JoinType::kLeftOuter || type == JoinType::kFullOuter;
  arrow::FieldVector out;
  if (!using_columns.empty()) {
    if (condition) return Status::Invalid("join: give either column names or a condition, not both");
    std::set<int> left_used, right_used;
    for (const auto& name : using_columns) {
      const int l = left.GetFieldIndex(name), r = right.GetFieldIndex(name);
      if (l < 0 || r < 0) {
        return Status::Invalid("USING column '", name, "' cannot be resolved on the ", l < 0 ? "left" : "right",
                               " side of the join. The ", l < 0 ? "left" : "right", "-side columns: [",
                               (l < 0 ? left : right).ToString(), "]");
      }
      if (!left_used.insert(l).second) return Status::Invalid("join: column '", name, "' is listed twice");
      right_used.insert(r);
      ARROW_RETURN_NOT_OK(AddKeyPair(Expr::Column(name), Expr::Column(name), left, right, spec.get()));
      auto key_type = CommonType(left.field(l)->type(), right.field(r)->type());
      const bool nullable = left.field(l)->nullable() || right.field(r)->nullable() || type != JoinType::kInner;
      spec->output.push_back({JoinOutputColumn::From::kCoalesce, l, r});
      out.push_back(arrow::field(name, key_type, nullable));
    }
    spec->using_columns = using_columns;
    for (int i = 0; i < left.num_fields(); ++i) {
      if (left_used.count(i)) continue;
      spec->output.push_back({JoinOutputColumn::From::kLeft, i, -1});
      out.push_back(Nullable(left.field(i), null_left));
    }
    if (!spec->LeftOnly()) {
      for (int i = 0; i < right.num_fields(); ++i) {
        if (right_used.count(i)) continue;
        spec->output.push_back({JoinOutputColumn::From::kRight, -1, i});
        out.push_back(Nullable(right.field(i), null_right));
      }
    }
    if (spec->LeftOnly()) {
      // Semi/anti joins keep the left row as it is: the key columns stay where they were.
      spec->output.clear();
      out.clear();
      for (int i = 0; i < left.num_fields(); ++i) {
        spec->output.push_back({JoinOutputColumn::From::kLeft, i, -1});
        out.push_back(left.field(i));
      }
    }
    *output_schema = arrow::schema(std::move(out));
    return spec;
  }

  arrow::FieldVector pair = left.fields();
  for (const auto& f : right.fields()) {
    if (left.GetFieldIndex(f->name()) >= 0) {
      return Status::Invalid("join: column '", f->name(), "' is on both sides of the join, so a condition cannot tell "
                             "them apart. Join on column names (on = {\"", f->name(), "\"}) or rename one side "
                             "first (withColumnRenamed)");
    }
    pair.push_back(f);
  }
  spec->pair_schema = arrow::schema(pair);
  if (condition) {
    ARROW_RETURN_NOT_OK(CheckPredicate(*condition, *spec->pair_schema));
    spec->condition = condition;
    std::vector<ExprPtr> conjuncts, rest;
    Conjuncts(condition, &conjuncts);
    for (const auto& c : conjuncts) {
      if (c->kind == Expr::Kind::kCall && c->name == "=" && c->args.size() == 2) {
        const ExprPtr& a = c->args[0];
        const ExprPtr& b = c->args[1];
        if (SideOnly(*a, left) && SideOnly(*b, right)) {
          ARROW_RETURN_NOT_OK(AddKeyPair(a, b, left, right, spec.get()));
          continue;
        }
        if (SideOnly(*a, right) && SideOnly(*b, left)) {
          ARROW_RETURN_NOT_OK(AddKeyPair(b, a, left, right, spec.get()));
          continue;
        }
      }
      rest.push_back(c);
    }
    if (!rest.empty()) {
      ExprPtr residual = rest[0];
      for (size_t i = 1; i < rest.size(); ++i) residual = Expr::Call("and", {residual, rest[i]});
      spec->residual = residual;
    }
  }
  for (int i = 0; i < left.num_fields(); ++i) {
    spec->output.push_back({JoinOutputColumn::From::kLeft, i, -1});
    out.push_back(spec->LeftOnly() ? left.field(i) : Nullable(left.field(i), null_left));
  }
  if (!spec->LeftOnly()) {
    for (int i = 0; i < right.num_fields(); ++i) {
      spec->output.push_back({JoinOutputColumn::From::kRight, -1, i});
      out.push_back(Nullable(right.field(i), null_right));
    }
  }
  *output_schema = arrow::schema(std::move(out));
  return spec;
}

Status CheckStreamingJoin(JoinType type, bool left_streaming, bool right_streaming, int* build_side) {
  *build_side = type == JoinType::kRightOuter ? 0 : 1;
  if (!left_streaming && !right_streaming) return Status::OK();
  if (left_streaming && right_streaming) {
    // Stream-stream: both sides are buffered in state (exec/stream_join_exec.cc); the rules that
    // need watermarks and the output mode are checked at start (CheckStreamStreamJoin).
    if (type != JoinType::kLeftAnti) return Status::OK();
    return Status::Invalid("left_anti join between two streaming DataFrames/Datasets is not supported: a left row "
                           "can only be known to have no match once the right stream is complete, which it never "
                           "is. Use a left_outer join with a watermark and filter for a NULL right side.");
  }
  const std::string name = JoinTypeName(type);
  switch (type) {
    case JoinType::kInner:
      *build_side = left_streaming ? 1 : 0;
      return Status::OK();
    case JoinType::kLeftOuter:
    case JoinType::kLeftSemi:
    case JoinType::kLeftAnti:
      if (left_streaming) return Status::OK();
      return Status::Invalid(name, " join with a streaming DataFrame/Dataset on the right and a static "
                             "DataFrame/Dataset on the left is not supported: every batch of the stream would "
                             "have to revisit all of the static rows. Put the stream on the left.");
    case JoinType::kRightOuter:
      if (right_streaming) return Status::OK();
      return Status::Invalid("right_outer join with a streaming DataFrame/Dataset on the left and a static "
                             "DataFrame/Dataset on the right is not supported: a static row without a match can "
                             "never be known to stay unmatched. Put the stream on the right, or use a left_outer "
                             "join with the stream on the left.");
    case JoinType::kFullOuter:
      return Status::Invalid("full_outer join with a streaming DataFrame/Dataset and a static DataFrame/Dataset is "
                             "not supported: a static row without a match can never be known to stay unmatched. "
                             "Use a left_outer join with the stream on the left.");
  }
  return Status::OK();
}

}  // namespace sluice::plan
