// A FileSystem wrapper for crash and fault tests (the LevelDB fault-injection Env idea).
// It forwards every call to a base filesystem and, when a configured fault triggers, either
// ends the process at once with _exit (a crash: nothing is flushed, no destructors run) or
// fails the call with an IOError.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "io/file_system.h"

namespace sluice::io {

struct FaultSpec {
  enum class Action { kExit, kFail };
  /// Triggers when FaultPoint(point) is reached for the `hits`-th time (1 = first).
  std::string point;
  /// Or: triggers on the `hits`-th data write (WriteAtomic, CreateExclusive, a stream's
  /// first Write) whose path contains `path_substring`. Empty = not used.
  std::string path_substring;
  /// Or: triggers on the `hits`-th sync of a directory holding a deferred entry (EntrySync::
  /// kDeferred) whose path contains `sync_substring`, before that sync happens. Empty = not used.
  std::string sync_substring;
  /// Or: triggers on the `hits`-th ListNames of a directory whose path contains `list_substring`.
  std::string list_substring;
  int hits = 1;
  Action action = Action::kExit;
  int exit_code = 42;

  /// Parses "point=NAME[,hits=K][,action=exit|fail]", "write=SUBSTR[,...]", "sync=SUBSTR[,...]"
  /// or "list=SUBSTR[,...]".
  static Result<FaultSpec> Parse(const std::string& text);
};

class FaultInjectingFileSystem final : public FileSystem {
 public:
  FaultInjectingFileSystem(std::shared_ptr<FileSystem> base, FaultSpec spec)
      : base_(std::move(base)), spec_(std::move(spec)) {}

  Result<std::string> ReadFile(const std::string& path) override { return base_->ReadFile(path); }
  Result<std::vector<FileInfo>> List(const std::string& dir) override { return base_->List(dir); }
  Result<std::vector<DirEntry>> ListNames(const std::string& dir) override;
  Result<std::optional<FileInfo>> Stat(const std::string& path) override { return base_->Stat(path); }
  Status MakeDirs(const std::string& dir) override { return base_->MakeDirs(dir); }
  Status Delete(const std::string& path) override { return base_->Delete(path); }
  Status DeleteTree(const std::string& path) override { return base_->DeleteTree(path); }
  using FileSystem::Rename;
  using FileSystem::WriteAtomic;
  Status Rename(const std::string& from, const std::string& to, EntrySync sync) override;
  Status WriteAtomic(const std::string& path, const std::string& data, bool overwrite, EntrySync sync) override;
  Status CreateExclusive(const std::string& path, const std::string& data) override;
  Status SyncDeferred() override;
  void PrepareEntries() override { base_->PrepareEntries(); }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(const std::string& path) override;
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFile(const std::string& path, EntrySync sync) override;
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFileUncached(const std::string& path, EntrySync sync) override;
  void WillRead(const std::string& path, int64_t bytes) override { base_->WillRead(path, bytes); }
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(const std::string& path) override {
    return base_->OpenInputFile(path);
  }
  Status FaultPoint(const std::string& name) override;

  /// True once the fault has triggered (only observable with Action::kFail).
  bool triggered() const { return triggered_.load(); }
  /// Called by the wrapped output streams on their first write.
  Status OnWrite(const std::string& path);
  /// Called by the wrapped streams of OpenNewFile around the base's Close (which names the file
  /// `path`, an entry-making step): before it, as WriteAtomic before the base's; after it, with
  /// what Before returned.
  Result<bool> BeforeNaming(const std::string& path);
  void AfterNaming(const std::string& path, EntrySync sync, bool owed);

 private:
  Status Trigger(const std::string& where);
  /// Before an entry-making call or SyncDeferred: the deferred directories the base is about to
  /// sync meet the sync= fault. Defer records a directory the base now holds deferred.
  Status BeforeEntry();
  void Defer(const std::string& parent_dir);
  /// Drops `dir` from the deferred directories (an entry there is being made, which the base
  /// does not sync as one of the others); true when it was among them.
  bool TakeDeferred(const std::string& dir);

  std::shared_ptr<FileSystem> base_;
  FaultSpec spec_;
  std::mutex mu_;
  int point_hits_ = 0;
  int write_hits_ = 0;
  int sync_hits_ = 0;
  int list_hits_ = 0;
  std::vector<std::string> deferred_dirs_;  // mirrors the base's deferred directory syncs
  std::atomic<bool> triggered_{false};
};

}  // namespace sluice::io
