// Which columns of a scan a query reads (projection pushdown to the file source): the file
// source decodes only those and gives the others as nulls, which no operator looks at.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/logical_plan.h"

namespace sluice::plan {

/// The columns of `scan`'s output schema that `root` reads, in schema order. Top down from the
/// root (which reads everything): a projection or an aggregation names what it reads from its
/// input; filters, watermarks and joins (keys and condition) add their columns to what is read
/// above them; limits pass it on. Deduplication, union, sort and generate read every column of
/// their input. Where a plan reaches `scan` along several paths the sets add up. std::nullopt
/// (read every column) when the answer is every column, when a name is not one column of the
/// scan's schema (e.g. `*`), or when it is none.
std::optional<std::vector<std::string>> ColumnsReadFromScan(const LogicalPlan& root, const LogicalPlan& scan);

}  // namespace sluice::plan
