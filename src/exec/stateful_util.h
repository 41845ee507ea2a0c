// Small helpers shared by the stateful operators (aggregations, deduplication) and the runtime's
// state loading.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>

#include "sluice/status.h"

namespace sluice::exec {

inline constexpr int64_t kNoWatermark = std::numeric_limits<int64_t>::min();

/// A watermark in ms as micros; kNoWatermark stays kNoWatermark.
inline int64_t WatermarkUs(int64_t ms) { return ms == kNoWatermark ? kNoWatermark : ms * 1000; }

/// Returned from a state store ForEach callback to end the iteration early (not an error: the
/// caller checks IsCancelled()).
inline Status StopIteration() { return Status::Cancelled("stop iteration"); }

/// Monotonic milliseconds, for operator timings.
int64_t SteadyNowMs();
/// CPU time (user + system) of the whole process so far, in nanoseconds.
int64_t ProcessCpuNs();

/// The CPU time (user + system) an operator spends while this timer lives: the calling thread's,
/// plus that of every ParallelFor worker started from it (or from a worker of it), but not other
/// threads of the process (a source decoding the next batch meanwhile). Timers nest: an inner
/// timer's count is also the outer one's.
class CpuTimer {
 public:
  CpuTimer();
  ~CpuTimer();
  CpuTimer(const CpuTimer&) = delete;
  CpuTimer& operator=(const CpuTimer&) = delete;
  /// Nanoseconds counted so far.
  int64_t ElapsedNs() const;

 private:
  int64_t thread_start_ns_;
  std::atomic<int64_t> workers_ns_{0};
  std::atomic<int64_t>* outer_;
};

/// Worker threads used per operator: min(partitions, hardware threads).
int OperatorThreads(int num_partitions);

/// Runs fn(i) for i in [0, n) on up to `threads` threads; returns the first error. The workers'
/// CPU time counts toward the caller's CpuTimer.
Status ParallelFor(int n, int threads, const std::function<Status(int)>& fn);

/// A timestamp array (any unit) as int64 microseconds since the epoch.
Result<std::shared_ptr<arrow::Int64Array>> TimestampMicros(const std::shared_ptr<arrow::Array>& ts);

/// Multiplier from a timestamp unit to micros (negative: divide by its absolute value).
int64_t UnitToMicros(const arrow::DataType& t);
inline int64_t ScaleToMicros(int64_t v, int64_t factor) { return factor >= 0 ? v * factor : v / (-factor); }

}  // namespace sluice::exec
