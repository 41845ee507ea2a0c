// Lives beside the checkpoint's other logs because the file sink writes it and the file source
// reads it (a sink directory read as a stream or a batch sees only committed files).
// Reader/writer of a file sink's _spark_metadata/ log (Spark's FileStreamSinkLog layout).
// Format (docs/file-sink.md): entry <batchId> (or <batchId>.compact) = "v1" then one
// SinkFileStatus JSON object per line, joined with '\n', no trailing newline. Every
// kCompactInterval-th entry (batch ids 9, 19, ...) is written as "<id>.compact" holding every
// file committed so far, because Spark's reader expects exactly those compaction entries;
// the entries before it are then deleted (Spark waits 10 minutes; sluice does it at once).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/compaction_writer.h"
#include "checkpoint/metadata_log.h"
#include "io/file_system.h"

namespace sluice::checkpoint {

/// Spark's spark.sql.streaming.fileSink.log.compactInterval default; readers derive the
/// compaction entry names from it, so it is fixed.
inline constexpr int64_t kCompactInterval = 10;
/// Name of the log directory inside a sink's output directory.
inline constexpr const char* kSparkMetadataDir = "_spark_metadata";

/// One line of a log entry (Spark's SinkFileStatus). Field order on disk is the member order.
struct SinkFileStatus {
  std::string path;  // "file:///abs/part-..."
  int64_t size = 0;
  bool is_dir = false;
  int64_t modification_time = 0;  // ms since the epoch
  int32_t block_replication = 1;
  int64_t block_size = 33554432;
  std::string action = "add";  // add | delete

  /// The exact on-disk JSON line.
  std::string ToJson() const;
  /// Parses one line; `where` (file path and line number) names the line in errors.
  static Result<SinkFileStatus> FromJson(const std::string& line, const std::string& where);
};

/// The committed-files log of one output directory. One writer at a time (one query per
/// output directory, as in Spark); readers may run concurrently.
/// Who writes an output directory (<out>/_sluice_query, `v1` + JSON):
/// {"queryId", "batchIdOffset"?, "previousQueryId"?}. A query's batch b is log entry
/// b + batchIdOffset (0 unless the output was released and taken over). `sluice checkpoint reset`
/// releases the output: queryId becomes "" and batchIdOffset the next free entry, so the fresh
/// query appends after what is committed instead of skipping its first batches as done.
struct SinkOwner {
  std::string query_id;
  int64_t batch_id_offset = 0;
  /// When released: the query that wrote before (it may still take its output back).
  std::string previous_query_id{};
  bool released() const { return query_id.empty(); }
};

class FileSinkLog {
 public:
  FileSinkLog(std::shared_ptr<io::FileSystem> fs, const std::string& output_dir);

  const std::string& dir() const { return log_.dir(); }
  /// True when the log directory exists (a streaming sink has been created on this output).
  Result<bool> Exists() const;
  /// Creates the log directory (done before any data file is written, so readers never fall
  /// back to listing the output directory of a sink).
  Status Create();
  Result<std::optional<int64_t>> LatestBatchId() const;
  /// Files committed by all entries (latest compaction entry onwards), "delete" actions
  /// applied, in commit order. A gap (an entry missing between the first needed one and the
  /// latest, or a first entry that is neither 0 nor a compaction) is refused, naming the
  /// missing entry: the files it listed would otherwise count as uncommitted.
  Result<std::vector<SinkFileStatus>> AllFiles() const;
  /// Writes entry `batch_id` listing `files` (create-only). On a compaction batch the entry
  /// lists AllFiles() plus `files`, and older entries are deleted afterwards (best effort).
  /// The writer keeps that file set in memory once loaded (the first compaction, or an
  /// AllFiles() call, reads the log) and extends it with each entry it adds, so a later
  /// compaction reads no log file; the next compaction entry is written ahead, in the background
  /// (CompactionWriter). `sync` as for FileSystem::WriteAtomic.
  Status Add(int64_t batch_id, const std::vector<SinkFileStatus>& files, io::EntrySync sync = io::EntrySync::kNow);

  /// Spark's sink option `retention`: a compaction entry leaves out the files whose
  /// modificationTime is more than `ttl_ms` before the time it is written, so readers of the log
  /// stop listing them from then on (the files themselves stay). nullopt (the default): every
  /// file committed stays listed.
  void SetRetention(std::optional<int64_t> ttl_ms) { retention_ms_ = ttl_ms; }

  static bool IsCompactionBatch(int64_t batch_id) { return (batch_id + 1) % kCompactInterval == 0; }
  /// The entry's file name inside _spark_metadata: "<id>" or "<id>.compact".
  static std::string EntryName(int64_t batch_id) {
    return std::to_string(batch_id) + (IsCompactionBatch(batch_id) ? ".compact" : "");
  }

  /// The writer recorded for this output (file <out>/_sluice_query), or nullopt.
  Result<std::optional<SinkOwner>> Owner() const;
  /// Records `owner`; create-only unless `overwrite` (AlreadyExists if another got there first).
  Status SetOwner(const SinkOwner& owner, bool overwrite = false);

 private:
  /// The lines of `files`, joined with '\n'.
  static std::string Lines(const std::vector<SinkFileStatus>& files);
  /// An entry's whole text listing `files` (a batch's own, or a compaction's).
  std::string EntryText(const std::vector<SinkFileStatus>& files) const;
  /// Extends the cache (through the previous entry) with entry `files`; forgets it if not current.
  void ExtendCache(int64_t batch_id, const std::vector<SinkFileStatus>& files);
  /// Applies one entry's lines (add, delete) to `files`.
  static void ApplyEntry(const std::vector<SinkFileStatus>& entry, std::vector<SinkFileStatus>* files);
  /// nullopt when the entry disappeared since it was listed (purged by a compaction).
  Result<std::optional<std::vector<SinkFileStatus>>> ReadEntry(const checkpoint::LogEntryId& id) const;

  std::string owner_path_;
  checkpoint::MetadataLog log_;
  // Every file committed through entry compaction_->through() (AllFiles() as of that entry),
  // kept by the writer; mutable because AllFiles() fills it. Not known (through() unset) until
  // loaded, and after a failed Add.
  mutable std::vector<SinkFileStatus> cached_files_;
  // The compaction entry's text for cached_files_ (version line, then a line per file), and the
  // next compaction entry written ahead from it.
  std::unique_ptr<CompactionWriter> compaction_;
  std::optional<int64_t> retention_ms_;
};

/// Name of the owner file in a sink's output directory ("_" so data readers skip it).
inline constexpr const char* kSinkOwnerFile = "_sluice_query";

/// The data files a sink directory's log lists as committed (absolute local paths), or
/// nullopt when `dir` has no _spark_metadata log.
Result<std::optional<std::vector<std::string>>> ReadCommittedFiles(const std::shared_ptr<io::FileSystem>& fs,
                                                                   const std::string& dir);

}  // namespace sluice::checkpoint
