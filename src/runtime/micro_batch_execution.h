// The micro-batch protocol for one query (ARCHITECTURE.md, "The batch protocol").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint.h"
#include "exec/stateful.h"
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
  /// allow_new_data = false runs only a no-data batch, if the watermark needs one.
  Result<BatchReport> RunOneTrigger(bool limited, bool allow_new_data = true);
  /// True when the watermark moved past what the last batch used, so a batch without new
  /// data would emit or evict state (Spark's noDataMicroBatches).
  bool WantsNoDataBatch() const;
  bool has_pending_redo() const { return pending_redo_.has_value(); }

 private:
  MicroBatchExecution(const QueryConfig& config, std::string run_id);
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

  // Stateful queries.
  class Stores;
  Status OpenState();
  Status CheckStateMetadata(bool write);
  Status UpdateWatermark(const exec::ExecContext& ctx);
  std::vector<const plan::LogicalPlan*> stateful_;
  std::vector<const plan::LogicalPlan*> watermark_nodes_;
  int num_partitions_ = 1;
  std::string provider_kind_ = "file";
  std::unique_ptr<Stores> stores_;
  /// The global watermark the next batch uses (never decreases).
  int64_t watermark_ms_ = 0;
  /// The watermark the last batch that ran used (the next batch's late-row watermark).
  std::optional<int64_t> last_batch_watermark_ms_;
  /// Per withWatermark node: max event time - delay seen by this run.
  std::vector<std::optional<int64_t>> node_watermarks_;
};

}  // namespace sluice::runtime
