// CpuTimer (exec/stateful_util.h), behind the aggregationCpuNanos metric: it counts the calling
// thread and the ParallelFor workers started under it, and nothing else the process runs.
#include <gtest/gtest.h>

#include <ctime>
#include <thread>

#include "exec/stateful_util.h"

namespace sluice::exec {
namespace {

constexpr int64_t kMs = 1000000;

int64_t ThreadCpu() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Spins until this thread has used `ns` more CPU time (CPU, not wall time: a loaded machine
// only makes it take longer).
void Burn(int64_t ns) {
  const int64_t until = ThreadCpu() + ns;
  volatile uint64_t x = 0;
  while (ThreadCpu() < until) {
    for (int i = 0; i < 1000; ++i) x = x + static_cast<uint64_t>(i);
  }
}

TEST(CpuTimer, CountsTheCallingThreadAndItsParallelForWorkers) {
  const CpuTimer timer;
  Burn(20 * kMs);
  ASSERT_TRUE(ParallelFor(4, 2, [](int) {
                Burn(15 * kMs);
                return Status::OK();
              }).ok());
  // 20 ms here and 4 x 15 ms on the workers; a little more for thread starts and the clock reads.
  EXPECT_GE(timer.ElapsedNs(), 80 * kMs);
  EXPECT_LT(timer.ElapsedNs(), 120 * kMs);
}

TEST(CpuTimer, LeavesOutOtherThreadsOfTheProcess) {
  const CpuTimer timer;
  std::thread other([] { Burn(100 * kMs); });  // e.g. a source decoding the next batch
  other.join();
  ASSERT_TRUE(ParallelFor(2, 2, [](int) {
                Burn(10 * kMs);
                return Status::OK();
              }).ok());
  EXPECT_GE(timer.ElapsedNs(), 20 * kMs);
  EXPECT_LT(timer.ElapsedNs(), 60 * kMs);  // the other thread's 100 ms are not in it
}

TEST(CpuTimer, AnInnerTimerCountsTowardTheOuterOne) {
  const CpuTimer outer;
  int64_t inner_ns = 0;
  {
    const CpuTimer inner;
    ASSERT_TRUE(ParallelFor(2, 2, [](int) {
                  Burn(15 * kMs);
                  return Status::OK();
                }).ok());
    inner_ns = inner.ElapsedNs();
  }
  ASSERT_TRUE(ParallelFor(2, 2, [](int) {
                Burn(10 * kMs);
                return Status::OK();
              }).ok());
  EXPECT_GE(inner_ns, 30 * kMs);
  EXPECT_LT(inner_ns, 60 * kMs);
  EXPECT_GE(outer.ElapsedNs(), 50 * kMs);
  EXPECT_LT(outer.ElapsedNs(), 90 * kMs);
}

}  // namespace
}  // namespace sluice::exec
