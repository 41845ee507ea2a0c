// A directory of entries named by a decimal id (0, 1, 2, ...), each written once, atomically,
// through the filesystem seam: the shape shared by offsets/, commits/, sources/<i>/ and a file
// sink's _spark_metadata/ (Spark's HDFSMetadataLog). Names that do not parse as a
// non-negative integer (temp files start with '.') are ignored, except "<id>.compact" entries,
// which count as entry <id> and report compact = true.
//
// Entry content is text: a version line "v<N>" and then the body, joined with '\n' without a
// trailing newline. Thread-compatible: one writer per log (the checkpoint lock guarantees it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <arrow/io/interfaces.h>
#include <arrow/util/future.h>

#include "io/file_system.h"

namespace sluice::checkpoint {

struct LogEntryId {
  int64_t id;
  bool compact = false;
};

class MetadataLog {
 public:
  MetadataLog(std::shared_ptr<io::FileSystem> fs, std::string dir, int max_version = 1)
      : fs_(std::move(fs)), dir_(std::move(dir)), max_version_(max_version), header_("v" + std::to_string(max_version) + "\n") {}
  MetadataLog(const MetadataLog&) = default;
  // Not assignable: an assignment would drop the background purge this log must wait for.
  MetadataLog& operator=(const MetadataLog&) = delete;
  ~MetadataLog() { WaitForPurge(); }

  const std::string& dir() const { return dir_; }
  io::FileSystem* fs() const { return fs_.get(); }
  const std::shared_ptr<io::FileSystem>& fs_shared() const { return fs_; }

  /// Writes entry `id` with `body` (the version line is added). Create-only: if the entry
  /// exists, fails with AlreadyExists naming the log and the id (another writer, or a bug).
  Status Add(int64_t id, const std::string& body, bool compact = false, io::EntrySync sync = io::EntrySync::kNow);
  /// The version line every entry starts with ("v1\n").
  const std::string& Header() const { return header_; }
  /// As Add, with the entry's whole text: `text` starts with Header(). A writer that keeps a
  /// long entry's text in memory (a compaction's, extended by every entry) writes it as it is.
  Status AddText(int64_t id, const std::string& text, bool compact, io::EntrySync sync);
  /// Appends `lines` (one line or several, no final '\n') to an entry's whole `text`; an empty
  /// `text` gets the version line first.
  template <typename Text>
  void AppendToText(Text* text, std::string_view lines) const {
    if (text->empty()) text->assign(header_);
    if (lines.empty()) return;
    if (text->size() > header_.size()) *text += '\n';
    *text += lines;
  }
  /// Entry `id` written in pieces, off the batch's path: a new unnamed file
  /// (io::FileSystem::OpenNewFileUncached) that NameEntry names, create-only, once its whole
  /// text (version line first) is written.
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenEntry(int64_t id, bool compact, io::EntrySync sync);
  /// Syncs and names the entry OpenEntry opened (its Close); AlreadyExists as for AddText. After
  /// a failure the file is given up (Abort), never named. Fault point "before_log_entry_naming".
  Status NameEntry(int64_t id, arrow::io::OutputStream* entry);
  /// Replaces entry `id` (used only where a redo must overwrite, e.g. state files).
  Status Put(int64_t id, const std::string& body);

  /// The body of entry `id` (version line checked and removed), or nullopt if absent.
  Result<std::optional<std::string>> Get(int64_t id) const;
  /// Ids present, ascending. A missing directory is an empty log.
  Result<std::vector<LogEntryId>> List() const;
  Result<std::optional<int64_t>> LatestId() const;
  /// Deletes every entry with id < `threshold`.
  Status PurgeBefore(int64_t threshold);
  /// As PurgeBefore, on Arrow's I/O thread pool, for a writer whose old entries are redundant
  /// (a compaction holds them): deleting an old compaction entry of a long-running log (tens of
  /// MB, ~7 ms of ext4's time at 20 MB) then leaves the batch's path. Best effort: a failure is
  /// logged as a warning. One purge at a time (a new one waits for the one before), and the
  /// log waits for its last one when it is destroyed.
  void PurgeBeforeInBackground(int64_t threshold);
  /// Waits for the purge PurgeBeforeInBackground started, if one is running.
  void WaitForPurge();

  std::string PathOf(int64_t id, bool compact = false) const;

 private:
  Status EnsureDir();
  /// `st` of a create-only write of entry `id`, an AlreadyExists made to say what it means.
  Status CreateOnly(int64_t id, Status st) const;

  std::shared_ptr<io::FileSystem> fs_;
  std::string dir_;
  int max_version_;
  std::string header_;
  bool dir_ready_ = false;
  arrow::Future<> purge_;  // the background purge, once one was started
};

/// Splits an entry body into lines (on '\n').
std::vector<std::string> SplitLines(const std::string& body);

}  // namespace sluice::checkpoint
