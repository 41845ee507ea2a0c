// Output modes: what a streaming query writes to its sink each batch, parsed once from the
// user's string (writeStream().outputMode("append"), --output-mode, SQL pipelines), and which
// of them a streaming plan supports (the output-mode part of Spark's
// UnsupportedOperationChecker). writeStream().start() refuses with CheckOutputMode's message,
// and `sluice explain` prints it as the verdict.
#pragma once

#include <string>
#include <string_view>

#include "plan/logical_plan.h"

namespace sluice::plan {

enum class OutputMode {
  kAppend,    // only rows that will never change (closed windows; every row of a stateless query)
  kUpdate,    // the rows that changed in this batch
  kComplete,  // the whole result table, every batch
};

/// Parses "append" | "update" | "complete", case-insensitively. The error names the value given
/// and lists the valid ones.
Result<OutputMode> ParseOutputMode(std::string_view text);

/// "append" | "update" | "complete": the user's spelling, in messages and descriptions.
const char* OutputModeName(OutputMode mode);

/// OK when `mode` can run `plan`; otherwise the reason, naming the mode and the operator.
Status CheckOutputMode(const LogicalPlan& plan, OutputMode mode);

}  // namespace sluice::plan
