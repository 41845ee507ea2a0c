// Filter pushdown: the predicate a file source may apply while it decodes a scan, with the
// physical layer's evaluator bound to it (sources cannot see exec/).
#pragma once

#include <memory>

#include "plan/logical_plan.h"
#include "plan/read_columns.h"
#include "source/source.h"

namespace sluice::runtime {

/// plan::PushableScanFilter for `scan`, evaluated with exec's expression evaluator; null when the
/// plan offers none.
std::shared_ptr<const source::ScanFilter> MakeScanFilter(const plan::LogicalPlan& root, const plan::LogicalPlan& scan);

}  // namespace sluice::runtime
