// The micro-batch protocol for one query, as named phases (README, "How exactly-once works").
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint.h"
#include "exec/physical_planner.h"
#include "exec/stateful.h"
#include "runtime/progress_reporter.h"
#include "runtime/query_config.h"
#include "sink/sink.h"
#include "source/source.h"

namespace sluice::runtime {

/// What one trigger did, for progress reports.
struct BatchReport {
  bool ran = false;
  int64_t batch_id = -1;
  nlohmann::json progress;  // Spark's StreamingQueryProgress fields
};

/// What a restart of a query on its checkpoint would do (`sluice explain --checkpoint`).
struct RestartCheck {
  /// No `metadata` yet: the query would start a new checkpoint at batch 0.
  bool new_checkpoint = false;
  std::string query_id{};
  std::optional<int64_t> last_committed_batch{};
  /// One line per part of the query the checkpoint continues unchanged / that changed.
  std::vector<std::string> kept{};
  std::vector<std::string> changed{};
  /// Not OK when Open() would refuse the restart: exactly the error Open() would return.
  Status refusal{};
};

class MicroBatchExecution {
 public:
  /// Locks the checkpoint, checks it belongs to this query, opens sources and sink, and works
  /// out where to resume (see the recovery rule in the .cc).
  static Result<std::unique_ptr<MicroBatchExecution>> Open(const QueryConfig& config, const std::string& run_id);
  ~MicroBatchExecution();
  /// Runs the checks Open() makes on an existing checkpoint (state layout, sources and sink,
  /// stateful operators of a changed plan) without locking or writing anything
  /// (micro_batch_restart_check.cc).
  static Result<RestartCheck> CheckRestart(const QueryConfig& config);

  const std::string& query_id() const { return query_id_; }
  /// For availableNow: each source fixes what this run will process.
  Status PrepareForAvailableNow();
  /// One trigger: re-runs the uncommitted batch if there is one, otherwise constructs and runs
  /// the next batch if any source has new data, otherwise a no-data batch if the watermark
  /// needs one. `limited` = false lifts read limits (Once).
  Result<BatchReport> RunOneTrigger(bool limited);
  /// True when the watermark moved past what the last batch used and a stateful operator would
  /// emit or evict state in a batch without new data (Spark's noDataMicroBatches).
  bool WantsNoDataBatch() const;
  bool has_pending_redo() const { return pending_redo_.has_value(); }

 private:
  MicroBatchExecution(const QueryConfig& config, std::string run_id);
  /// Open() after the lock: fingerprint, state, sources, sink, recovery.
  Status OpenCheckpoint();
  /// What the checkpoint's `metadata` records for this query: sources, sink, plan text.
  checkpoint::QueryFingerprint Fingerprint() const;
  /// A restart with a changed plan: allowed when only stateless parts changed (CheckPlanChange),
  /// then recorded in `metadata`.
  Status AllowPlanChange(const checkpoint::QueryMetadata& md);
  Status CheckPlanChange(const checkpoint::QueryMetadata& md) const;
  /// How many stateful operators the checkpoint holds state for.
  Result<int64_t> StoredOperatorCount() const;
  /// Where a restart resumes: the recovery rule (micro_batch_recover.cc).
  Status Recover();
  int64_t NowMs() const;

  // The phases of one batch, in protocol order (the .cc's header comment numbers them).
  struct BatchInput;
  struct Executed;
  /// 1. constructNextBatch: the next batch's offsets, written ahead to offsets/N; nullopt when
  /// there is nothing to run.
  Result<std::optional<checkpoint::OffsetSeq>> ConstructNextBatch(bool limited, PhaseTimer* timer);
  /// Phases 2 to 6 of batch `batch_id` over the offsets `seq`.
  Result<BatchReport> RunBatch(int64_t batch_id, const checkpoint::OffsetSeq& seq, PhaseTimer* timer);
  /// 2. getBatch: exactly the recorded range of every source.
  Result<BatchInput> GetBatch(const checkpoint::OffsetSeq& seq);
  /// 3. execute: the operators over the input, with the state at version batch_id; the state
  /// is committed as version batch_id + 1.
  Result<Executed> Execute(int64_t batch_id, const checkpoint::OffsetSeq& seq, const BatchInput& input);
  /// 4. addBatch: the sink takes the batch (idempotent by batch id).
  Status AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& output);
  /// 5. commit: the next watermark, commits/N, state maintenance, sources release their data.
  Status Commit(int64_t batch_id, const checkpoint::OffsetSeq& seq, const exec::ExecContext& ctx);

  QueryConfig config_;
  std::string run_id_;
  std::string query_id_;
  std::unique_ptr<checkpoint::CheckpointLock> lock_;
  std::unique_ptr<checkpoint::Checkpoint> checkpoint_;
  std::vector<std::unique_ptr<source::Source>> sources_;
  std::unique_ptr<sink::Sink> sink_;
  /// The query's operators, planned once at Open.
  std::unique_ptr<const exec::PhysicalPlan> physical_;
  std::unique_ptr<ProgressReporter> reporter_;

  int64_t next_batch_id_ = 0;
  /// End offsets of the last committed batch, per source (the next batch's start).
  std::vector<std::optional<source::Offset>> committed_;
  /// Set on restart when offsets/N exists without commits/N: N is re-run with exactly offsets/N.
  std::optional<checkpoint::OffsetSeq> pending_redo_;

  // Stateful queries.
  class Stores;
  Status OpenState();
  Status CheckStateMetadata(bool write);
  Status UpdateWatermark(const exec::ExecContext& ctx);
  bool stateful() const { return !physical_->stateful().empty(); }
  bool has_watermark() const { return !physical_->watermarks().empty(); }
  int num_partitions_ = 1;
  std::string provider_kind_ = "file";
  std::unique_ptr<Stores> stores_;
  /// The global watermark the next batch uses (never decreases).
  int64_t watermark_ms_ = 0;
  /// The watermark the last batch that ran used (the next batch's late-row watermark).
  std::optional<int64_t> last_batch_watermark_ms_;
  /// Per watermark declaration (EventTimeWatermarkExec::watermark_id; a table used twice is one):
  /// max event time - delay seen by this run.
  std::map<std::string, std::optional<int64_t>> node_watermarks_;
  /// "min" | "max": the session's, or the one the checkpoint's offsets log recorded.
  std::string watermark_policy_ = "min";
};

}  // namespace sluice::runtime
