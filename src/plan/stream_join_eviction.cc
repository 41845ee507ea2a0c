#include "plan/stream_join_eviction.h"

#include <arrow/api.h>

#include <map>

namespace sluice::plan {
namespace {

// One additive term of a time expression: a column (as micros) or a constant in micros.
struct Term {
  std::string column;  // empty: a constant
  bool negative = false;
  int64_t micros = 0;
};

const Expr* Unwrap(const Expr* e) {
  while (e->kind == Expr::Kind::kCast || e->kind == Expr::Kind::kAlias) {
    if (e->args.empty()) break;
    e = e->args[0].get();
  }
  return e;
}

std::optional<int64_t> Int64Literal(const Expr& e) {
  const Expr* u = Unwrap(&e);
  if (u->kind != Expr::Kind::kLiteral || !u->value || !u->value->is_valid) return std::nullopt;
  if (u->value->type->id() != arrow::Type::INT64) return std::nullopt;
  return static_cast<const arrow::Int64Scalar&>(*u->value).value;
}

// Spark's collectTerms: splits `e` into a sum of signed columns and constants; false when `e`
// has any other shape (then no bound is derived from it).
bool CollectTerms(const Expr& e, bool negate, std::vector<Term>* out) {
  if (e.kind == Expr::Kind::kCast || e.kind == Expr::Kind::kAlias) {
    return !e.args.empty() && CollectTerms(*e.args[0], negate, out);
  }
  if (e.kind == Expr::Kind::kColumn) {
    out->push_back({e.name, negate, 0});
    return true;
  }
  if (e.kind == Expr::Kind::kLiteral) {
    if (!e.value || !e.value->is_valid) return false;
    int64_t us = 0;
    const auto id = e.value->type->id();
    if (id == arrow::Type::TIMESTAMP) {
      const auto& ts = static_cast<const arrow::TimestampScalar&>(*e.value);
      const auto unit = static_cast<const arrow::TimestampType&>(*e.value->type).unit();
      const int64_t f = unit == arrow::TimeUnit::SECOND ? 1000000 : unit == arrow::TimeUnit::MILLI ? 1000 : 1;
      us = unit == arrow::TimeUnit::NANO ? ts.value / 1000 : ts.value * f;
    } else if (arrow::is_integer(id)) {
      auto v = e.value->CastTo(arrow::int64());
      if (!v.ok()) return false;
      us = static_cast<const arrow::Int64Scalar&>(**v).value * 1000000;  // a number counts as seconds
    } else {
      return false;
    }
    out->push_back({"", negate, negate ? -us : us});
    return true;
  }
  if (e.kind != Expr::Kind::kCall) return false;
  if ((e.name == "+" || e.name == "-") && e.args.size() == 2) {
    return CollectTerms(*e.args[0], negate, out) && CollectTerms(*e.args[1], e.name == "-" ? !negate : negate, out);
  }
  if (e.name == "negative" && e.args.size() == 1) return CollectTerms(*e.args[0], !negate, out);
  if (e.name == "add_interval" && e.args.size() == 4) {
    auto months = Int64Literal(*e.args[1]), days = Int64Literal(*e.args[2]), micros = Int64Literal(*e.args[3]);
    // Months have no fixed length: no bound (as Spark).
    if (!months || !days || !micros || *months != 0) return false;
    const int64_t us = *days * 86400LL * 1000000LL + *micros;
    out->push_back({"", negate, negate ? -us : us});
    return CollectTerms(*e.args[0], negate, out);
  }
  return false;
}

struct Bound {
  std::string column;
  int64_t offset_us = 0;  // eviction at event time <= watermark + offset
};

// The bound `less < greater` puts on a column of `side` (this side) given the other side's
// watermarked column: Spark's getStateWatermarkFromLessThenPredicate, in micros.
std::optional<Bound> BoundFromLessThan(const Expr& less, const Expr& greater, const std::map<std::string, int64_t>& side,
                                       const arrow::Schema& side_schema, const std::map<std::string, int64_t>& other,
                                       const arrow::Schema& other_schema) {
  std::vector<Term> terms;
  if (!CollectTerms(less, false, &terms) || !CollectTerms(greater, true, &terms)) return std::nullopt;
  const Term* mine = nullptr;
  const Term* theirs = nullptr;
  int64_t constant = 0;
  for (const Term& t : terms) {
    if (t.column.empty()) {
      constant += t.micros;
    } else if (side_schema.GetFieldIndex(t.column) >= 0) {
      if (mine) return std::nullopt;
      mine = &t;
    } else if (other_schema.GetFieldIndex(t.column) >= 0) {
      if (theirs) return std::nullopt;
      theirs = &t;
    } else {
      return std::nullopt;
    }
  }
  // Canonical form: theirs + constant - mine < 0, i.e. mine > watermark + constant.
  if (!mine || !theirs || !mine->negative || theirs->negative) return std::nullopt;
  if (!other.count(theirs->column) || !side.count(mine->column)) return std::nullopt;
  if (side_schema.GetFieldByName(mine->column)->type()->id() != arrow::Type::TIMESTAMP) return std::nullopt;
  return Bound{mine->column, constant};
}

JoinSideEviction RangeRule(const ExprPtr& condition, const LogicalPlan& side, const LogicalPlan& other) {
  JoinSideEviction best;
  if (!condition) return best;
  const auto side_marked = side.WatermarkedColumns();
  const auto other_marked = other.WatermarkedColumns();
  std::vector<ExprPtr> conjuncts;
  SplitConjuncts(condition, &conjuncts);
  for (const auto& c : conjuncts) {
    if (c->kind != Expr::Kind::kCall || c->args.size() != 2) continue;
    const Expr& a = *c->args[0];
    const Expr& b = *c->args[1];
    std::optional<Bound> bound;
    bool inclusive = false;
    if (c->name == "<" || c->name == "<=") {
      bound = BoundFromLessThan(a, b, side_marked, *side.schema, other_marked, *other.schema);
      inclusive = c->name == "<=";
    } else if (c->name == ">" || c->name == ">=") {
      bound = BoundFromLessThan(b, a, side_marked, *side.schema, other_marked, *other.schema);
      inclusive = c->name == ">=";
    }
    if (!bound) continue;
    // Spark cleans up event times <= the bound; for an inclusive bound one ms less.
    const int64_t offset = bound->offset_us - (inclusive ? 1000 : 0);
    if (best.rule == JoinSideEviction::Rule::kNone || offset < best.offset_us) {
      best.rule = JoinSideEviction::Rule::kRange;
      best.column = bound->column;
      best.offset_us = offset;
    }
  }
  return best;
}

int WatermarkedKey(const std::vector<ExprPtr>& keys, const LogicalPlan& input) {
  const auto marked = input.WatermarkedColumns();
  for (size_t i = 0; i < keys.size(); ++i) {
    const Expr* k = Unwrap(keys[i].get());
    auto f = k->kind == Expr::Kind::kColumn ? input.schema->GetFieldByName(k->name) : nullptr;
    if (f && marked.count(k->name) && f->type()->id() == arrow::Type::TIMESTAMP) return static_cast<int>(i);
  }
  return -1;
}

std::string JoinTypeTitle(JoinType type) {
  switch (type) {
    case JoinType::kLeftOuter: return "LeftOuter";
    case JoinType::kRightOuter: return "RightOuter";
    case JoinType::kFullOuter: return "FullOuter";
    case JoinType::kLeftSemi: return "LeftSemi";
    case JoinType::kLeftAnti: return "LeftAnti";
    case JoinType::kInner: return "Inner";
  }
  return "Inner";
}

}  // namespace

std::string JoinSideEviction::ToString(const JoinSpec& spec, bool left) const {
  switch (rule) {
    case Rule::kNone: return "never";
    case Rule::kKey: {
      const auto& keys = left ? spec.left_keys : spec.right_keys;
      return "key " + keys[static_cast<size_t>(key_index)]->ToString() + " <= watermark";
    }
    case Rule::kRange: {
      const int64_t ms = offset_us / 1000;
      return column + " <= watermark " + (ms < 0 ? "- " + std::to_string(-ms) : "+ " + std::to_string(ms)) + " ms";
    }
  }
  return "never";
}

void SplitConjuncts(const ExprPtr& condition, std::vector<ExprPtr>* out) {
  if (condition->kind == Expr::Kind::kCall && condition->name == "and" && condition->args.size() == 2) {
    SplitConjuncts(condition->args[0], out);
    SplitConjuncts(condition->args[1], out);
  } else {
    out->push_back(condition);
  }
}

ExprPtr AllOf(const std::vector<ExprPtr>& conjuncts) {
  ExprPtr out = conjuncts[0];
  for (size_t i = 1; i < conjuncts.size(); ++i) out = Expr::Call("and", {out, conjuncts[i]});
  return out;
}

bool IsStreamStreamJoin(const LogicalPlan& node) {
  return node.kind == LogicalPlan::Kind::kJoin && node.input->IsStreaming() && node.right->IsStreaming();
}

StreamJoinEviction AnalyzeStreamJoinEviction(const LogicalPlan& join) {
  StreamJoinEviction out;
  const JoinSpec& spec = *join.join;
  int key = WatermarkedKey(spec.left_keys, *join.input);
  if (key < 0) key = WatermarkedKey(spec.right_keys, *join.right);
  if (key >= 0) {
    out.left.rule = out.right.rule = JoinSideEviction::Rule::kKey;
    out.left.key_index = out.right.key_index = key;
    return out;
  }
  out.left = RangeRule(spec.condition, *join.input, *join.right);
  out.right = RangeRule(spec.condition, *join.right, *join.input);
  return out;
}

Status CheckStreamStreamJoin(const LogicalPlan& join, bool complete_mode) {
  const JoinSpec& spec = *join.join;
  if (complete_mode) {
    return Status::Invalid("Join between two streaming DataFrames/Datasets is not supported in complete output "
                           "mode, only in Append or Update output mode: ", spec.ToString(),
                           ". Use outputMode(\"append\"): a joined row is final once written.");
  }
  const bool need_left = spec.type == JoinType::kLeftOuter || spec.type == JoinType::kLeftSemi ||
                         spec.type == JoinType::kFullOuter;
  const bool need_right = spec.type == JoinType::kRightOuter || spec.type == JoinType::kFullOuter;
  if (!need_left && !need_right) return Status::OK();
  const StreamJoinEviction ev = AnalyzeStreamJoinEviction(join);
  if ((!need_left || ev.left.evicts()) && (!need_right || ev.right.evicts())) return Status::OK();
  std::string missing;
  if (join.input->WatermarkedColumns().empty()) {
    missing = "the left input has no watermark (call withWatermark on it; SQL: the source options event_time and "
              "watermark)";
  } else if (join.right->WatermarkedColumns().empty()) {
    missing = "the right input has no watermark (call withWatermark on it; SQL: the source options event_time and "
              "watermark)";
  } else {
    const bool left_missing = need_left && !ev.left.evicts();
    const char* side = left_missing ? "left" : "right";
    const char* other = left_missing ? "right" : "left";
    missing = std::string("neither a join key holds a watermarked event-time column (a window or event-time "
                          "equality) nor does the condition bound the ") + side + " input's watermarked event time "
              "from below by the " + other + " input's, e.g. " + other + ".ts BETWEEN " + side + ".ts AND " + side +
              ".ts + INTERVAL 1 HOUR (months are not allowed in the interval)";
  }
  return Status::Invalid("Stream-stream ", JoinTypeTitle(spec.type), " join between two streaming DataFrame/Datasets "
                         "is not supported without a watermark in the join keys, or a watermark on the nullable side "
                         "and an appropriate range condition: ", missing, ". Without it, the join could never know "
                         "that a row will stay unmatched, and its state would grow without end.");
}

}  // namespace sluice::plan
