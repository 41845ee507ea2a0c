// The next compaction entry of a compactible log (a file sink's _spark_metadata, a file source's
// log: every N-th entry lists everything so far), kept in memory by the log's writer and written
// ahead of its batch. Once a compaction entry is written, a background task starts the next one
// as an unnamed file holding the text so far, written around the page cache
// (io::FileSystem::OpenNewFileUncached); each entry added meanwhile appends its lines to the
// text and, in the background, to that file. The compaction batch then only appends its own
// lines, syncs what is left and names the file: the tens of MB a compaction entry reaches in a
// long run are no longer written on the batch's path (the disk still writes them, and the
// batches' own syncs may wait behind them). Nothing is named before that step, so a crash or a failure
// meanwhile leaves nothing behind; when the file written ahead is missing or failed, the entry
// is written whole, as before (MetadataLog::AddText).
//
// Thread-compatible, like its log: one writer calls it. The background work runs on Arrow's I/O
// thread pool, one task after another; the text is touched only there, or after waiting for it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <arrow/io/interfaces.h>

#include "checkpoint/metadata_log.h"
#include "io/direct_writer.h"

namespace sluice::checkpoint {

class CompactionWriter {
 public:
  /// Writes the compaction entries of the log in `dir` through `fs` (as MetadataLog's).
  CompactionWriter(std::shared_ptr<io::FileSystem> fs, std::string dir, int max_version = 1);
  CompactionWriter(const CompactionWriter&) = delete;
  CompactionWriter& operator=(const CompactionWriter&) = delete;
  /// Waits for the background work and gives up a file written ahead (it stays unnamed).
  ~CompactionWriter();

  /// Through which entry the text is, or nullopt when it is not known (not loaded yet, or a
  /// write failed and whether its entry exists is unknown).
  std::optional<int64_t> through() const { return through_; }
  /// Sets the whole text (the version line, then a line per item) as of entry `through`;
  /// gives up a file written ahead.
  void Reset(std::string text, int64_t through);
  /// Forgets the text; gives up a file written ahead.
  void Clear();
  /// Appends the lines (no final '\n'; empty for an entry without any) of entry `id`, the one
  /// after through(), to the text and, in the background, to the file written ahead.
  void Append(int64_t id, std::string lines);
  /// Writes compaction entry `id` (create-only, as MetadataLog::AddText): the text with `lines`
  /// appended, through the file written ahead when there is a sound one for `id` and `sync`.
  /// Then starts the next compaction entry, `next_id`, in the background. On failure, Clear()s.
  Status WriteCompaction(int64_t id, std::string_view lines, io::EntrySync sync, int64_t next_id);

  /// Waits until the background work queued so far is done (the destructor does too).
  void WaitForBackground();
  /// For tests: whether the file written ahead for entry `id` is open and sound (after
  /// WaitForBackground()).
  bool WrittenAhead(int64_t id) const { return ahead_ && ahead_id_ == id && ahead_status_.ok(); }

 private:
  /// Runs `task` after the ones queued before it, on the I/O thread pool.
  void Post(std::function<void()> task);
  void Drain();
  /// Starts the file for entry `id` with the text so far (in the background).
  void StartAhead(int64_t id, io::EntrySync sync);
  /// Gives up the file written ahead (after WaitForBackground()).
  void DropAhead();

  MetadataLog log_;
  // Touched by the background tasks, or by the writer after WaitForBackground().
  io::BlockAlignedText text_;  // block-aligned: the file written ahead takes its bulk without a copy
  std::shared_ptr<arrow::io::OutputStream> ahead_;  // the unnamed file of entry ahead_id_
  int64_t ahead_id_ = -1;
  io::EntrySync ahead_sync_ = io::EntrySync::kNow;
  Status ahead_status_;
  // The writer's own.
  std::optional<int64_t> through_;
  // The background queue.
  std::mutex mu_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  bool running_ = false;
};

}  // namespace sluice::checkpoint
