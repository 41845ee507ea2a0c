// Logical plans as immutable values. The C++ DataFrame API (and later SQL) builds them; the
// runtime executes them once per micro-batch (streaming) or once over everything (batch).
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plan/expr.h"

namespace sluice::source {
class MemoryStreamData;
}

namespace sluice::plan {

/// Case-preserving option map; lookups are case-insensitive (Spark's option semantics).
class Options {
 public:
  void Set(const std::string& key, const std::string& value);
  std::optional<std::string> Get(const std::string& key) const;
  std::string GetOr(const std::string& key, const std::string& def) const;
  bool Has(const std::string& key) const { return Get(key).has_value(); }
  const std::map<std::string, std::pair<std::string, std::string>>& entries() const { return map_; }
  /// Returns an error naming the first option not in `valid` (case-insensitive), listing the
  /// valid ones; `what` describes the owner, e.g. "json file source".
  Status CheckKnown(const std::vector<std::string>& valid, const std::string& what) const;

 private:
  std::map<std::string, std::pair<std::string, std::string>> map_;  // lower(key) -> (key, value)
};

/// What a scan reads. For files: format + path + options (+ schema, required when streaming).
/// For the memory source: `memory` points at the shared MemoryStream buffer.
struct SourceSpec {
  std::string format;  // json | csv | parquet | text | memory
  std::string path;
  Options options;
  std::shared_ptr<arrow::Schema> schema;  // user-declared; may be null for batch reads
  bool streaming = false;
  std::shared_ptr<source::MemoryStreamData> memory;

  /// Stable description used in plan fingerprints and progress ("FileStreamSource[file:/in]").
  std::string Describe() const;
};

struct LogicalPlan;
using PlanPtr = std::shared_ptr<const LogicalPlan>;

struct LogicalPlan {
  enum class Kind { kScan, kProject, kFilter };

  Kind kind;
  PlanPtr input;                          // null for kScan
  std::vector<ExprPtr> exprs;             // kProject: output expressions (stars expanded)
  ExprPtr predicate;                      // kFilter
  std::shared_ptr<const SourceSpec> source;  // kScan
  std::shared_ptr<arrow::Schema> schema;  // output schema, resolved

  bool IsStreaming() const;
  /// Scan nodes in plan order (source index i = position here).
  std::vector<const LogicalPlan*> Scans() const;
  /// Canonical multi-line text ("Project [...]\n  Filter (...)\n    Scan json ..."), used by
  /// explain and, hashed, by the checkpoint to recognise its query.
  /// Source options are left out when `with_options` is false (the checkpoint fingerprint,
  /// so changing a rate limit such as maxFilesPerTrigger between runs is allowed).
  std::string ToString(int indent = 0, bool with_options = true) const;

  static Result<PlanPtr> Scan(std::shared_ptr<const SourceSpec> source, std::shared_ptr<arrow::Schema> schema);
  static Result<PlanPtr> Project(PlanPtr input, std::vector<ExprPtr> exprs);
  static Result<PlanPtr> Filter(PlanPtr input, ExprPtr predicate);
};

}  // namespace sluice::plan
