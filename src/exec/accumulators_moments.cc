#include "exec/accumulators_moments.h"

#include <cmath>

namespace sluice::exec {

bool IsMoments(const std::string& fn) {
  return fn == "stddev_samp" || fn == "stddev_pop" || fn == "var_samp" || fn == "var_pop";
}

void AddMoment(Acc* acc, double x) {
  ++acc->count;
  const double delta = x - acc->d;
  acc->d += delta / static_cast<double>(acc->count);
  acc->m2 += delta * (x - acc->d);
}

void MergeMoments(Acc* acc, const Acc& later) {
  if (later.count == 0) return;
  if (acc->count == 0) {
    acc->count = later.count;
    acc->d = later.d;
    acc->m2 = later.m2;
    return;
  }
  const double n1 = static_cast<double>(acc->count), n2 = static_cast<double>(later.count);
  const double n = n1 + n2;
  const double delta = later.d - acc->d;
  const double delta_n = delta / n;
  acc->d += delta_n * n2;
  acc->m2 += later.m2 + delta * delta_n * n1 * n2;
  acc->count += later.count;
}

std::optional<double> FinishMoments(const std::string& fn, const Acc& acc) {
  const bool sample = fn == "stddev_samp" || fn == "var_samp";
  if (acc.count == 0 || (sample && acc.count == 1)) return std::nullopt;
  const double variance = acc.m2 / static_cast<double>(sample ? acc.count - 1 : acc.count);
  return fn == "stddev_samp" || fn == "stddev_pop" ? std::sqrt(variance) : variance;
}

}  // namespace sluice::exec
