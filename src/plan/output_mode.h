// Which output modes a streaming plan supports (the output-mode part of Spark's
// UnsupportedOperationChecker). writeStream().start() refuses with this message, and
// `sluice explain` prints it as the verdict.
#pragma once

#include <string>

#include "plan/logical_plan.h"

namespace sluice::plan {

/// OK when `mode` (lower case: append | update | complete) can run `plan`; otherwise the
/// reason, naming the mode.
Status CheckOutputMode(const LogicalPlan& plan, const std::string& mode);

}  // namespace sluice::plan
