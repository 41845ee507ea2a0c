// Finding the data files of a file source's directory, through the filesystem seam.
//
// Convention (Spark's): names starting with '.' or '_' are hidden (in-progress files, _spark_metadata,
// _SUCCESS), so producers write a hidden name and rename it into place when complete.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "io/file_system.h"

namespace sluice::source {

struct FileListingOptions {
  std::string glob;        // fnmatch pattern on the file name; empty = every file
  bool recursive = false;  // descend into (non-hidden) sub-directories
};

/// True for names a file source never reads ('.'/'_' prefix, "._COPYING_" suffix).
bool IsHiddenFileName(const std::string& name);

/// The data files under `dir` (absolute paths; order unspecified). When `dir` holds a file
/// sink's _spark_metadata log, only the files it lists. Errors name `dir` when it is missing.
Result<std::vector<io::FileInfo>> ListDataFiles(const std::shared_ptr<io::FileSystem>& fs, const std::string& dir,
                                                const FileListingOptions& options);

/// A streaming source's directory listed batch after batch at the cost of what changed: a
/// directory whose modification time is unchanged (and was old enough when it was read to be
/// trusted: one second, so a change in the same clock tick cannot hide) is not read again; a
/// directory that changed is read by name only (ListNames), and only names not seen before are
/// stat'ed. Files are reported once, when they first appear; names that disappeared from a
/// directory read again are reported as removed. Hidden names, and names not matching the glob,
/// are remembered and never stat'ed. Not for directories holding a file sink's log (the caller
/// reads the log instead). Thread-compatible.
class IncrementalListing {
 public:
  IncrementalListing(std::shared_ptr<io::FileSystem> fs, std::string dir, FileListingOptions options)
      : fs_(std::move(fs)), dir_(std::move(dir)), options_(std::move(options)) {}

  /// Files that appeared since the last call (all of them on the first call), except those for
  /// which `skip(path)` is true (never stat'ed: a source's already-logged files); paths of
  /// files reported before that are gone go to `removed`.
  template <typename Skip>
  Status Update(const Skip& skip, std::vector<io::FileInfo>* added, std::vector<std::string>* removed) {
    return UpdateDir(dir_, SkipFn(skip), added, removed);
  }

  int64_t directories_read() const { return directories_read_; }
  int64_t files_statted() const { return files_statted_; }

 private:
  using SkipFn = std::function<bool(const std::string&)>;
  struct DirState {
    int64_t mtime_ns = 0;
    bool trusted = false;                  // mtime old enough, when read, for "unchanged" to mean it
    std::unordered_set<std::string> names;  // every name seen in it (files, dirs, hidden ones)
    std::vector<std::string> subdirs;      // visible sub-directories (recursive listing)
  };
  Status UpdateDir(const std::string& dir, const SkipFn& skip, std::vector<io::FileInfo>* added,
                   std::vector<std::string>* removed);
  void Forget(const std::string& dir, std::vector<std::string>* removed);

  std::shared_ptr<io::FileSystem> fs_;
  std::string dir_;
  FileListingOptions options_;
  std::unordered_map<std::string, DirState> dirs_;
  int64_t directories_read_ = 0;
  int64_t files_statted_ = 0;
};

/// "Path does not exist: file:///abs" — the missing-input error of sources and batch reads.
Status PathDoesNotExist(const std::string& abs_path);

}  // namespace sluice::source
