// POSIX implementation of the filesystem seam, with the durability steps the checkpoint
// protocol relies on (data syncs of files, fsync of their directories, in the order entries are made).
#include <arrow/io/buffered.h>
#include <arrow/io/file.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "io/direct_writer.h"
#include "io/file_system.h"
#include "io/spare_files.h"

namespace sluice::io {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " '" + path + "': " + std::strerror(err);
  if (err == ENOENT) return Status::IOError(msg);
  if (err == EEXIST) return Status::AlreadyExists(msg);
  return Status::IOError(msg);
}

std::string ParentDir(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  if (pos == 0) return "/";
  return path.substr(0, pos);
}

std::string BaseName(const std::string& path) {
  auto pos = path.find_last_of('/');
  return pos == std::string::npos ? path : path.substr(pos + 1);
}

std::atomic<int64_t> g_file_syncs{0};
std::atomic<int64_t> g_dir_syncs{0};
std::atomic<int64_t> g_write_backs{0};

// fdatasync: the data and the metadata needed to read it back (size), not the times.
Status DataSync(int fd, const std::string& path) {
  ++g_file_syncs;
  if (::fdatasync(fd) != 0) return ErrnoStatus("fdatasync failed for", path, errno);
  return Status::OK();
}

// Makes the entries of a directory durable. A directory that is gone has nothing to keep.
Status SyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return Status::OK();
    return ErrnoStatus("cannot open for fsync", dir, errno);
  }
  ++g_dir_syncs;
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync failed for directory", dir, err);
  return Status::OK();
}

Status SyncDirs(const std::vector<std::string>& dirs) {
  Status st;
  for (const auto& d : dirs) {
    Status s = SyncDir(d);
    if (st.ok()) st = s;
  }
  return st;
}

Status WriteAll(int fd, const std::string& path, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write failed for", path, errno);
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return Status::OK();
}

std::string TempName(const std::string& path) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(rng()));
  return JoinPath(ParentDir(path), "." + BaseName(path) + "." + buf + ".tmp");
}

// Names the synced file `tmp` as `path` and removes the name `tmp`: renamed over `path` with
// `overwrite`, else linked (link() fails with EEXIST when `path` exists: an atomic
// create-if-absent). On failure `tmp` is removed too.
Status PlaceTemp(const std::string& tmp, const std::string& path, bool overwrite) {
  const int rc = overwrite ? ::rename(tmp.c_str(), path.c_str()) : ::link(tmp.c_str(), path.c_str());
  const int err = errno;
  if (rc != 0 || !overwrite) ::unlink(tmp.c_str());
  if (rc != 0) return ErrnoStatus(overwrite ? "cannot rename into place" : "cannot create", path, err);
  return Status::OK();
}

// Writes and syncs a new file at `path`; it must not exist.
Status WriteNewFile(const std::string& path, const std::string& data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("cannot create", path, errno);
  Status st = WriteAll(fd, path, data.data(), data.size());
  if (st.ok()) st = DataSync(fd, path);
  ::close(fd);
  if (!st.ok()) ::unlink(path.c_str());
  return st;
}

// OpenOutputStream's write buffer.
constexpr int64_t kOutputBufferBytes = 1 << 20;

// An output stream whose Close() syncs the data, so a sink's data file is durable before the sink
// log lists it.
class SyncingOutputStream : public arrow::io::OutputStream {
 public:
  SyncingOutputStream(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~SyncingOutputStream() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Status Close() override {
    if (fd_ < 0) return Status::OK();
    Status st = DataSync(fd_, path_);
    ::close(fd_);
    fd_ = -1;
    return st;
  }
  /// Closes without the sync: the file is being given up (its writer deletes it).
  Status Abort() override {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return Status::OK();
  }
  bool closed() const override { return fd_ < 0; }
  Result<int64_t> Tell() const override { return pos_; }
  /// Starts writing what was written so far out to the disk, without waiting for it: the data
  /// sync of Close() then has that much less to wait for. Makes nothing durable.
  Status Flush() override {
    if (fd_ >= 0 && ::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE) != 0) {
      return ErrnoStatus("cannot start the write-back of", path_, errno);
    }
    return Status::OK();
  }
  Status Write(const void* data, int64_t nbytes) override {
    if (fd_ < 0) return Status::Invalid("write to closed file '", path_, "'");
    ARROW_RETURN_NOT_OK(WriteAll(fd_, path_, static_cast<const char*>(data), static_cast<size_t>(nbytes)));
    pos_ += nbytes;
    // A large file's write-back is started as it is written, a few MB at a time, so that the
    // sync of Close() finds most of it on the disk already instead of waiting for all of it (a
    // batch's part files are tens of MB: the batch would wait for the disk with its cores idle).
    // Only a hint: where the filesystem refuses it, the sync does all the work as before, and
    // a failed write-back is reported by that sync.
    if (pos_ - written_back_ >= kWriteBackBytes) {
      (void)::sync_file_range(fd_, written_back_, pos_ - written_back_, SYNC_FILE_RANGE_WRITE);
      written_back_ = pos_;
      ++g_write_backs;
    }
    return Status::OK();
  }

 protected:
  static constexpr int64_t kWriteBackBytes = int64_t{4} << 20;

  std::string path_;
  int fd_;
  int64_t pos_ = 0;
  int64_t written_back_ = 0;  // where the write-back was last started up to
};

class LocalFs final : public FileSystem {
 public:
  using FileSystem::Rename;
  using FileSystem::WriteAtomic;

  Result<std::string> ReadFile(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ErrnoStatus("cannot read", path, errno);
    std::string out;
    char buf[1 << 16];
    while (true) {
      ssize_t r = ::read(fd, buf, sizeof(buf));
      if (r < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return ErrnoStatus("read failed for", path, err);
      }
      if (r == 0) break;
      out.append(buf, static_cast<size_t>(r));
    }
    ::close(fd);
    return out;
  }

  Result<std::vector<FileInfo>> List(const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return ErrnoStatus("cannot list directory", dir, errno);
    std::vector<FileInfo> out;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      std::string full = JoinPath(dir, name);
      struct stat sb;
      if (::stat(full.c_str(), &sb) != 0) continue;  // vanished between readdir and stat
      out.push_back(FromStat(full, name, sb));
    }
    ::closedir(d);
    std::sort(out.begin(), out.end(), [](const FileInfo& a, const FileInfo& b) { return a.name < b.name; });
    return out;
  }

  Result<std::optional<FileInfo>> Stat(const std::string& path) override {
    struct stat sb;
    if (::stat(path.c_str(), &sb) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) return std::optional<FileInfo>{};
      return ErrnoStatus("cannot stat", path, errno);
    }
    return std::optional<FileInfo>(FromStat(path, BaseName(path), sb));
  }

  Status MakeDirs(const std::string& dir) override {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return Status::IOError("cannot create directory '", dir, "': ", ec.message());
    return Status::OK();
  }

  Status Delete(const std::string& path) override {
    if (::remove(path.c_str()) != 0 && errno != ENOENT) return ErrnoStatus("cannot delete", path, errno);
    return Status::OK();
  }

  Status DeleteTree(const std::string& path) override {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (ec) return Status::IOError("cannot delete '", path, "': ", ec.message());
    return Status::OK();
  }

  Result<std::vector<DirEntry>> ListNames(const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (!d) return ErrnoStatus("cannot list directory", dir, errno);
    std::vector<DirEntry> out;
    while (struct dirent* e = ::readdir(d)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      DirEntry entry{name, e->d_type == DT_DIR};
      if (e->d_type == DT_UNKNOWN || e->d_type == DT_LNK) {  // the kind needs a stat (links followed, as List)
        struct stat sb;
        if (::stat(JoinPath(dir, name).c_str(), &sb) != 0) continue;  // vanished, or a dangling link
        entry.is_dir = S_ISDIR(sb.st_mode);
      }
      out.push_back(std::move(entry));
    }
    ::closedir(d);
    std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return out;
  }

  Status Rename(const std::string& from, const std::string& to, EntrySync sync) override {
    // Earlier entries in other directories are durable before this one exists.
    ARROW_RETURN_NOT_OK(SyncDataAndDeferred(-1, "", ParentDir(to)));
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return Status::IOError("cannot rename '", from, "' to '", to, "': ", std::strerror(errno));
    }
    return FinishEntry(ParentDir(to), sync);
  }

  Status WriteAtomic(const std::string& path, const std::string& data, bool overwrite, EntrySync sync) override {
    const bool sync_data = sync != EntrySync::kNone;
    if (tmpfile_supported_.load()) {
      // An unnamed file in the target directory, linked to its name once its data is durable
      // (to replace one: linked to a temp name, renamed over it): no file to create on the way
      // when PrepareEntries made one, and nothing left behind by a crash before the link.
      auto linked = WriteUnnamedAndLink(path, data, sync_data, overwrite);
      if (linked.ok() && *linked) return FinishEntry(ParentDir(path), sync);
      if (!linked.ok()) return linked.status();
      // else: O_TMPFILE or /proc/self/fd unavailable here: the temp-file way below
    }
    std::string tmp = TempName(path);
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("cannot create", tmp, errno);
    Status st = WriteAll(fd, tmp, data.data(), data.size());
    if (st.ok()) st = SyncDataAndDeferred(sync_data ? fd : -1, tmp, ParentDir(path));
    ::close(fd);
    if (!st.ok()) {
      ::unlink(tmp.c_str());
      return st;
    }
    ARROW_RETURN_NOT_OK(PlaceTemp(tmp, path, overwrite));
    return FinishEntry(ParentDir(path), sync);
  }

  Status CreateExclusive(const std::string& path, const std::string& data) override {
    ARROW_RETURN_NOT_OK(SyncDataAndDeferred(-1, "", ""));  // the name exists from the open on
    ARROW_RETURN_NOT_OK(WriteNewFile(path, data));
    return SyncDir(ParentDir(path));
  }

  Status SyncDeferred() override { return SyncDataAndDeferred(-1, "", ""); }

  void PrepareEntries() override {
    if (tmpfile_supported_.load()) spares_.Prepare();
  }

  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(const std::string& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return ErrnoStatus("cannot create", path, errno);
    // Buffered: file encoders (Parquet's writer above all) write in pieces of a few bytes.
    return arrow::io::BufferedOutputStream::Create(kOutputBufferBytes, arrow::default_memory_pool(),
                                                   std::make_shared<SyncingOutputStream>(path, fd));
  }

  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(const std::string& path) override {
    auto r = arrow::io::ReadableFile::Open(path);
    if (!r.ok()) return Status::IOError("cannot open '", path, "': ", r.status().message());
    return std::static_pointer_cast<arrow::io::RandomAccessFile>(*r);
  }

  void WillRead(const std::string& path, int64_t bytes) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    // Starts the reads of the pages not cached, without waiting for them (cached ones cost a lookup).
    (void)::posix_fadvise(fd, 0, static_cast<off_t>(bytes), POSIX_FADV_WILLNEED);
    ::close(fd);
  }

  Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFile(const std::string& path, EntrySync sync) override {
    return OpenNew(path, sync, /*uncached=*/false);
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFileUncached(const std::string& path, EntrySync sync) override {
    return OpenNew(path, sync, /*uncached=*/true);
  }

 private:
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenNew(const std::string& path, EntrySync sync, bool uncached) {
    int fd = -1;
    std::string temp;  // where no unnamed file can be made: a hidden temp name, linked at Close
    if (tmpfile_supported_.load()) {
      ARROW_ASSIGN_OR_RAISE(fd, OpenUnnamed(ParentDir(path), path));
    }
    if (fd < 0) {
      temp = TempName(path);
      fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0) return ErrnoStatus("cannot create", temp, errno);
    }
    auto file = std::make_shared<NewFileOutputStream>(this, path, fd, temp, sync);
    if (uncached && file->WriteDirect()) return file;  // buffered by its DirectWriter
    ARROW_ASSIGN_OR_RAISE(auto buffered,
                          arrow::io::BufferedOutputStream::Create(kOutputBufferBytes, arrow::default_memory_pool(), file));
    return std::make_shared<FlushesToDisk>(std::move(buffered), std::move(file));
  }

  // OpenNewFile's stream: Arrow's write buffer over the file, whose Flush() also starts the
  // file's write-back (a buffered stream's own Flush stops at its buffer).
  class FlushesToDisk final : public arrow::io::OutputStream {
   public:
    FlushesToDisk(std::shared_ptr<arrow::io::BufferedOutputStream> buffered, std::shared_ptr<arrow::io::OutputStream> file)
        : buffered_(std::move(buffered)), file_(std::move(file)) {}
    Status Write(const void* data, int64_t nbytes) override { return buffered_->Write(data, nbytes); }
    Status Write(const std::shared_ptr<arrow::Buffer>& data) override { return buffered_->Write(data); }
    Status Flush() override {
      ARROW_RETURN_NOT_OK(buffered_->Flush());
      return file_->Flush();
    }
    Status Close() override { return buffered_->Close(); }
    Status Abort() override { return buffered_->Abort(); }
    bool closed() const override { return buffered_->closed(); }
    Result<int64_t> Tell() const override { return buffered_->Tell(); }

   private:
    std::shared_ptr<arrow::io::BufferedOutputStream> buffered_;  // closes the file when destroyed unclosed
    std::shared_ptr<arrow::io::OutputStream> file_;
  };

  // OpenNewFile's stream: Close() syncs the data, then names the file `path_` (links the unnamed
  // file, or links the temp name and removes it), then syncs the directory as `sync_` says.
  class NewFileOutputStream final : public SyncingOutputStream {
   public:
    NewFileOutputStream(LocalFs* fs, std::string path, int fd, std::string temp, EntrySync sync)
        : SyncingOutputStream(std::move(path), fd), fs_(fs), temp_(std::move(temp)), sync_(sync) {}
    ~NewFileOutputStream() override {
      if (fd_ >= 0 && !temp_.empty()) ::unlink(temp_.c_str());  // never closed: given up
    }
    /// Writes around the page cache from here on (DirectWriter); false when it cannot.
    bool WriteDirect() {
      direct_ = DirectWriter::Make(fd_, path_);
      return direct_ != nullptr;
    }
    Status Write(const void* data, int64_t nbytes) override {
      if (!direct_ || fd_ < 0) return SyncingOutputStream::Write(data, nbytes);
      pos_ += nbytes;
      return direct_->Write(static_cast<const char*>(data), static_cast<size_t>(nbytes));
    }
    Status Flush() override { return direct_ && fd_ >= 0 ? direct_->Flush() : SyncingOutputStream::Flush(); }
    Status Close() override {
      if (fd_ < 0) return Status::OK();
      if (direct_) {
        Status st = direct_->Finish();
        if (!st.ok()) {
          (void)Abort();
          return st;
        }
      }
      const int fd = std::exchange(fd_, -1);
      if (temp_.empty()) {
        ARROW_ASSIGN_OR_RAISE(bool named, fs_->NameUnnamed(fd, path_, /*sync_data=*/true));
        if (!named) return Status::IOError("cannot create '", path_, "': /proc/self/fd is not available to name it");
      } else {
        Status st = fs_->SyncDataAndDeferred(fd, temp_, ParentDir(path_));
        ::close(fd);
        if (!st.ok()) {
          ::unlink(temp_.c_str());
          return st;
        }
        ARROW_RETURN_NOT_OK(PlaceTemp(temp_, path_, /*overwrite=*/false));
      }
      return fs_->FinishEntry(ParentDir(path_), sync_);
    }
    Status Abort() override {
      if (fd_ >= 0) ::close(fd_);
      fd_ = -1;
      if (!temp_.empty()) ::unlink(temp_.c_str());
      return Status::OK();
    }

   private:
    LocalFs* fs_;
    std::string temp_;
    EntrySync sync_;
    std::unique_ptr<DirectWriter> direct_;
  };

  // An unnamed file in `dir` for the entry `path` (a spare PrepareEntries made, else a new one):
  // its descriptor, or -1 when this system cannot make one (nothing was made; tmpfile_supported_
  // is false from then on).
  Result<int> OpenUnnamed(const std::string& dir, const std::string& path) {
    int fd = spares_.Take(dir);
    if (fd >= 0) return fd;
    fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) {
      tmpfile_supported_ = false;
      return -1;
    }
    return ErrnoStatus("cannot create", path, errno);
  }

  // Syncs the data of the unnamed file `fd` (when `sync_data`) and the deferred directories,
  // links it as `path` (with `overwrite`, as a temp name renamed over `path`) and closes `fd`.
  // False when /proc/self/fd is missing (nothing named).
  Result<bool> NameUnnamed(int fd, const std::string& path, bool sync_data, bool overwrite = false) {
    const std::string dir = ParentDir(path);
    Status st = SyncDataAndDeferred(sync_data ? fd : -1, path, dir);
    if (!st.ok()) {
      ::close(fd);
      return st;
    }
    const std::string self = "/proc/self/fd/" + std::to_string(fd);
    const std::string link_as = overwrite ? TempName(path) : path;
    int rc = ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, link_as.c_str(), AT_SYMLINK_FOLLOW);
    int err = errno;
    ::close(fd);
    if (rc == 0) {
      if (overwrite) ARROW_RETURN_NOT_OK(PlaceTemp(link_as, path, /*overwrite=*/true));
      spares_.Used(dir);
      return true;
    }
    if (err == EEXIST) return ErrnoStatus("cannot create", path, err);
    if (err == ENOENT && ::access("/proc/self/fd", F_OK) != 0) {  // no /proc: never try again
      tmpfile_supported_ = false;
      return false;
    }
    return ErrnoStatus("cannot create", path, err);
  }

  // Writes `data` to an unnamed file in the directory of `path`, then NameUnnamed. False when
  // this system cannot (nothing was created).
  Result<bool> WriteUnnamedAndLink(const std::string& path, const std::string& data, bool sync_data, bool overwrite) {
    ARROW_ASSIGN_OR_RAISE(int fd, OpenUnnamed(ParentDir(path), path));
    if (fd < 0) return false;
    Status st = WriteAll(fd, path, data.data(), data.size());
    if (!st.ok()) {
      ::close(fd);
      return st;
    }
    return NameUnnamed(fd, path, sync_data, overwrite);
  }

  // Syncs every deferred directory but `own_dir` (the directory of the entry about to be made:
  // its sync, now or deferred, covers the earlier entries there too; entries of one directory
  // become durable together, in no set order among themselves), then the data of `fd` (when
  // >= 0). One after the other: syncing them from two threads at once measured slower on a busy
  // ext4 disk, not faster.
  Status SyncDataAndDeferred(int fd, const std::string& path, const std::string& own_dir) {
    std::vector<std::string> dirs;
    {
      std::lock_guard<std::mutex> lock(deferred_mu_);
      for (auto it = deferred_.begin(); it != deferred_.end();) {
        if (*it == own_dir) {
          ++it;
          continue;
        }
        dirs.push_back(*it);
        it = deferred_.erase(it);
      }
    }
    Status dirs_st = SyncDirs(dirs);
    if (!dirs_st.ok()) {  // still owed: the next entry-making call tries again
      std::lock_guard<std::mutex> lock(deferred_mu_);
      deferred_.insert(dirs.begin(), dirs.end());
      return dirs_st;
    }
    return fd >= 0 ? DataSync(fd, path) : Status::OK();
  }

  Status FinishEntry(const std::string& dir, EntrySync sync) {
    if (sync == EntrySync::kNone) return Status::OK();  // earlier entries there stay owed, if any
    if (sync == EntrySync::kNow) {
      {
        std::lock_guard<std::mutex> lock(deferred_mu_);
        deferred_.erase(dir);  // the sync below covers the deferred entries there too
      }
      return SyncDir(dir);
    }
    std::lock_guard<std::mutex> lock(deferred_mu_);
    deferred_.insert(dir);
    return Status::OK();
  }

  // Unnamed files are named through /proc/self/fd: without it, temp names from the start (a
  // stream's data could not be named at its Close otherwise).
  std::atomic<bool> tmpfile_supported_{::access("/proc/self/fd", F_OK) == 0};
  SpareFiles spares_;
  std::mutex deferred_mu_;
  std::set<std::string> deferred_;  // directories holding entries made with EntrySync::kDeferred

  static FileInfo FromStat(const std::string& full, const std::string& name, const struct stat& sb) {
    FileInfo fi;
    fi.path = full;
    fi.name = name;
    fi.is_dir = S_ISDIR(sb.st_mode);
    fi.size = static_cast<int64_t>(sb.st_size);
    fi.mtime_ms = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000 + sb.st_mtim.tv_nsec / 1000000;
    fi.mtime_ns = static_cast<int64_t>(sb.st_mtim.tv_sec) * 1000000000 + sb.st_mtim.tv_nsec;
    return fi;
  }
};

}  // namespace

std::shared_ptr<FileSystem> LocalFileSystem() {
  static auto fs = std::make_shared<LocalFs>();
  return fs;
}

SyncCounts LocalSyncCounts() { return SyncCounts{g_file_syncs.load(), g_dir_syncs.load(), g_write_backs.load()}; }

}  // namespace sluice::io
