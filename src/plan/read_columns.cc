#include "plan/read_columns.h"

#include <arrow/type.h>

#include <algorithm>
#include <set>

#include "plan/expr.h"
#include "plan/join.h"

namespace sluice::plan {
namespace {

void CollectColumns(const Expr& e, std::set<std::string>* out) {
  if (e.kind == Expr::Kind::kColumn) out->insert(e.name);
  for (const auto& a : e.args) {
    if (a) CollectColumns(*a, out);
  }
}

void CollectColumns(const ExprPtr& e, std::set<std::string>* out) {
  if (e) CollectColumns(*e, out);
}

// The columns of a node's output read above it; nullopt = every column.
using Needed = std::optional<std::set<std::string>>;

Needed With(Needed needed, const std::set<std::string>& more) {
  if (needed) needed->insert(more.begin(), more.end());
  return needed;
}

// Top down from `node`, which `needed` of its output columns are read; every path that reaches
// `scan` adds what it needs there to `*at_scan` (a plan may use one scan node more than once).
void Walk(const LogicalPlan& node, Needed needed, const LogicalPlan& scan, bool* found, Needed* at_scan) {
  if (&node == &scan) {
    if (!*found) {
      *at_scan = std::set<std::string>{};
      *found = true;
    }
    if (!needed) {
      at_scan->reset();
    } else if (*at_scan) {
      (*at_scan)->insert(needed->begin(), needed->end());
    }
    return;
  }
  std::set<std::string> cols;
  switch (node.kind) {
    case LogicalPlan::Kind::kProject:
      // A projection names everything read from its input: the columns of the expressions whose
      // output is read above.
      for (size_t i = 0; i < node.exprs.size(); ++i) {
        const bool read = !needed || !node.schema || static_cast<int>(i) >= node.schema->num_fields() ||
                          needed->count(node.schema->field(static_cast<int>(i))->name()) > 0;
        if (read) CollectColumns(node.exprs[i], &cols);
      }
      needed = cols;
      break;
    case LogicalPlan::Kind::kFilter:
      CollectColumns(node.predicate, &cols);
      needed = With(std::move(needed), cols);
      break;
    case LogicalPlan::Kind::kWatermark:
      needed = With(std::move(needed), {node.event_time_column});
      break;
    case LogicalPlan::Kind::kAggregate:
      // Its output is computed from the grouping expressions, the window's time and the
      // aggregate calls' arguments alone.
      for (const auto& e : node.group_exprs) CollectColumns(e, &cols);
      for (const auto& a : node.aggs) {
        CollectColumns(a.arg, &cols);
        CollectColumns(a.ordering, &cols);
      }
      if (node.window) CollectColumns(node.window->time, &cols);
      needed = cols;
      break;
    case LogicalPlan::Kind::kJoin:
      // Each input keeps the columns read above, its keys and the condition's. Names are unique
      // across the inputs but for the keys of a join on names, which both inputs then keep.
      if (node.join) {
        for (const auto& e : node.join->left_keys) CollectColumns(e, &cols);
        for (const auto& e : node.join->right_keys) CollectColumns(e, &cols);
        CollectColumns(node.join->residual, &cols);
        CollectColumns(node.join->condition, &cols);
        cols.insert(node.join->using_columns.begin(), node.join->using_columns.end());
        needed = With(std::move(needed), cols);
      } else {
        needed.reset();
      }
      // Each input is asked only for the names its own schema has.
      for (const LogicalPlan* side : {node.input.get(), node.right.get()}) {
        if (!side) continue;
        Needed mine = needed;
        if (mine && side->schema) {
          std::erase_if(*mine, [&](const std::string& n) { return side->schema->GetFieldIndex(n) < 0; });
        }
        Walk(*side, std::move(mine), scan, found, at_scan);
      }
      return;
    case LogicalPlan::Kind::kLimit:
      break;  // rows pass unchanged
    default:
      // Deduplication keys on columns that may not be read above; a union matches columns by
      // position; sort and generate: read everything.
      needed.reset();
      break;
  }
  if (node.input) Walk(*node.input, needed, scan, found, at_scan);
  if (node.right) Walk(*node.right, needed, scan, found, at_scan);
}

// The nodes whose input (or right input) is `scan`, counting each edge.
void FindParents(const LogicalPlan& node, const LogicalPlan& scan, std::vector<const LogicalPlan*>* out) {
  for (const LogicalPlan* child : {node.input.get(), node.right.get()}) {
    if (!child) continue;
    if (child == &scan) {
      out->push_back(&node);
    } else {
      FindParents(*child, scan, out);
    }
  }
}

bool Pushable(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kColumn:
      return e.name != "*";
    case Expr::Kind::kLiteral:
      break;
    case Expr::Kind::kCast:
    case Expr::Kind::kAlias:
      break;
    case Expr::Kind::kCall:
      if (std::find(kPushableFunctions.begin(), kPushableFunctions.end(), e.name) == kPushableFunctions.end()) {
        return false;
      }
      break;
  }
  for (const auto& a : e.args) {
    if (!a || !Pushable(*a)) return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string> kPushableFunctions = {
    "+",  "-",   "*",  "/",      "%",      "negative",  "=",  "!=", "<",        ">",     "<=",    ">=",
    "and", "or", "not", "isnull", "isnotnull", "in", "like", "ilike", "coalesce", "casewhen", "upper", "lower",
    "length", "trim", "substring"};

ExprPtr PushableScanFilter(const LogicalPlan& root, const LogicalPlan& scan) {
  if (&root == &scan || scan.kind != LogicalPlan::Kind::kScan || !scan.schema) return nullptr;
  std::vector<const LogicalPlan*> parents;
  FindParents(root, scan, &parents);
  if (parents.size() != 1 || parents[0]->kind != LogicalPlan::Kind::kFilter) return nullptr;
  const ExprPtr& predicate = parents[0]->predicate;
  if (!predicate || !Pushable(*predicate)) return nullptr;
  std::set<std::string> cols;
  CollectColumns(predicate, &cols);
  if (cols.empty()) return nullptr;  // a constant predicate: nothing to decode first
  for (const auto& name : cols) {
    if (scan.schema->GetFieldIndex(name) < 0) return nullptr;
  }
  return predicate;
}

std::optional<std::vector<std::string>> ColumnsReadFromScan(const LogicalPlan& root, const LogicalPlan& scan) {
  bool found = false;
  Needed names;
  Walk(root, std::nullopt, scan, &found, &names);
  if (!found || !names || !scan.schema) return std::nullopt;
  for (const auto& name : *names) {
    if (scan.schema->GetFieldIndex(name) < 0) return std::nullopt;  // not one exact, unique column
  }
  std::vector<std::string> out;
  for (const auto& f : scan.schema->fields()) {
    if (names->count(f->name())) out.push_back(f->name());
  }
  if (out.empty()) return std::nullopt;  // e.g. only literals: decoders still need a column to count rows
  return out;
}

}  // namespace sluice::plan
