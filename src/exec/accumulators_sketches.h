// Internal to exec/: the state of approx_count_distinct and percentile_approx.
//
// approx_count_distinct is Spark's HyperLogLog++ (HyperLogLogPlusPlusHelper): each non-null value
// is hashed with XXH64, seed 42, over the bytes Spark hashes for its type (4 little-endian bytes
// for BOOLEAN/TINYINT/SMALLINT/INT/DATE/FLOAT, 8 for BIGINT/TIMESTAMP/DOUBLE/DECIMAL(<=18), the
// UTF-8 or binary bytes, a wide decimal's minimal big-endian two's complement); the first p bits
// pick a register, which keeps the largest "leading zeros + 1" of the rest. State: the 2^p
// registers, one byte each; merge = the larger register. The estimate is Spark's: linear
// counting while it is at most Spark's threshold for p, the raw HLL estimate otherwise (Spark
// also subtracts an empirical bias between the threshold and 5 * 2^p; sluice does not —
// docs/spark-compatibility.md).
//
// percentile_approx keeps every distinct value with its count (the row_codec encoding sorts in
// value order), so its answer is exact: the value Spark's quantile summary gives while it holds
// every row (Spark's is within 1/accuracy of the rank once it compresses).
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <map>
#include <string>

#include "plan/aggregate.h"

namespace sluice::exec {

/// Spark's XxHash64Function.hash(value, type, 42) of the non-null `array[row]`.
uint64_t SparkXxHash64(const arrow::Array& array, int64_t row);
/// Folds a value's hash into the 2^p registers (sized on first use).
void HllAdd(int p, uint64_t hash, std::string* registers);
/// Folds `later`'s registers into `registers` (either may be empty: no value yet).
void HllMerge(const std::string& later, std::string* registers);
/// The cardinality estimate of the registers (0 when empty).
int64_t HllEstimate(int p, const std::string& registers);

/// Appends percentile_approx's value over `counts` (encoded value -> occurrences) to `builder`:
/// x's value, or for an array of percentages a list with one value per percentage, in order;
/// NULL without values (or without percentages).
Status AppendPercentile(const plan::AggCall& call, const std::map<std::string, int64_t>& counts,
                        arrow::ArrayBuilder* builder);

}  // namespace sluice::exec
