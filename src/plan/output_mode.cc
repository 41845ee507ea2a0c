#include "plan/output_mode.h"

namespace sluice::plan {

Status CheckOutputMode(const LogicalPlan& plan, const std::string& mode) {
  // Plans are stateless (project/filter) until streaming aggregations exist.
  if (mode == "append" || mode == "update") return Status::OK();
  if (mode == "complete") {
    return Status::Invalid(
        "Complete output mode not supported when there are no streaming aggregations on streaming DataFrames. "
        "Use outputMode(\"append\") for a query without aggregation.");
  }
  return Status::Invalid("Unknown output mode '", mode, "'. Valid modes: append, complete, update");
}

}  // namespace sluice::plan
