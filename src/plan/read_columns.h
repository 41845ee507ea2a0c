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

/// The predicate a source may apply while it decodes `scan` (filter pushdown), or null. Only the
/// predicate of a filter that is the scan's one and only parent is offered (a watermark, a
/// deduplication or any other operator between them sees every row, so a filter above one is
/// not), and only when it is deterministic and free of side effects: columns, literals, casts and
/// the calls of kPushableFunctions. The filter stays in the plan; a source that applies the
/// predicate keeps a superset of the rows it passes (a source may give up on it at any time).
ExprPtr PushableScanFilter(const LogicalPlan& root, const LogicalPlan& scan);

/// The functions a pushed predicate may call: arithmetic, comparison, logic, null tests, IN,
/// LIKE, COALESCE, CASE WHEN and a few string functions (all deterministic, none stateful).
extern const std::vector<std::string> kPushableFunctions;

}  // namespace sluice::plan
