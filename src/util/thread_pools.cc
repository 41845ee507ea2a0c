#include "util/thread_pools.h"

#include <arrow/io/interfaces.h>
#include <arrow/util/thread_pool.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sluice::util {
namespace {

struct ExitWait {
  std::mutex mu;
  std::vector<arrow::internal::ThreadPool*> pools;
};

// Never destroyed: the handler below reads it during the exit.
ExitWait& Registry() {
  static auto* const registry = new ExitWait();
  return *registry;
}

void WaitForPoolsIdle() {
  std::vector<arrow::internal::ThreadPool*> pools;
  {
    std::lock_guard<std::mutex> lock(Registry().mu);
    pools = Registry().pools;
  }
  // On a thread of its own, so that a pool kept busy (a query still running at exit) cannot
  // hold the exit for more than the limit.
  struct Done {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
  };
  auto done = std::make_shared<Done>();
  std::thread waiter([pools, done] {
    for (auto* pool : pools) pool->WaitForIdle();
    std::lock_guard<std::mutex> lock(done->mu);
    done->done = true;
    done->cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(done->mu);
  if (done->cv.wait_for(lock, std::chrono::milliseconds(kExitWaitMillis), [&] { return done->done; })) {
    lock.unlock();
    waiter.join();
  } else {
    lock.unlock();
    waiter.detach();
  }
}

void Add(arrow::internal::ThreadPool* pool) {
  if (pool == nullptr) return;
  std::lock_guard<std::mutex> lock(Registry().mu);
  for (auto* p : Registry().pools) {
    if (p == pool) return;
  }
  Registry().pools.push_back(pool);
}

}  // namespace

void WaitForPoolAtExit(arrow::internal::ThreadPool* pool) {
  static const bool registered = [] {
    auto* cpu = arrow::internal::GetCpuThreadPool();
    auto* io = dynamic_cast<arrow::internal::ThreadPool*>(arrow::io::default_io_context().executor());
    // Submitting a task makes the static objects the pools' task wrapper uses (it looks up the
    // current tracing span in the submitting thread), so they are destroyed after the handler
    // registered next has run: exit handlers and static objects go in the reverse order.
    for (auto* p : {cpu, io}) {
      if (p != nullptr) (void)p->Spawn([] {});
      Add(p);
    }
    std::atexit(WaitForPoolsIdle);
    return true;
  }();
  (void)registered;
  Add(pool);
}

}  // namespace sluice::util
