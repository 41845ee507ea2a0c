// The query's memory on disk (docs/checkpoint-format.md):
//   <dir>/metadata          v1 + {"id", "sources", "sink", "plan"}: which query owns this checkpoint
//   <dir>/offsets/<N>       written BEFORE batch N runs: what N reads (+ watermark, timestamp, conf)
//   <dir>/commits/<N>       written AFTER the sink has batch N
//   <dir>/sources/<i>/...   per-source logs (the file source's files per batch)
//   <dir>/sink/iceberg      the Iceberg table it writes (name, uuid, newest batch committed to it)
//   <dir>/lock              pid/host of the live run holding the checkpoint (flock)
// Every write goes through the filesystem seam, atomically (MetadataLog).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/metadata_log.h"
#include "checkpoint/offset.h"
#include "io/file_system.h"

namespace sluice::checkpoint {

/// What makes a checkpoint belong to a query: its sources, its sink, its plan.
struct QueryFingerprint {
  std::vector<std::string> sources;
  std::string sink;
  std::string plan;
};

struct QueryMetadata {
  std::string id;
  QueryFingerprint fingerprint;
  /// LoadOrCreateMetadata: the plan the checkpoint recorded when this query's differs (empty when
  /// it is the same); the caller decides whether the change is allowed (UpdatePlan records it).
  std::string previous_plan{};
};

/// The check LoadOrCreateMetadata makes on a checkpoint `dir` that already has `existing`: other
/// sources or another sink are refused, naming the first difference; a different plan is
/// returned in `previous_plan`. Reads and writes nothing (`sluice explain --checkpoint` uses it).
Result<QueryMetadata> MatchFingerprint(const std::string& dir, const QueryMetadata& existing,
                                       const QueryFingerprint& fp);

/// One entry of the offsets log (Spark's OffsetSeq).
struct OffsetSeq {
  int64_t batch_watermark_ms = 0;
  int64_t batch_timestamp_ms = 0;
  std::map<std::string, std::string> conf;
  std::vector<std::optional<Offset>> offsets;  // one per source; nullopt = none yet

  std::string Serialize() const;
  static Result<OffsetSeq> Parse(const std::string& body, const std::string& where);
};

/// One entry of the commit log.
struct CommitEntry {
  int64_t next_batch_watermark_ms = 0;
  std::string Serialize() const;
  static Result<CommitEntry> Parse(const std::string& body, const std::string& where);
};

/// An exclusive, process-lifetime lock on a checkpoint directory. flock() based, so a run
/// that died releases it with its process; the file keeps the holder's pid and host for the
/// refusal message.
class CheckpointLock {
 public:
  /// Refuses (AlreadyExists-style Invalid) naming the checkpoint and the holder's pid/host.
  static Result<std::unique_ptr<CheckpointLock>> Acquire(const std::string& dir, const std::string& run_id);
  ~CheckpointLock();

 private:
  explicit CheckpointLock(int fd) : fd_(fd) {}
  int fd_;
};

class Checkpoint {
 public:
  Checkpoint(std::shared_ptr<io::FileSystem> fs, std::string dir);

  const std::string& dir() const { return dir_; }
  /// Reads `metadata`; if absent, writes one for `fingerprint` with a new id. If present with
  /// other sources or another sink, refuses naming the checkpoint and the first difference; a
  /// different plan is returned in `previous_plan` (allowed or refused by the caller).
  Result<QueryMetadata> LoadOrCreateMetadata(const QueryFingerprint& fingerprint);
  /// Rewrites `metadata` with `md`'s fingerprint (a plan change the caller allowed).
  Status UpdatePlan(const QueryMetadata& md);
  /// Reads `metadata` only (nullopt when the checkpoint is new).
  Result<std::optional<QueryMetadata>> ReadMetadata() const;

  MetadataLog& offsets() { return offsets_; }
  MetadataLog& commits() { return commits_; }
  std::string SourceDir(size_t index) const;

  Result<std::optional<OffsetSeq>> GetOffsets(int64_t batch_id) const;
  Result<std::optional<CommitEntry>> GetCommit(int64_t batch_id) const;
  /// False when commits/<batch_id> exists but was cut short (it is written without a sync, so
  /// a power failure can leave it empty or partial): a whole entry ends with its JSON object's
  /// closing brace. True when whole or absent.
  Result<bool> CommitIsWhole(int64_t batch_id) const;

  /// Deletes offsets/ and commits/ entries older than the `min_batches_to_retain` before
  /// `latest_batch_id`.
  Status Purge(int64_t latest_batch_id, int min_batches_to_retain);

 private:
  std::shared_ptr<io::FileSystem> fs_;
  std::string dir_;
  MetadataLog offsets_;
  MetadataLog commits_;
};

}  // namespace sluice::checkpoint
