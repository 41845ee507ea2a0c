// Internal to exec/: the state of Spark's central-moment aggregates (stddev_samp, stddev_pop,
// var_samp, var_pop) in an Acc: count, mean (Acc::d) and the sum of squared deviations from
// the mean (Acc::m2), updated one value at a time (Welford) and merged pairwise (Chan et
// al.), as Spark's CentralMomentAgg. State bytes: count (fixed64), mean, m2 (IEEE doubles).
#pragma once

#include <optional>
#include <string>

#include "exec/accumulators.h"

namespace sluice::exec {

bool IsMoments(const std::string& fn);
void AddMoment(Acc* acc, double x);
/// Folds `later` into `acc`.
void MergeMoments(Acc* acc, const Acc& later);
/// The aggregate's value: NULL without rows, and for a sample statistic of one row (Spark 3.1+).
std::optional<double> FinishMoments(const std::string& fn, const Acc& acc);

}  // namespace sluice::exec
