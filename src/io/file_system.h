// The filesystem seam. Every checkpoint, source-log and sink write goes through a FileSystem,
// so tests can wrap it to crash or fail at a named point (see fault_injection.h) without #ifdef.
//
// Paths are plain local paths (absolute or relative). Thread-safety: implementations are
// safe to call from several threads at once.
#pragma once

#include <arrow/io/interfaces.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice::io {

struct FileInfo {
  std::string path;           // full path as given to List() joined with the entry name
  std::string name;           // last path component
  bool is_dir = false;
  int64_t size = 0;
  int64_t mtime_ms = 0;       // modification time, milliseconds since the epoch
  int64_t mtime_ns = 0;       // the same, nanoseconds (as precise as the filesystem keeps it)
};

/// A directory entry's name and kind, without its size or time (no stat: see ListNames).
struct DirEntry {
  std::string name;
  bool is_dir = false;
};

/// When the directory entry a Rename or WriteAtomic creates becomes durable (its parent
/// directory synced). Every call that makes an entry first makes the deferred entries of other
/// directories durable (before naming its own), so entries of different directories become
/// durable in the order they were made; deferred entries of one directory become durable
/// together, by the next sync of that directory, in no set order among themselves.
enum class EntrySync {
  kNow,       // before the call returns
  kDeferred,  // by the next entry-making call or SyncDeferred(), whichever comes first
  // Neither the data nor the entry is synced (the deferred entries of other directories are made
  // durable first, as by every entry-making call): after a process crash the file is whole, but
  // after a power failure it may be missing, empty or cut short. Only for an entry whose loss is
  // recovered from (the commit log: its batch is re-run, and the sink recognises it).
  kNone,
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  /// Entries of a directory (not recursive), sorted by name. NotFound when it does not exist.
  virtual Result<std::vector<FileInfo>> List(const std::string& dir) = 0;
  /// Names and kinds of a directory's entries (not recursive), sorted by name, without a stat
  /// of each entry (what List() costs per entry). NotFound-style IOError when it does not exist.
  virtual Result<std::vector<DirEntry>> ListNames(const std::string& dir) = 0;
  virtual Result<std::optional<FileInfo>> Stat(const std::string& path) = 0;
  virtual Status MakeDirs(const std::string& dir) = 0;
  /// Deletes a file or an empty directory; a missing path is not an error.
  virtual Status Delete(const std::string& path) = 0;
  /// Deletes a directory tree; a missing path is not an error.
  virtual Status DeleteTree(const std::string& path) = 0;
  /// Renames; replaces an existing file at `to`. Syncs the parent directory of `to` (now or,
  /// with EntrySync::kDeferred, later: see EntrySync).
  virtual Status Rename(const std::string& from, const std::string& to, EntrySync sync) = 0;
  Status Rename(const std::string& from, const std::string& to) { return Rename(from, to, EntrySync::kNow); }

  /// Writes `data` so that `path` holds either its old content or all of `data`: an unnamed
  /// (or hidden temp) file, data sync, then link or rename into place, then a sync of the
  /// directory (see EntrySync). With overwrite = false, fails with AlreadyExists if `path`
  /// exists (the check and the naming are one atomic link step).
  virtual Status WriteAtomic(const std::string& path, const std::string& data, bool overwrite, EntrySync sync) = 0;
  Status WriteAtomic(const std::string& path, const std::string& data, bool overwrite) {
    return WriteAtomic(path, data, overwrite, EntrySync::kNow);
  }
  /// Creates `path` exclusively (AlreadyExists if present) and writes `data`, synced.
  virtual Status CreateExclusive(const std::string& path, const std::string& data) = 0;
  /// Makes every entry made with EntrySync::kDeferred durable now.
  virtual Status SyncDeferred() = 0;
  /// Gets ready, off a batch's critical path (between batches), for the entries the next batch
  /// makes: the local filesystem creates now, unnamed, one file in each directory where entries
  /// were made both since the last call and in the interval before (a log's directory, written
  /// by every batch), which the next WriteAtomic or OpenNewFile there fills and names. Creating
  /// a file costs about as much as a data sync on ext4, and a small batch makes five. An unnamed
  /// file is never visible, and a crash leaves nothing behind. Changes no durability step.
  /// Optional: a no-op unless an implementation gains by it.
  virtual void PrepareEntries() {}

  /// A stream for a large new file (sink data files), buffered. Close() fsyncs the file;
  /// Abort() gives it up without the sync.
  virtual Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(const std::string& path) = 0;
  /// A stream for a new file that gets its name `path` only when Close() has made its data
  /// durable (then the directory is synced as `sync` says, as for WriteAtomic): until then, and
  /// after Abort() or a crash, nothing is at `path`. Close() fails with AlreadyExists when
  /// `path` exists by then. Buffered, like OpenOutputStream's; like every Arrow stream it is
  /// closed (so named) when destroyed unclosed: a writer that gives up calls Abort(). Flush()
  /// writes the buffer out and starts the write-back of the data written so far (it makes
  /// nothing durable), so that Close() has less left to sync.
  virtual Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFile(const std::string& path, EntrySync sync) = 0;
  /// As OpenNewFile, for a large file written off any batch's path (a log's compaction entry
  /// written ahead): the local filesystem writes its whole blocks around the page cache
  /// (O_DIRECT; where the filesystem refuses it, as OpenNewFile), which spares the process the
  /// copy into the cache but makes each write wait for the disk. Flush() then writes the whole
  /// blocks buffered. A writer that gives up calls Abort(), as for OpenNewFile. Optional:
  /// OpenNewFile unless an implementation gains by it.
  virtual Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFileUncached(const std::string& path, EntrySync sync) {
    return OpenNewFile(path, sync);
  }
  virtual Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(const std::string& path) = 0;
  /// A hint that the first `bytes` of `path` (all of a shorter file) will be read soon: the local
  /// filesystem asks the kernel to start reading into its cache what the cache lacks, so that a
  /// read of several files does not wait for the disk a file at a time while the cores that
  /// would decode them idle. Changes nothing a read returns and never fails (a missing file is
  /// the read's to report). Optional: a no-op unless an implementation gains by it.
  virtual void WillRead(const std::string& /*path*/, int64_t /*bytes*/) {}

  /// A named point in a protocol ("after_offsets_write", ...). OK in production; fault
  /// injecting wrappers may stop the process here or return an error.
  virtual Status FaultPoint(const std::string& /*name*/) { return Status::OK(); }
};

/// The local POSIX filesystem.
std::shared_ptr<FileSystem> LocalFileSystem();

/// How many sync system calls the local filesystem has made in this process (all threads):
/// data syncs of files (fdatasync) and syncs of directories (fsync); and, apart, how many times
/// a large new file's write-back was started while it was written (these make nothing durable).
struct SyncCounts {
  int64_t file_syncs = 0;
  int64_t dir_syncs = 0;
  int64_t write_backs = 0;
  int64_t total() const { return file_syncs + dir_syncs; }
};
SyncCounts LocalSyncCounts();

/// Joins path components with '/'.
std::string JoinPath(const std::string& a, const std::string& b);
/// Absolute, normalised form of a local path (no trailing '/').
std::string AbsolutePath(const std::string& path);
/// "file:///abs/path" with characters outside the URI unreserved/path set percent-encoded.
std::string PathToUri(const std::string& abs_path);
/// Inverse of PathToUri; also accepts "file:/abs" and plain paths.
std::string UriToPath(const std::string& uri);

}  // namespace sluice::io
