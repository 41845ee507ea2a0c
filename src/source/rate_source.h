// Synthetic sources for tests and demos (Spark's "rate" and "rate-micro-batch"), columns
// `timestamp` TIMESTAMP and `value` BIGINT. Both are deterministic for a recorded offset range,
// so a redone batch produces exactly the same rows.
//
// rate: rowsPerSecond rows per second of wall-clock time since the query first started (that
//   start time is kept in <checkpoint>/sources/<i>/0), ramping up linearly over rampUpTime.
//   Offsets are whole seconds since that start.
// rate-micro-batch: rowsPerBatch rows per batch whatever the clock says; batch timestamps start
//   at startTimestamp and advance by advanceMillisPerBatch. Offsets {"offset":rows,"timestamp":ms}.
#pragma once

#include "source/source.h"

namespace sluice::source {

/// Checks options of "rate" and "rate-micro-batch" sources (names and values).
Status ValidateRateSourceSpec(const plan::SourceSpec& spec);
Result<std::unique_ptr<Source>> MakeRateSource(const plan::SourceSpec& spec, const SourceContext& ctx);
std::shared_ptr<arrow::Schema> RateSourceSchema();

/// Rows generated during the first `seconds` seconds (exposed for tests).
int64_t RateValueAtSecond(int64_t seconds, int64_t rows_per_second, int64_t ramp_up_seconds);

}  // namespace sluice::source
