// Read-ahead of a file source: while the engine runs batch N (its operators and its sink), the
// files batch N+1 will most likely take are decoded on a thread of their own, so the reading of
// one batch overlaps the writing of the one before. A batch uses the early result only when it
// takes exactly the files that were read ahead and none of them changed (size and modification
// time) since; otherwise the result is dropped and the batch reads its files as always. What a
// batch contains, the source log and the offsets are never affected: the read-ahead only moves
// the decoding earlier.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <arrow/util/future.h>
#include <arrow/util/type_fwd.h>

#include "io/file_system.h"
#include "source/file_readers.h"
#include "sluice/status.h"

namespace sluice::source {

/// The threads a read-ahead decodes its files on: a pool of its own, as large as Arrow's CPU
/// pool. On the CPU pool, a read-ahead's tasks (queued first) would run before every task the
/// batch in progress queues there, such as its sink's encoding, and the batch's serial work
/// after that (writing its files, its logs) would find nothing left to overlap with. With two
/// pools the system's scheduler shares the cores between the two batches.
arrow::internal::Executor* ReadAheadExecutor();

class ReadAhead {
 public:
  using Reader = std::function<Result<FileReadResult>(const std::vector<std::string>& paths)>;

  ReadAhead() = default;
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;
  /// Waits for a read still in flight (its result is dropped).
  ~ReadAhead();

  /// Starts decoding `paths` with `read` on a read-ahead thread (kept between batches, so a
  /// batch starts no thread); any earlier read is finished and dropped first. `fs` stats each
  /// file just before the read.
  void Start(io::FileSystem* fs, std::vector<std::string> paths, Reader read);

  /// The early result when it was started for exactly the paths of `files` (in this order), it
  /// succeeded, and each file's size and modification time (`files`, stat'ed by the caller after
  /// the batch was decided) are those it had when the read started; otherwise nothing
  /// (a failed read is dropped: the caller's own read reports the error). Waits for a read in
  /// flight; afterwards nothing is held.
  std::optional<FileReadResult> Take(const std::vector<io::FileInfo>& files);

  bool in_flight() const { return pending_.has_value(); }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Done {
    std::vector<io::FileInfo> files;  // as stat'ed before the read
    Result<FileReadResult> result;
  };
  std::optional<arrow::Future<Done>> pending_;
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

}  // namespace sluice::source
