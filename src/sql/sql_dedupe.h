// SQL's spellings of a dedupe, planned as dropDuplicates (or dropDuplicatesWithinWatermark when
// the input carries a watermark, so the state of a key ends once the watermark passes it):
//   SELECT ... FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) = 1
//   SELECT ... FROM (SELECT ..., ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM t) s
//   WHERE rn = 1
// The row kept is the first of its key to arrive (a stream cannot wait for an earlier one); the
// ORDER BY must be ascending, and it is not re-checked (docs/spark-compatibility.md). Other
// window functions, DESC orders and other comparisons are refused with a located error.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "sluice/dataframe.h"
#include "sql/sql_text.h"

namespace sluice::sql {

/// When `select` (a SelectStmt body starting at byte `begin`) spells a dedupe, the same select
/// with it taken out and recorded for ApplyRowNumberDedupe (QUALIFY's on `select`, the
/// subquery form's on the subquery, whose rn column becomes the constant 1). Nullopt if none.
Result<std::optional<nlohmann::json>> TakeRowNumberDedupe(const nlohmann::json& select, int begin,
                                                          const SqlText& text);

/// The dedupe recorded on `select`, if any, applied to `df` (FROM and WHERE applied).
Result<DataFrame> ApplyRowNumberDedupe(const nlohmann::json& select, const DataFrame& df, const SqlText& text);

}  // namespace sluice::sql
