// Returns from main while a thread of a pool is still inside a task (it sleeps, then writes the
// file MARKER): whether the process's exit waits for it, as util::WaitForPoolAtExit arranges
// for the pools whose task wrapper would otherwise run under the exit's destruction of static
// objects (a crash at exit). The integration test ThreadPoolsAtExit runs it.
//
//   pool_exit waited|bare MARKER     waited: the pool registered with util::WaitForPoolAtExit
#include <arrow/util/thread_pool.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "util/thread_pools.h"

int main(int argc, char** argv) {
  if (argc != 3 || (std::strcmp(argv[1], "waited") != 0 && std::strcmp(argv[1], "bare") != 0)) {
    std::fprintf(stderr, "usage: pool_exit waited|bare MARKER\n");
    return 2;
  }
  // Never destroyed, as the read-ahead's pools: nothing joins its thread at exit (held by a
  // static, so a leak checker at exit still finds it reachable).
  static auto* const pool =
      new std::shared_ptr<arrow::internal::ThreadPool>(arrow::internal::ThreadPool::Make(1).ValueOrDie());
  if (std::strcmp(argv[1], "waited") == 0) sluice::util::WaitForPoolAtExit(pool->get());
  const std::string marker = argv[2];
  auto started = std::make_shared<std::atomic<bool>>(false);
  if (!(*pool)->Spawn([marker, started] {
         *started = true;
         std::this_thread::sleep_for(std::chrono::milliseconds(sluice::util::kExitWaitMillis / 2));
         std::ofstream(marker) << "finished\n";
       }).ok()) {
    return 3;
  }
  while (!*started) std::this_thread::yield();
  return 0;
}
