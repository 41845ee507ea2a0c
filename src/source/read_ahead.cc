#include "source/read_ahead.h"

#include <arrow/util/thread_pool.h>

#include <memory>
#include <utility>

#include "util/thread_pools.h"

namespace sluice::source {
namespace {

bool SameFile(const io::FileInfo& a, const io::FileInfo& b) {
  return a.path == b.path && a.size == b.size && a.mtime_ns == b.mtime_ns;
}

// A pool as large as Arrow's CPU pool, never destroyed (a read-ahead may still be finishing
// while static objects are torn down, and held by the caller's static, so a leak checker finds
// it reachable); the process's exit waits for the tasks it runs.
std::shared_ptr<arrow::internal::ThreadPool>* MakeLastingPool() {
  auto* made = new std::shared_ptr<arrow::internal::ThreadPool>(
      arrow::internal::ThreadPool::Make(arrow::GetCpuThreadPoolCapacity()).ValueOrDie());
  util::WaitForPoolAtExit(made->get());
  return made;
}

}  // namespace

arrow::internal::Executor* ReadAheadExecutor() {
  static auto* const pool = MakeLastingPool();
  return pool->get();
}

namespace {

// The threads that run a read-ahead's reader: kept for the process (a thread started and ended
// per batch cost a small batch a clone and the unmapping of its stack). Not ReadAheadExecutor
// nor Arrow's CPU pool: the reader waits on the tasks it submits to those, which a thread of the
// same pool must never do.
arrow::internal::Executor* ReaderThreads() {
  static auto* const pool = MakeLastingPool();
  return pool->get();
}

}  // namespace

ReadAhead::~ReadAhead() {
  if (pending_) pending_->Wait();
}

void ReadAhead::Start(io::FileSystem* fs, std::vector<std::string> paths, Reader read) {
  if (pending_) {
    pending_->Wait();
    pending_.reset();
    ++misses_;
  }
  auto submitted = ReaderThreads()->Submit([fs, paths = std::move(paths), read = std::move(read)]() -> Done {
    Done done{{}, Status::Invalid("not read")};
    for (const auto& p : paths) {
      auto info = fs->Stat(p);
      if (!info.ok() || !*info) {
        done.result = info.ok() ? Status::IOError("File ", p, " no longer exists") : info.status();
        return done;
      }
      io::FileInfo f = **info;
      f.path = p;
      done.files.push_back(std::move(f));
    }
    done.result = read(paths);
    return done;
  });
  // A pool that takes no more tasks (the process is ending): no read-ahead, the batch reads.
  if (submitted.ok()) pending_ = std::move(*submitted);
}

std::optional<FileReadResult> ReadAhead::Take(const std::vector<io::FileInfo>& files) {
  if (!pending_) return std::nullopt;
  Result<Done> finished = pending_->MoveResult();
  pending_.reset();
  if (!finished.ok()) {
    ++misses_;
    return std::nullopt;
  }
  Done done = std::move(finished).ValueOrDie();
  bool same = done.result.ok() && done.files.size() == files.size();
  for (size_t i = 0; same && i < files.size(); ++i) same = SameFile(done.files[i], files[i]);
  if (!same) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  return std::move(done.result).ValueOrDie();
}

}  // namespace sluice::source
