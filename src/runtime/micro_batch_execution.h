// The micro-batch protocol for one query (ARCHITECTURE.md, "The batch protocol").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint.h"
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

class MicroBatchExecution {
 public:
  /// Locks the checkpoint, checks it belongs to this query, opens sources and sink, and works
  /// out where to resume (see the recovery rule in the .cc).
  static Result<std::unique_ptr<MicroBatchExecution>> Open(const QueryConfig& config, const std::string& run_id);
  ~MicroBatchExecution();

  const std::string& query_id() const { return query_id_; }
  /// For availableNow: each source fixes what this run will process.
  Status PrepareForAvailableNow();
  /// One trigger: re-runs the uncommitted batch if there is one, otherwise constructs and runs
  /// the next batch if any source has new data. `limited` = false lifts read limits (Once).
  Result<BatchReport> RunOneTrigger(bool limited);
  bool has_pending_redo() const { return pending_redo_.has_value(); }

 private:
  MicroBatchExecution(const QueryConfig& config, std::string run_id) : config_(config), run_id_(std::move(run_id)) {}
  Status Recover();
  Result<BatchReport> RunBatch(int64_t batch_id, const checkpoint::OffsetSeq& seq, int64_t trigger_start_ms,
                               nlohmann::json durations);
  int64_t NowMs() const;

  QueryConfig config_;
  std::string run_id_;
  std::string query_id_;
  std::unique_ptr<checkpoint::CheckpointLock> lock_;
  std::unique_ptr<checkpoint::Checkpoint> checkpoint_;
  std::vector<std::unique_ptr<source::Source>> sources_;
  std::unique_ptr<sink::Sink> sink_;

  int64_t next_batch_id_ = 0;
  /// End offsets of the last committed batch, per source (the next batch's start).
  std::vector<std::optional<source::Offset>> committed_;
  /// Set on restart when offsets/N exists without commits/N: N is re-run with exactly offsets/N.
  std::optional<checkpoint::OffsetSeq> pending_redo_;
  int64_t last_trigger_start_ms_ = 0;
};

}  // namespace sluice::runtime
