// The file sink's commit protocol (docs/file-sink.md):
//   1. batch id <= latest _spark_metadata id  -> already committed (a redo): write nothing;
//      batch id > latest + 1 -> log entries were deleted: refuse, deleting nothing.
//   2. first batch of this sink object (or after a failed one): make sure the log directory
//      exists, then delete the unlisted part files of earlier attempts of this batch (their
//      names carry the batch's uuid; no other file is touched).
//   3. write each part file unnamed, sync its data and name it (stream Close, which fails if
//      the name exists); the directory's sync is deferred to step 4 (one sync per directory
//      per batch).
//   4. write _spark_metadata/<batchId> create-only and atomically; the filesystem makes the part
//      files' names durable first. That write IS the commit; a crash before it leaves only
//      unlisted files, which readers ignore. The entry's own directory sync is deferred too: the
//      runtime's commits/<batchId>, the next entry made, waits for it (io::EntrySync).
#include "sink/file_sink.h"

#include <arrow/io/memory.h>
#include <arrow/util/parallel.h>
#include <arrow/util/thread_pool.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "io/uuid.h"
#include "sink/file_sink_format.h"
#include "sink/partition_path.h"
#include "checkpoint/file_sink_log.h"
#include "util/strings.h"

namespace sluice::sink {
namespace {

using checkpoint::FileSinkLog;
using checkpoint::SinkFileStatus;
using checkpoint::kSinkOwnerFile;
using checkpoint::SinkOwner;

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
bool EndsWith(const std::string& s, const std::string& p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// Spark's name: part-<task>-<job uuid>.c<file counter><ext>. A task is one of the files a large
// batch is cut into (PlanPartFiles), each encoded on its own core; most batches have one.
std::string PartFileName(int task, const std::string& uuid, int64_t counter, const std::string& ext) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "part-%05d-", task);
  char counter_buf[32];
  std::snprintf(counter_buf, sizeof(counter_buf), ".c%03lld", static_cast<long long>(counter));
  return buf + uuid + counter_buf + ext;
}

// A batch of at least twice this many rows, with no maxRecordsPerFile, is written as one part
// file per core (at most), each encoded on its own core.
constexpr int64_t kMinRowsPerParallelFile = 64 * 1024;

// The part files a batch of `n` rows is cut into: (task, counter, first row, rows). Zero rows
// and `empty_file`: one empty file.
struct PartSlice {
  int task;
  int64_t counter, offset, rows;
};
std::vector<PartSlice> PlanPartFiles(const FileSinkOptions& o, int64_t n, bool empty_file) {
  std::vector<PartSlice> out;
  if (n == 0) {
    if (empty_file) out.push_back({0, 0, 0, 0});
    return out;
  }
  if (o.max_records_per_file > 0) {
    for (int64_t offset = 0, counter = 0; offset < n; offset += o.max_records_per_file, ++counter) {
      out.push_back({0, counter, offset, std::min(o.max_records_per_file, n - offset)});
    }
    return out;
  }
  auto* pool = arrow::internal::GetCpuThreadPool();
  // Never from a pool thread itself: waiting there for tasks queued behind it could deadlock.
  const int64_t cores = pool->OwnsThisThread() ? 1 : std::max(1, pool->GetCapacity());
  const int64_t tasks = std::clamp<int64_t>(n / kMinRowsPerParallelFile, 1, cores);
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t first = n * t / tasks;
    out.push_back({static_cast<int>(t), 0, first, n * (t + 1) / tasks - first});
  }
  return out;
}

// Writes `rows` as part files in `dir` (PlanPartFiles). Zero rows: no file, unless `empty_file`
// (then one file holding just the schema / header). Each file gets its name only once it is
// whole and its data synced (io::FileSystem::OpenNewFile: an unnamed file, made ahead between
// batches where the filesystem can), so nothing torn is ever named. A batch cut into one file
// per core writes its files in parallel, each on the core that encodes it, so the copy into the
// page cache and the data sync are not left to one thread. On error, files written so far are
// deleted (best effort).
Result<std::vector<SinkFileStatus>> WritePartFiles(io::FileSystem* fs, const std::string& dir, const FileSinkOptions& o,
                                                   const std::string& uuid, const arrow::Table& rows, bool empty_file) {
  const std::vector<PartSlice> parts = PlanPartFiles(o, rows.num_rows(), empty_file);
  std::vector<SinkFileStatus> written(parts.size());
  if (parts.empty()) return written;
  const std::string ext = DataFileExtension(o);
  auto final_path_of = [&](const PartSlice& p) { return io::JoinPath(dir, PartFileName(p.task, uuid, p.counter, ext)); };
  std::vector<char> done(parts.size(), 0);
  auto write_part = [&](size_t i) -> Status {
    const PartSlice& p = parts[i];
    const std::string final_path = final_path_of(p);
    // The directory sync is deferred: the log entry (or _SUCCESS) made next waits for it, and
    // several part files in one directory share one sync.
    auto stream = fs->OpenNewFile(final_path, io::EntrySync::kDeferred);
    Status st = stream.ok() ? WriteDataFile(o, *rows.Slice(p.offset, p.rows), *stream) : stream.status();
    if (!st.ok()) {
      if (stream.ok()) (void)(*stream)->Abort();  // never named: nothing is left behind
      return st.WithMessage("Cannot write ", o.format_name, " file '", final_path, "': ", st.message());
    }
    done[i] = 1;
    auto info = fs->Stat(final_path);
    if (!info.ok() || !info->has_value()) {
      return info.ok() ? Status::IOError("File '", final_path, "' vanished right after it was written") : info.status();
    }
    written[i].path = io::PathToUri(final_path);
    written[i].size = (*info)->size;
    written[i].modification_time = (*info)->mtime_ms;
    return Status::OK();
  };
  auto undo = [&](const Status& st) {
    for (size_t i = 0; i < parts.size(); ++i) {
      if (done[i]) (void)fs->Delete(final_path_of(parts[i]));
    }
    return st;
  };
  // One file per core (tasks 0, 1, ...): all encoded and written on the CPU pool. Else one
  // after the other.
  const bool one_per_core = parts.back().task > 0;
  if (one_per_core) {
    Status st = arrow::internal::ParallelFor(static_cast<int>(parts.size()),
                                             [&](int i) { return write_part(static_cast<size_t>(i)); });
    if (!st.ok()) return undo(st);
  } else {
    for (size_t i = 0; i < parts.size(); ++i) {
      Status st = write_part(i);
      if (!st.ok()) return undo(st);
    }
  }
  return written;
}

// Writes each partition's rows as part files under <dir>/<partition dir>/ (partitioned output,
// partition_path.h). The file counter restarts in every partition, as in Spark, so names stay
// deterministic per attempt. On error, every file written so far is deleted (best effort).
Result<std::vector<SinkFileStatus>> WritePartitionedFiles(io::FileSystem* fs, const std::string& dir,
                                                          const FileSinkOptions& o, const std::string& uuid,
                                                          const arrow::Table& rows,
                                                          const std::vector<std::string>& partition_by) {
  ARROW_ASSIGN_OR_RAISE(auto slices, SplitByPartition(rows, partition_by));
  std::vector<SinkFileStatus> written;
  for (const auto& slice : slices) {
    const std::string sub = io::JoinPath(dir, slice.dir);
    Status st = fs->MakeDirs(sub);
    Result<std::vector<SinkFileStatus>> files =
        st.ok() ? WritePartFiles(fs, sub, o, uuid, *slice.rows, /*empty_file=*/false) : Result<std::vector<SinkFileStatus>>(st);
    if (!files.ok()) {
      for (const auto& f : written) (void)fs->Delete(io::UriToPath(f.path));
      return files.status();
    }
    written.insert(written.end(), files->begin(), files->end());
  }
  return written;
}

// Best effort: deletes the files of earlier, uncommitted attempts of batch `batch_id` (part
// files named with `batch_uuid` that the log does not list, and their hidden temp files), in
// `dir` and in its partition directories (names holding '=', not starting with '_' or '.').
// Any other unlisted file is left alone: it cannot be proven to be this query's leftover.
void DeleteUncommittedFilesIn(io::FileSystem* fs, const std::string& dir, const std::set<std::string>& committed,
                              const std::string& mark) {
  auto listing = fs->List(dir);
  if (!listing.ok()) return;
  for (const auto& e : *listing) {
    if (e.is_dir) {
      if (e.name.find('=') != std::string::npos && !StartsWith(e.name, "_") && !StartsWith(e.name, ".")) {
        DeleteUncommittedFilesIn(fs, e.path, committed, mark);
      }
      continue;
    }
    if (e.name.find(mark) == std::string::npos) continue;
    bool orphan = StartsWith(e.name, "part-") && committed.count(io::AbsolutePath(e.path)) == 0;
    bool temp = StartsWith(e.name, ".part-") && EndsWith(e.name, ".tmp");
    if (orphan || temp) (void)fs->Delete(e.path);
  }
}

Status DeleteUncommittedFiles(io::FileSystem* fs, const std::string& dir, const FileSinkLog& log,
                              const std::string& batch_uuid) {
  ARROW_ASSIGN_OR_RAISE(auto committed, log.AllFiles());
  std::set<std::string> paths;
  for (const auto& f : committed) paths.insert(io::AbsolutePath(io::UriToPath(f.path)));
  DeleteUncommittedFilesIn(fs, dir, paths, "-" + batch_uuid + ".c");
  return Status::OK();
}

// Refuses batch `batch_id` unless it directly follows the log's latest entry: a later id means
// entries were deleted (the batches they committed would be lost from readers' view).
Status CheckNoGap(const FileSinkLog& log, std::optional<int64_t> latest, int64_t batch_id) {
  const int64_t expected = latest ? *latest + 1 : 0;
  if (batch_id == expected) return Status::OK();
  return Status::Invalid("File sink log '", log.dir(), "' is missing entry ", FileSinkLog::EntryName(batch_id - 1),
                         " (", latest ? "its latest entry is " + FileSinkLog::EntryName(*latest) : std::string("it has no entry"),
                         ") but the query has committed batches up to ", batch_id - 1,
                         ": the data files of the missing batches can no longer be told from uncommitted ones. "
                         "Restore the missing entries from a backup, or write to a new path; nothing was deleted.");
}

// A query id is recorded in <out>/_sluice_query the first time a query writes to `dir`; another
// query (e.g. the same one restarted with a new checkpoint) is refused, because it would start
// at batch 0 and the sink would skip its batches as already committed: silent data loss. An
// output released by `sluice checkpoint reset` is taken over by the next query, whose batch b
// becomes log entry b + (the released log's next entry). Returns the query's batch id offset.
Result<int64_t> ClaimOutputDirectory(io::FileSystem* fs, const std::string& dir, FileSinkLog* log,
                                     const std::string& query_id) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(auto owner, log->Owner());
    ARROW_ASSIGN_OR_RAISE(auto latest, log->LatestBatchId());
    std::string batches = latest ? "batches up to " + std::to_string(*latest) : "no batch yet";
    if (owner && owner->query_id == query_id) return owner->batch_id_offset;
    Status st;
    if (owner && owner->released()) {
      const int64_t next = latest ? *latest + 1 : 0;
      if (owner->batch_id_offset != next) {
        return Status::Invalid("Output directory ", io::PathToUri(dir), " was released by `sluice checkpoint reset` "
                               "after log entry ", owner->batch_id_offset - 1, " but its log now ends at ",
                               latest ? std::to_string(*latest) : std::string("no entry"), ": another query wrote "
                               "it since, or log entries were deleted. Write to a new path.");
      }
      // The query that wrote before the release (its checkpoint restored) gets its output back.
      SinkOwner claim{query_id, owner->previous_query_id == query_id ? 0 : next};
      st = log->SetOwner(claim, /*overwrite=*/true);
      if (st.ok()) return claim.batch_id_offset;
      return st;
    }
    if (owner || latest) {
      return Status::Invalid("Output directory ", io::PathToUri(dir), " was written by query ",
                             owner ? owner->query_id : std::string("<unknown: no ") + kSinkOwnerFile + " file>", " (",
                             batches, "), not by this query ", query_id, ". This query would skip its first batches "
                             "as already committed. Restart with the checkpoint that query used, write to a new "
                             "path, or (to start over on purpose) reset that query's checkpoint with `sluice "
                             "checkpoint reset`, which hands the directory over.");
    }
    ARROW_RETURN_NOT_OK(fs->MakeDirs(dir));
    st = log->SetOwner(SinkOwner{query_id});
    if (st.ok()) return 0;
    if (!st.IsAlreadyExists()) return st;  // else another query claimed it just now: check again
  }
  return 0;
}

class FileSink final : public Sink {
 public:
  FileSink(std::shared_ptr<io::FileSystem> fs, std::string dir, FileSinkOptions options,
           std::vector<std::string> partition_by, std::string query_id, int64_t batch_id_offset)
      : batch_id_offset_(batch_id_offset),
        fs_(std::move(fs)),
        dir_(std::move(dir)),
        options_(std::move(options)),
        partition_by_(std::move(partition_by)),
        query_id_(std::move(query_id)),
        log_(fs_, dir_) {
    log_.SetRetention(options_.retention_ms);
  }

  std::string Description() const override { return "FileSink[" + io::PathToUri(dir_) + "]"; }
  bool idempotent() const override { return true; }

  Status AddBatch(int64_t query_batch_id, const std::shared_ptr<arrow::Table>& rows) override {
    // The log entry of this batch (the query's batch id unless it took over a released output).
    const int64_t batch_id = query_batch_id + batch_id_offset_;
    ARROW_ASSIGN_OR_RAISE(auto latest, log_.LatestBatchId());
    if (latest && batch_id <= *latest) return Status::OK();  // committed before: a redo
    ARROW_RETURN_NOT_OK(CheckNoGap(log_, latest, batch_id));
    const std::string uuid = FileSinkBatchUuid(query_id_, batch_id);
    if (!prepared_) {
      ARROW_RETURN_NOT_OK(fs_->MakeDirs(dir_));
      ARROW_RETURN_NOT_OK(log_.Create());  // before any data file: readers must use the log
      ARROW_RETURN_NOT_OK(DeleteUncommittedFiles(fs_.get(), dir_, log_, uuid));
      prepared_ = true;
    }
    Status st = WriteAndCommit(batch_id, uuid, *rows);
    if (!st.ok()) prepared_ = false;  // the next attempt cleans up this one's files first
    return st;
  }

 private:
  Status WriteAndCommit(int64_t batch_id, const std::string& uuid, const arrow::Table& rows) {
    ARROW_ASSIGN_OR_RAISE(auto files, partition_by_.empty()
                                          ? WritePartFiles(fs_.get(), dir_, options_, uuid, rows, /*empty_file=*/false)
                                          : WritePartitionedFiles(fs_.get(), dir_, options_, uuid, rows, partition_by_));
    ARROW_RETURN_NOT_OK(fs_->FaultPoint("file_sink_before_commit"));
    // Deferred: the runtime's commits/N, made next, waits for this entry to be durable.
    ARROW_RETURN_NOT_OK(log_.Add(batch_id, files, io::EntrySync::kDeferred));
    return fs_->FaultPoint("file_sink_after_commit");
  }

  int64_t batch_id_offset_;
  std::shared_ptr<io::FileSystem> fs_;
  std::string dir_;  // absolute
  FileSinkOptions options_;
  std::vector<std::string> partition_by_;  // Hive-style directories when non-empty (partition_path.h)
  std::string query_id_;  // may be empty (tools, tests): the batch uuids are then shared by such writers
  FileSinkLog log_;
  bool prepared_ = false;
};

}  // namespace

std::string FileSinkBatchUuid(const std::string& query_id, int64_t batch_id) {
  return io::NameBasedUuid("sluice file sink\n" + query_id + "\n" + std::to_string(batch_id));
}

Status ValidateFileSinkSpec(const SinkSpec& spec) {
  ARROW_RETURN_NOT_OK(ParseFileSinkOptions(spec.format, spec.options, /*path_required=*/true).status());
  ARROW_RETURN_NOT_OK(PartitionColumnsOption(spec.options).status());
  if (spec.output_mode != plan::OutputMode::kAppend) {
    return Status::Invalid("Data source ", util::ToLower(spec.format), " does not support ", plan::OutputModeName(spec.output_mode),
                           " output mode (the file sink only appends)");
  }
  return Status::OK();
}

Result<std::unique_ptr<Sink>> MakeFileSink(const SinkSpec& spec, const SinkContext& ctx) {
  ARROW_RETURN_NOT_OK(ValidateFileSinkSpec(spec));
  ARROW_ASSIGN_OR_RAISE(auto options, ParseFileSinkOptions(spec.format, spec.options, /*path_required=*/true));
  ARROW_ASSIGN_OR_RAISE(auto partition_by, PartitionColumnsOption(spec.options));
  auto fs = ctx.fs ? ctx.fs : io::LocalFileSystem();
  std::string dir = io::AbsolutePath(options.path);
  int64_t offset = 0;
  if (!ctx.query_id.empty()) {
    FileSinkLog log(fs, dir);
    ARROW_ASSIGN_OR_RAISE(offset, ClaimOutputDirectory(fs.get(), dir, &log, ctx.query_id));
  }
  return std::unique_ptr<Sink>(
      std::make_unique<FileSink>(fs, dir, std::move(options), std::move(partition_by), ctx.query_id, offset));
}

Result<bool> ReleaseOutputDirectory(const std::shared_ptr<io::FileSystem>& fs, const std::string& dir,
                                    const std::string& query_id) {
  FileSinkLog log(fs, io::AbsolutePath(dir));
  ARROW_ASSIGN_OR_RAISE(auto owner, log.Owner());
  if (!owner || owner->query_id != query_id) return false;
  ARROW_ASSIGN_OR_RAISE(auto latest, log.LatestBatchId());
  ARROW_RETURN_NOT_OK(log.SetOwner(SinkOwner{"", latest ? *latest + 1 : 0, query_id}, /*overwrite=*/true));
  return true;
}

Status WriteFilesOnce(const std::shared_ptr<io::FileSystem>& fs, const std::string& format, const plan::Options& options,
                      const std::string& mode, const std::string& dir, const std::shared_ptr<arrow::Table>& rows) {
  ARROW_ASSIGN_OR_RAISE(auto o, ParseFileSinkOptions(format, options, /*path_required=*/false));
  ARROW_ASSIGN_OR_RAISE(auto partition_by, PartitionColumnsOption(options));
  ARROW_RETURN_NOT_OK(CheckPartitionColumns(partition_by, *rows->schema()));  // before touching the directory
  std::string m = util::ToLower(mode.empty() ? "errorifexists" : mode);
  if (m != "error" && m != "errorifexists" && m != "overwrite" && m != "append" && m != "ignore") {
    return Status::Invalid("Unknown save mode '", mode, "'. Valid: error, errorifexists, overwrite, append, ignore");
  }
  std::string abs = io::AbsolutePath(dir);
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(abs));
  bool non_empty = false;
  if (info) {
    if (!info->is_dir) return Status::Invalid("Path ", io::PathToUri(abs), " exists and is not a directory");
    ARROW_ASSIGN_OR_RAISE(auto entries, fs->List(abs));
    non_empty = !entries.empty();
  }
  if (non_empty) {
    if (m == "error" || m == "errorifexists") {
      return Status::AlreadyExists("Path ", io::PathToUri(abs),
                                   " already exists and is not empty. Set mode as \"overwrite\" to replace it or "
                                   "\"append\" to add files");
    }
    if (m == "ignore") return Status::OK();
    if (m == "overwrite") ARROW_RETURN_NOT_OK(fs->DeleteTree(abs));
  }
  ARROW_RETURN_NOT_OK(fs->MakeDirs(abs));
  if (partition_by.empty()) {
    ARROW_RETURN_NOT_OK(WritePartFiles(fs.get(), abs, o, io::RandomUuid(), *rows, /*empty_file=*/true).status());
  } else {
    ARROW_RETURN_NOT_OK(WritePartitionedFiles(fs.get(), abs, o, io::RandomUuid(), *rows, partition_by).status());
  }
  // Hadoop's job-success marker, as Spark's batch writes leave it; readers skip "_" files.
  return fs->WriteAtomic(io::JoinPath(abs, "_SUCCESS"), "", /*overwrite=*/true);
}

}  // namespace sluice::sink
