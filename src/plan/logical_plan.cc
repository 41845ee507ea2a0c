#include "plan/logical_plan.h"

#include <arrow/api.h>

#include <algorithm>
#include <sstream>

#include "io/file_system.h"

namespace sluice::plan {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
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

void Options::Set(const std::string& key, const std::string& value) { map_[Lower(key)] = {key, value}; }

std::optional<std::string> Options::Get(const std::string& key) const {
  auto it = map_.find(Lower(key));
  if (it == map_.end()) return std::nullopt;
  return it->second.second;
}

std::string Options::GetOr(const std::string& key, const std::string& def) const {
  auto v = Get(key);
  return v ? *v : def;
}

Status Options::CheckKnown(const std::vector<std::string>& valid, const std::string& what) const {
  for (const auto& [lower, kv] : map_) {
    bool known = std::any_of(valid.begin(), valid.end(), [&](const std::string& v) { return Lower(v) == lower; });
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
  std::string desc = (streaming ? "FileStreamSource[" : "FileSource[") + io::PathToUri(io::AbsolutePath(path)) + "]";
  return desc;
}

bool LogicalPlan::IsStreaming() const {
  for (const auto* scan : Scans()) {
    if (scan->source->streaming) return true;
  }
  return false;
}

std::vector<const LogicalPlan*> LogicalPlan::Scans() const {
  std::vector<const LogicalPlan*> out;
  const LogicalPlan* node = this;
  while (node) {
    if (node->kind == Kind::kScan) out.push_back(node);
    node = node->input.get();
  }
  std::reverse(out.begin(), out.end());
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
  }
  if (input) os << "\n" << input->ToString(indent + 1, with_options);
  return os.str();
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
  auto node = std::make_shared<LogicalPlan>();
  node->kind = Kind::kFilter;
  node->schema = input->schema;
  node->input = std::move(input);
  node->predicate = std::move(predicate);
  return PlanPtr(node);
}

}  // namespace sluice::plan
