// Arrow's thread pools at the process's exit.
//
// Arrow wraps each task of its thread pools in code that keeps a tracing scope (OpenTelemetry,
// in the builds this project uses) and leaves it after the task has run: after the task's future
// is complete and whoever waited on it has moved on. A program that returns from main at that
// moment destroys the static objects that code still uses under the worker thread, and the
// process ends in a crash (SIGSEGV in the pool's task wrapper) after all its work was done. The
// wait registered here runs at exit before those static objects are destroyed and lets every
// registered pool finish the tasks it is running.
#pragma once

namespace arrow::internal {
class ThreadPool;
}  // namespace arrow::internal

namespace sluice::util {

/// Makes sure the process waits at exit until `pool` (and Arrow's CPU and I/O pools) run no
/// task, for up to kExitWaitMillis (a pool still busy then, as with a query still running, is
/// left as before). Cheap after the first call; `pool` may be null. A pool must outlive the
/// exit (Arrow's global pools do; so do pools that are never destroyed). The first call may
/// start pool threads, which inherit the calling thread's signal mask: call it where the work
/// runs (exec::ExecutePhysicalPlan does), not before a program has set its mask.
void WaitForPoolAtExit(arrow::internal::ThreadPool* pool);

inline constexpr int kExitWaitMillis = 2000;

}  // namespace sluice::util
