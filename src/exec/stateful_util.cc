#include "exec/stateful_util.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include "util/compute_init.h"

namespace sluice::exec {

int64_t SteadyNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t ProcessCpuNs() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

namespace {

int64_t ThreadCpuNs() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Where this thread's ParallelFor workers add their CPU time: the innermost live CpuTimer's count.
thread_local std::atomic<int64_t>* t_cpu_sink = nullptr;

}  // namespace

CpuTimer::CpuTimer() : thread_start_ns_(ThreadCpuNs()), outer_(t_cpu_sink) { t_cpu_sink = &workers_ns_; }

CpuTimer::~CpuTimer() {
  t_cpu_sink = outer_;
  if (outer_) *outer_ += workers_ns_.load();  // the outer timer's own thread time has the rest
}

int64_t CpuTimer::ElapsedNs() const { return ThreadCpuNs() - thread_start_ns_ + workers_ns_.load(); }

int OperatorThreads(int num_partitions) {
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(num_partitions, hw > 0 ? hw : 1));
}

Status ParallelFor(int n, int threads, const std::function<Status(int)>& fn) {
  if (n <= 1 || threads <= 1) {
    for (int i = 0; i < n; ++i) ARROW_RETURN_NOT_OK(fn(i));
    return Status::OK();
  }
  std::vector<Status> status(static_cast<size_t>(n));
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  std::atomic<int64_t>* sink = t_cpu_sink;
  for (int t = 0; t < std::min(n, threads); ++t) {
    pool.emplace_back([&] {
      t_cpu_sink = sink;  // a worker's own ParallelFor counts toward the same timer
      const int64_t start = ThreadCpuNs();
      for (int i = next++; i < n; i = next++) status[static_cast<size_t>(i)] = fn(i);
      if (sink) *sink += ThreadCpuNs() - start;
    });
  }
  for (auto& th : pool) th.join();
  for (auto& s : status) ARROW_RETURN_NOT_OK(s);
  return Status::OK();
}

Result<std::shared_ptr<arrow::Int64Array>> TimestampMicros(const std::shared_ptr<arrow::Array>& ts) {
  if (ts->type_id() != arrow::Type::TIMESTAMP) return Status::TypeError("event time must be a timestamp");
  std::shared_ptr<arrow::Array> us = ts;
  const auto& t = static_cast<const arrow::TimestampType&>(*ts->type());
  if (t.unit() != arrow::TimeUnit::MICRO) {
    ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());  // only a cast needs the kernels
    ARROW_ASSIGN_OR_RAISE(auto d, arrow::compute::Cast(ts, arrow::compute::CastOptions::Unsafe(
                                                               arrow::timestamp(arrow::TimeUnit::MICRO))));
    us = d.make_array();
  }
  ARROW_ASSIGN_OR_RAISE(auto i64, us->View(arrow::int64()));
  return std::static_pointer_cast<arrow::Int64Array>(i64);
}

int64_t UnitToMicros(const arrow::DataType& t) {
  if (t.id() != arrow::Type::TIMESTAMP) return 1;
  switch (static_cast<const arrow::TimestampType&>(t).unit()) {
    case arrow::TimeUnit::SECOND: return 1000000;
    case arrow::TimeUnit::MILLI: return 1000;
    case arrow::TimeUnit::MICRO: return 1;
    case arrow::TimeUnit::NANO: return -1000;
  }
  return 1;
}

}  // namespace sluice::exec
