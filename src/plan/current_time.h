// current_timestamp(), current_date() (and now()): one value per query run, as Spark's
// ComputeCurrentTime rule. A streaming query binds them to the micro-batch's timestamp, the
// `batchTimestampMs` its offsets log records before the batch runs, so a batch re-run after a
// crash sees the value its first run saw; a batch query binds them once, when it starts.
// Until bound, the calls only carry their type; the evaluator refuses to run them.
#pragma once

#include <cstdint>

#include "plan/logical_plan.h"

namespace sluice::plan {

/// The call names bound here (the SQL front end maps now() and CURRENT_TIMESTAMP to the first).
inline constexpr const char* kCurrentTimestamp = "current_timestamp";
inline constexpr const char* kCurrentDate = "current_date";

/// True when some expression of `plan` (any node, any input) calls current_timestamp/current_date.
bool UsesCurrentTime(const LogicalPlan& plan);

/// `plan` with every current_timestamp() replaced by the TIMESTAMP literal `timestamp_ms` and
/// every current_date() by that instant's date in UTC (the session time zone). Schemas are
/// unchanged; nodes without such a call are shared.
PlanPtr BindCurrentTime(const PlanPtr& plan, int64_t timestamp_ms);

}  // namespace sluice::plan
