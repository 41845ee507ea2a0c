// Which columns of a scan a query reads (projection pushdown to the file source): the file
// source decodes only those and gives the others as nulls, which no operator looks at.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/logical_plan.h"

namespace sluice::plan {

/// The columns of `scan`'s output schema that `root` reads, in schema order, when the plan is a
/// chain of projections, filters, watermarks and aggregations over that one scan with a
/// projection or aggregation in it (the lowest of those names everything read above it: an
/// aggregation reads its grouping expressions and its calls' arguments; filters and watermarks
/// below it add their columns). std::nullopt (read every column) for every other shape, and when an expression
/// names a column the scan's schema does not hold exactly (e.g. `*`) or names none.
std::optional<std::vector<std::string>> ColumnsReadFromScan(const LogicalPlan& root, const LogicalPlan& scan);

}  // namespace sluice::plan
