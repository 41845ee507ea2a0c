#include "plan/logical_plan.h"

#include <arrow/api.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <set>
#include <sstream>

#include "io/file_system.h"
#include "plan/expr_resolve.h"
#include "plan/stream_join_eviction.h"
#include "util/strings.h"

namespace sluice::plan {
namespace {

// True when `e` reads column `name` (compared case-insensitively, a qualifier ignored).
bool ReadsColumn(const Expr& e, const std::string& name) {
  if (e.kind == Expr::Kind::kColumn) {
    const size_t dot = e.name.rfind('.');
    const std::string own = dot == std::string::npos ? e.name : e.name.substr(dot + 1);
    return own.size() == name.size() &&
           std::equal(own.begin(), own.end(), name.begin(), [](unsigned char a, unsigned char b) {
             return std::tolower(a) == std::tolower(b);
           });
  }
  return std::any_of(e.args.begin(), e.args.end(), [&](const ExprPtr& a) { return ReadsColumn(*a, name); });
}

std::string Indent(int n) { return std::string(static_cast<size_t>(n) * 2, ' '); }

std::string JoinExprs(const std::vector<ExprPtr>& exprs) {
  std::string out;
  for (size_t i = 0; i < exprs.size(); ++i) {
    if (i) out += ", ";
    out += exprs[i]->ToString();
    std::string name = OutputName(*exprs[i]);
    if (exprs[i]->kind != Expr::Kind::kAlias && name != exprs[i]->ToString()) out += " AS " + name;
  }
  return out;
}

}  // namespace

void Options::Set(const std::string& key, const std::string& value) { map_[util::ToLower(key)] = {key, value}; }

std::optional<std::string> Options::Get(const std::string& key) const {
  auto it = map_.find(util::ToLower(key));
  if (it == map_.end()) return std::nullopt;
  return it->second.second;
}

std::string Options::GetOr(const std::string& key, const std::string& def) const {
  auto v = Get(key);
  return v ? *v : def;
}

Status Options::CheckKnown(const std::vector<std::string>& valid, const std::string& what) const {
  for (const auto& [lower, kv] : map_) {
    bool known = std::any_of(valid.begin(), valid.end(), [&](const std::string& v) { return util::ToLower(v) == lower; });
    if (!known) {
      std::string list;
      for (size_t i = 0; i < valid.size(); ++i) list += (i ? ", " : "") + valid[i];
      return Status::Invalid("Unknown option '", kv.first, "' for the ", what, ". Valid options: ", list);
    }
  }
  return Status::OK();
}

std::string SourceSpec::Describe() const {
  if (format == "memory") return "MemoryStream";
  if (format == "rate") return "RateStream";
  if (format == "rate-micro-batch") return "RatePerMicroBatchStream";
  if (format == "socket") return "TextSocket[" + options.GetOr("host", "") + ":" + options.GetOr("port", "") + "]";
  if (format == "iceberg") return "IcebergTable[" + path + "]";
  if (format == "kafka") {  // Spark's KafkaV2[Subscribe[t]] / [SubscribePattern[p]] / [Assign[json]]
    if (auto t = options.Get("subscribe")) return "KafkaV2[Subscribe[" + *t + "]]";
    if (auto p = options.Get("subscribePattern")) return "KafkaV2[SubscribePattern[" + *p + "]]";
    return "KafkaV2[Assign[" + options.GetOr("assign", "") + "]]";
  }
  std::string desc = (streaming ? "FileStreamSource[" : "FileSource[") + io::PathToUri(io::AbsolutePath(path)) + "]";
  return desc;
}

bool LogicalPlan::IsStreaming() const {
  for (const auto* scan : Scans()) {
    if (scan->source->streaming) return true;
  }
  return false;
}

namespace {

// The nodes of `node`'s tree matching `keep`, bottom-up: inputs before their parent, a join's
// left input before its right one (the order the physical planner numbers them in).
void CollectBottomUp(const LogicalPlan* node, const std::function<bool(const LogicalPlan&)>& keep,
                     std::vector<const LogicalPlan*>* out) {
  if (!node) return;
  CollectBottomUp(node->input.get(), keep, out);
  CollectBottomUp(node->right.get(), keep, out);
  if (keep(*node)) out->push_back(node);
}

}  // namespace

std::vector<const LogicalPlan*> LogicalPlan::Scans() const {
  std::vector<const LogicalPlan*> out;
  CollectBottomUp(this, [](const LogicalPlan& n) { return n.kind == Kind::kScan; }, &out);
  return out;
}

std::string LogicalPlan::ToString(int indent, bool with_options) const {
  std::ostringstream os;
  os << Indent(indent);
  switch (kind) {
    case Kind::kScan: {
      os << "Scan " << source->format << " " << source->Describe() << " [";
      for (int i = 0; i < schema->num_fields(); ++i) {
        os << (i ? ", " : "") << schema->field(i)->name() << " " << TypeName(*schema->field(i)->type());
      }
      os << "]";
      if (with_options) {
        for (const auto& [lower, kv] : source->options.entries()) os << " " << lower << "=" << kv.second;
      }
      break;
    }
    case Kind::kProject:
      os << "Project [" << JoinExprs(exprs) << "]";
      break;
    case Kind::kFilter:
      os << "Filter " << predicate->ToString();
      break;
    case Kind::kWatermark:
      // The delay is an option (it may change between runs), the column is not.
      os << "WithWatermark " << event_time_column;
      if (with_options) os << ", " << delay_text;
      break;
    case Kind::kAggregate: {
      os << "Aggregate [";
      for (size_t i = 0; i < group_exprs.size(); ++i) {
        os << (i ? ", " : "");
        if (window && window->group_index == static_cast<int>(i)) {
          os << window->ToString();
        } else {
          os << group_exprs[i]->ToString();
        }
      }
      os << "] [";
      for (size_t i = 0; i < aggs.size(); ++i) os << (i ? ", " : "") << aggs[i].ToString();
      os << "]";
      break;
    }
    case Kind::kSort:
      os << "Sort [";
      for (size_t i = 0; i < sort_keys.size(); ++i) os << (i ? ", " : "") << sort_keys[i].ToString();
      os << "]";
      break;
    case Kind::kLimit:
      os << "Limit " << limit;
      break;
    case Kind::kDeduplicate: {
      os << (within_watermark ? "DeduplicateWithinWatermark [" : "Deduplicate [");
      for (size_t i = 0; i < key_columns.size(); ++i) os << (i ? ", " : "") << key_columns[i];
      os << "]";
      break;
    }
    case Kind::kJoin:
      os << join->ToString();
      break;
    case Kind::kUnion:
      os << "Union";
      break;
    case Kind::kGenerate:
      os << "Generate " << generator->ToString() << " [";
      for (size_t i = 0; i < generator_columns.size(); ++i) os << (i ? ", " : "") << generator_columns[i];
      os << "]";
      break;
  }
  if (input) os << "\n" << input->ToString(indent + 1, with_options);
  if (right) os << "\n" << right->ToString(indent + 1, with_options);
  return os.str();
}

std::vector<const LogicalPlan*> LogicalPlan::StatefulNodes() const {
  std::vector<const LogicalPlan*> out;
  // A join of two streams keeps state too (plan/stream_join_eviction.h).
  CollectBottomUp(this, [](const LogicalPlan& n) { return n.IsStateful() || IsStreamStreamJoin(n); }, &out);
  return out;
}

std::vector<const LogicalPlan*> LogicalPlan::WatermarkNodes() const {
  std::vector<const LogicalPlan*> out;
  CollectBottomUp(this, [](const LogicalPlan& n) { return n.kind == Kind::kWatermark; }, &out);
  return out;
}

std::map<std::string, int64_t> LogicalPlan::WatermarkedColumns() const {
  if (!input) return {};
  std::map<std::string, int64_t> in = input->WatermarkedColumns();
  switch (kind) {
    case Kind::kScan: return {};
    case Kind::kFilter:
    case Kind::kSort:
    case Kind::kLimit:
    case Kind::kGenerate:
    case Kind::kDeduplicate: return in;
    case Kind::kWatermark: in[event_time_column] = delay_ms; return in;
    case Kind::kJoin: {
      // An output column carries the watermark of the input column it passes on unchanged.
      std::map<std::string, int64_t> r = right->WatermarkedColumns(), out;
      for (size_t i = 0; i < join->output.size(); ++i) {
        const auto& c = join->output[i];
        const auto& name = schema->field(static_cast<int>(i))->name();
        if (c.from != JoinOutputColumn::From::kRight && in.count(input->schema->field(c.left)->name())) {
          out[name] = in[input->schema->field(c.left)->name()];
        } else if (c.from == JoinOutputColumn::From::kRight && r.count(right->schema->field(c.right)->name())) {
          out[name] = r[right->schema->field(c.right)->name()];
        }
      }
      return out;
    }
    case Kind::kUnion: {
      // Spark's Union keeps its first input's attributes: a column carries the watermark the
      // left input's column at that position carries.
      std::map<std::string, int64_t> out;
      for (int i = 0; i < schema->num_fields(); ++i) {
        auto it = in.find(input->schema->field(i)->name());
        if (it != in.end()) out[schema->field(i)->name()] = it->second;
      }
      return out;
    }
    case Kind::kProject: {
      std::map<std::string, int64_t> out;
      for (const auto& e : exprs) {
        const Expr* inner = e.get();
        if (inner->kind == Expr::Kind::kAlias && !inner->args.empty()) inner = inner->args[0].get();
        if (inner->kind != Expr::Kind::kColumn) continue;
        auto it = in.find(inner->name);
        if (it != in.end()) out[OutputName(*e)] = it->second;
      }
      return out;
    }
    case Kind::kAggregate: {
      std::map<std::string, int64_t> out;
      for (size_t i = 0; i < group_exprs.size(); ++i) {
        if (window && window->group_index == static_cast<int>(i)) {
          if (window->time->kind != Expr::Kind::kColumn) continue;
          auto it = in.find(window->time->name);
          if (it == in.end()) continue;
          out["window_start"] = it->second;
          out["window_end"] = it->second;
          continue;
        }
        const Expr* g = group_exprs[i].get();
        if (g->kind == Expr::Kind::kAlias && !g->args.empty()) g = g->args[0].get();
        if (g->kind != Expr::Kind::kColumn) continue;
        auto it = in.find(g->name);
        if (it != in.end()) out[OutputName(*group_exprs[i])] = it->second;
      }
      return out;
    }
  }
  return {};
}

Result<PlanPtr> LogicalPlan::Watermark(PlanPtr input, const std::string& event_time, const std::string& delay,
                                       std::string id) {
  ARROW_ASSIGN_OR_RAISE(auto field, FindColumn(event_time, *input->schema));
  if (field->type()->id() != arrow::Type::TIMESTAMP) {
    return Status::TypeError("withWatermark: the event-time column '", event_time, "' must be a timestamp, but it is ",
                             TypeName(*field->type()), "; convert it first, e.g. with to_timestamp()");
  }
  ARROW_ASSIGN_OR_RAISE(int64_t delay_ms, ParseIntervalMs("withWatermark delay", delay));
  if (delay_ms < 0) return Status::Invalid("withWatermark: the delay must not be negative: '", delay, "'");
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kWatermark;
  node->schema = input->schema;
  node->input = std::move(input);
  node->event_time_column = event_time;
  node->delay_ms = delay_ms;
  node->delay_text = delay;
  if (id.empty()) {
    static std::atomic<uint64_t> next_id{0};
    id = "withWatermark#" + std::to_string(++next_id);
  }
  node->watermark_id = std::move(id);
  return PlanPtr(node);
}

Result<PlanPtr> LogicalPlan::Deduplicate(PlanPtr input, std::vector<std::string> columns, bool within_watermark) {
  if (columns.empty()) {
    for (const auto& f : input->schema->fields()) columns.push_back(f->name());
  }
  std::set<std::string> seen;
  for (const auto& c : columns) {
    ARROW_RETURN_NOT_OK(FindColumn(c, *input->schema).status());
    if (!seen.insert(c).second) return Status::Invalid("dropDuplicates: column '", c, "' is listed twice");
  }
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kDeduplicate;
  node->schema = input->schema;
  node->input = std::move(input);
  node->key_columns = std::move(columns);
  node->within_watermark = within_watermark;
  return PlanPtr(node);
}

Result<PlanPtr> LogicalPlan::Join(PlanPtr left, PlanPtr right, JoinType type, std::vector<std::string> using_columns,
                                  ExprPtr condition, int64_t max_build_bytes) {
  int build_side = 1;
  ARROW_RETURN_NOT_OK(CheckStreamingJoin(type, left->IsStreaming(), right->IsStreaming(), &build_side));
  std::shared_ptr<arrow::Schema> schema;
  ARROW_ASSIGN_OR_RAISE(auto spec, ResolveJoin(*left->schema, *right->schema, type, using_columns, condition, &schema));
  spec->build_side = build_side;
  spec->max_build_bytes = max_build_bytes;
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kJoin;
  node->schema = std::move(schema);
  node->input = std::move(left);
  node->right = std::move(right);
  node->join = std::move(spec);
  return PlanPtr(node);
}

Result<PlanPtr> LogicalPlan::Union(PlanPtr left, PlanPtr right) {
  if (left->IsStreaming() != right->IsStreaming()) {
    return Status::Invalid("UNION ALL of a streaming and a static input is not supported (as in Spark): make both "
                           "inputs streaming tables, or both static");
  }
  const arrow::Schema& l = *left->schema;
  const arrow::Schema& r = *right->schema;
  if (l.num_fields() != r.num_fields()) {
    return Status::Invalid("UNION ALL: the first input has ", l.num_fields(), " columns (", l.ToString(), ") but the ",
                           "second has ", r.num_fields(), "; select the same number of columns on both sides");
  }
  arrow::FieldVector fields;
  // Numbers widen as in Spark's WidenSetOperationTypes (int + bigint -> bigint, ... -> double);
  // a side whose column is narrower gets a cast.
  std::vector<ExprPtr> left_exprs, right_exprs;
  bool cast_left = false, cast_right = false;
  auto numeric = [](const arrow::DataType& t) { return arrow::is_numeric(t.id()) || arrow::is_decimal(t.id()); };
  for (int i = 0; i < l.num_fields(); ++i) {
    const auto& a = l.field(i);
    const auto& b = r.field(i);
    std::shared_ptr<arrow::DataType> type = a->type();
    if (!a->type()->Equals(*b->type())) {
      type = numeric(*a->type()) && numeric(*b->type()) ? CommonType(a->type(), b->type()) : nullptr;
      if (!type) {
        return Status::TypeError("UNION ALL: column ", i + 1, " is '", a->name(), "' ", TypeName(*a->type()),
                                 " in the first input but '", b->name(), "' ", TypeName(*b->type()),
                                 " in the second; columns are matched by position, so CAST one side to the other's "
                                 "type");
      }
    }
    auto side = [&](const std::shared_ptr<arrow::Field>& f, bool* cast) {
      ExprPtr column = Expr::Column(f->name());
      if (f->type()->Equals(*type)) return column;
      *cast = true;
      return Expr::Alias(Expr::Cast(column, type), f->name());
    };
    left_exprs.push_back(side(a, &cast_left));
    right_exprs.push_back(side(b, &cast_right));
    fields.push_back(arrow::field(a->name(), type, a->nullable() || b->nullable()));
  }
  if (cast_left) {
    ARROW_ASSIGN_OR_RAISE(left, Project(std::move(left), std::move(left_exprs)));
  }
  if (cast_right) {
    ARROW_ASSIGN_OR_RAISE(right, Project(std::move(right), std::move(right_exprs)));
  }
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kUnion;
  node->schema = arrow::schema(std::move(fields));
  node->input = std::move(left);
  node->right = std::move(right);
  return PlanPtr(node);
}

Result<PlanPtr> LogicalPlan::Scan(std::shared_ptr<const SourceSpec> source, std::shared_ptr<arrow::Schema> schema) {
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kScan;
  node->source = std::move(source);
  node->schema = std::move(schema);
  return PlanPtr(node);
}

Result<PlanPtr> LogicalPlan::Project(PlanPtr input, std::vector<ExprPtr> exprs) {
  arrow::FieldVector fields;
  for (const auto& e : exprs) {
    ARROW_ASSIGN_OR_RAISE(auto field, ResolveExpr(*e, *input->schema));
    fields.push_back(field);
  }
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kProject;
  node->input = std::move(input);
  node->exprs = std::move(exprs);
  node->schema = arrow::schema(std::move(fields));
  return PlanPtr(node);
}

Result<PlanPtr> LogicalPlan::Filter(PlanPtr input, ExprPtr predicate) {
  ARROW_ASSIGN_OR_RAISE(auto field, ResolveExpr(*predicate, *input->schema));
  if (field->type()->id() != arrow::Type::BOOL) {
    return Status::TypeError("Filter condition ", predicate->ToString(), " must be boolean, but it is ",
                             TypeName(*field->type()));
  }
  // As Spark's optimizer pushes a filter through EventTimeWatermark: the conjuncts that do not
  // read the event-time column filter below the watermark, so rows they drop never advance it.
  if (input->kind == Kind::kWatermark) {
    std::vector<ExprPtr> conjuncts, below, above;
    SplitConjuncts(predicate, &conjuncts);
    for (const auto& c : conjuncts) (ReadsColumn(*c, input->event_time_column) ? above : below).push_back(c);
    if (!below.empty()) {
      // The predicate as written when all of it moves (the plan text stays as the user wrote it).
      ARROW_ASSIGN_OR_RAISE(auto filtered, Filter(input->input, above.empty() ? predicate : AllOf(below)));
      ARROW_ASSIGN_OR_RAISE(auto marked, Watermark(std::move(filtered), input->event_time_column, input->delay_text,
                                                   input->watermark_id));
      if (above.empty()) return marked;
      input = std::move(marked);
      predicate = AllOf(above);
    }
  }
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kFilter;
  node->schema = input->schema;
  node->input = std::move(input);
  node->predicate = std::move(predicate);
  return PlanPtr(node);
}

}  // namespace sluice::plan
