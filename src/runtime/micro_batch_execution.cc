// The micro-batch protocol, top to bottom (ARCHITECTURE.md):
//
//   Recovery rule. Let N = latest offsets entry and C = latest commit entry.
//     - no offsets:           batch 0 starts from nothing.
//     - C == N:               batch N is done; the next batch N+1 starts at offsets/N.
//     - otherwise (C < N):    batch N is RE-RUN with exactly the offsets recorded in offsets/N
//                             (and its timestamp/watermark); the sink recognises N if it already
//                             has it, so nothing is written twice.
//
//   One batch:  latest offsets -> offsets/N (write-ahead) -> read exactly that range ->
//               run the plan -> sink.addBatch(N) -> commits/N -> sources release data <= N.
//
// Fault points (io::FileSystem::FaultPoint) name the moments crash tests stop the process.
#include "runtime/micro_batch_execution.h"

#include <arrow/api.h>

#include <chrono>
#include <atomic>
#include <limits>
#include <thread>

#include "exec/plan_executor.h"
#include "exec/stateful_ops.h"
#include "exec/stateful_util.h"
#include "runtime/progress.h"
#include "state/operator_metadata.h"
#include "state/state_store.h"

namespace sluice::runtime {

using nlohmann::json;

namespace {

std::string SchemaText(const arrow::Schema& s) {
  std::string out;
  for (int i = 0; i < s.num_fields(); ++i) {
    out += (i ? ", " : "") + s.field(i)->name() + " " + plan::TypeName(*s.field(i)->type());
  }
  return out;
}

bool SameOffset(const std::optional<source::Offset>& a, const std::optional<source::Offset>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || *a == *b;
}

json OffsetJson(const std::optional<source::Offset>& o) { return o ? *o : json(nullptr); }

constexpr const char* kShufflePartitionsConf = "spark.sql.shuffle.partitions";
constexpr const char* kWatermarkPolicyConf = "spark.sql.streaming.multipleWatermarkPolicy";

// What a stateful operator's state looks like, for state/<op>/_metadata: a restart whose
// operator would read the state differently is refused.
state::StateOperatorMetadata DescribeState(const plan::LogicalPlan& node, int op, int partitions) {
  state::StateOperatorMetadata md;
  md.operator_id = op;
  md.num_partitions = partitions;
  auto field_text = [&](int i) {
    return node.schema->field(i)->name() + " " + plan::TypeName(*node.schema->field(i)->type());
  };
  if (node.kind == plan::LogicalPlan::Kind::kAggregate) {
    const bool session = node.window && node.window->kind == plan::WindowSpec::Kind::kSession;
    md.operator_name = session ? "sessionWindowStateStoreSave" : "stateStoreSave";
    std::string key;
    for (size_t i = 0; i < node.group_exprs.size(); ++i) {
      key += (i ? ", " : "");
      key += node.window && node.window->group_index == static_cast<int>(i) ? node.window->ToString()
                                                                           : node.group_exprs[i]->ToString();
    }
    const auto marked = node.input->WatermarkedColumns();
    std::string watermarked;
    for (const auto& [c, d] : marked) watermarked += (watermarked.empty() ? "" : ", ") + c;
    md.key_schema = "[" + key + "] watermarked [" + watermarked + "]";
    std::string value;
    const int first_agg = node.schema->num_fields() - static_cast<int>(node.aggs.size());
    for (size_t i = 0; i < node.aggs.size(); ++i) {
      value += (i ? ", " : "") + node.aggs[i].ToString() + " : " + field_text(first_agg + static_cast<int>(i));
    }
    md.value_schema = "[" + value + "]";
  } else {
    md.operator_name = node.within_watermark ? "dedupeWithinWatermark" : "dedupe";
    std::string key;
    for (const auto& c : node.key_columns) {
      key += (key.empty() ? "" : ", ") + c + " " + plan::TypeName(*node.schema->GetFieldByName(c)->type());
    }
    md.key_schema = "[" + key + "]";
    md.value_schema = node.within_watermark ? "[expiresAtMicros bigint]" : "[]";
  }
  return md;
}

json IsoOrNull(int64_t ms) { return IsoTimestamp(ms); }


}  // namespace

int64_t MicroBatchExecution::NowMs() const {
  if (config_.clock_ms) return config_.clock_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The state stores of every (operator, partition), loaded at one batch's version.
class MicroBatchExecution::Stores : public exec::StateStores {
 public:
  Stores(std::shared_ptr<io::FileSystem> fs, std::string dir, std::string kind, int partitions, int operators)
      : fs_(std::move(fs)), dir_(std::move(dir)), kind_(std::move(kind)), partitions_(partitions), operators_(operators) {}

  int num_partitions() const override { return partitions_; }

  Result<state::StateStore*> Get(int op, int p) override {
    if (op < 0 || op >= operators_ || p < 0 || p >= partitions_ || !loaded_[Slot(op, p)]) {
      return Status::Invalid("no state store loaded for operator ", op, " partition ", p);
    }
    return loaded_[Slot(op, p)].get();
  }

  /// Loads every store at `version`, the partitions in parallel.
  Status Begin(int64_t version) {
    const int n = partitions_ * operators_;
    providers_.resize(static_cast<size_t>(n));
    loaded_.clear();
    loaded_.resize(static_cast<size_t>(n));
    auto load = [&](int i) -> Status {
      auto& provider = providers_[static_cast<size_t>(i)];
      if (!provider) {
        state::StateStoreId id{dir_, i / partitions_, i % partitions_};
        ARROW_ASSIGN_OR_RAISE(provider, state::OpenStateStoreProvider(kind_, fs_, id));
      }
      ARROW_ASSIGN_OR_RAISE(loaded_[static_cast<size_t>(i)], provider->Load(version));
      return Status::OK();
    };
    Status st = exec::ParallelFor(n, exec::OperatorThreads(n), load);
    if (!st.ok()) loaded_.clear();
    return st;
  }

  /// Commits every store (version + 1). The fault point between the first and the remaining
  /// commits lets tests stop the process in the middle of a batch's state commit.
  Status CommitAll() {
    for (size_t i = 0; i < loaded_.size(); ++i) {
      ARROW_RETURN_NOT_OK(loaded_[i]->Commit().status());
      if (i == 0) ARROW_RETURN_NOT_OK(fs_->FaultPoint("during_state_commit"));
    }
    loaded_.clear();
    return Status::OK();
  }

  void AbortAll() { loaded_.clear(); }

  Status Maintenance(int retain) {
    for (auto& p : providers_) {
      if (p) ARROW_RETURN_NOT_OK(p->DoMaintenance(retain));
    }
    return Status::OK();
  }

 private:
  size_t Slot(int op, int p) const { return static_cast<size_t>(op * partitions_ + p); }

  std::shared_ptr<io::FileSystem> fs_;
  std::string dir_;
  std::string kind_;
  int partitions_;
  int operators_;
  std::vector<std::unique_ptr<state::StateStoreProvider>> providers_;
  std::vector<std::unique_ptr<state::StateStore>> loaded_;
};

MicroBatchExecution::MicroBatchExecution(const QueryConfig& config, std::string run_id)
    : config_(config), run_id_(std::move(run_id)) {}

MicroBatchExecution::~MicroBatchExecution() = default;

Status MicroBatchExecution::OpenState() {
  stateful_ = config_.plan->StatefulNodes();
  watermark_nodes_ = config_.plan->WatermarkNodes();
  node_watermarks_.assign(watermark_nodes_.size(), std::nullopt);
  if (stateful_.empty()) return Status::OK();
  // A checkpoint keeps the partitioning and provider it started with (they decide where state
  // lives); the session's values apply to new checkpoints only.
  num_partitions_ = config_.shuffle_partitions > 0 ? config_.shuffle_partitions
                                                   : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  ARROW_ASSIGN_OR_RAISE(provider_kind_, state::NormalizeStateStoreProvider(config_.state_store_provider));
  ARROW_ASSIGN_OR_RAISE(auto latest, checkpoint_->offsets().LatestId());
  if (latest) {
    ARROW_ASSIGN_OR_RAISE(auto seq, checkpoint_->GetOffsets(*latest));
    if (seq) {
      auto it = seq->conf.find(kShufflePartitionsConf);
      if (it != seq->conf.end()) {
        int n = std::atoi(it->second.c_str());
        if (n <= 0) {
          return Status::Invalid("Checkpoint '", checkpoint_->dir(), "' offsets/", *latest, " has an invalid ",
                                 kShufflePartitionsConf, " '", it->second, "'");
        }
        num_partitions_ = n;
      }
      auto pk = seq->conf.find(state::kStateStoreProviderConf);
      if (pk != seq->conf.end()) {
        ARROW_ASSIGN_OR_RAISE(provider_kind_, state::NormalizeStateStoreProvider(pk->second));
      }
    }
  }
  stores_ = std::make_unique<Stores>(config_.fs, config_.checkpoint_dir, provider_kind_, num_partitions_,
                                     static_cast<int>(stateful_.size()));
  return Status::OK();
}

Status MicroBatchExecution::CheckStateMetadata(bool write) {
  for (size_t i = 0; i < stateful_.size(); ++i) {
    const auto wanted = DescribeState(*stateful_[i], static_cast<int>(i), num_partitions_);
    if (write) {
      ARROW_RETURN_NOT_OK(state::WriteOrCheckOperatorMetadata(config_.fs.get(), config_.checkpoint_dir, wanted));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto stored, state::ReadOperatorMetadata(config_.fs.get(), config_.checkpoint_dir, static_cast<int64_t>(i)));
    if (stored) {
      Status st = state::CheckCompatible(*stored, wanted);
      if (!st.ok()) {
        return Status::Invalid("Checkpoint '", config_.checkpoint_dir, "' holds state this query cannot continue from: ",
                               st.message(), "\nA changed aggregation or deduplication needs a new checkpointLocation.");
      }
    }
  }
  return Status::OK();
}

Status MicroBatchExecution::UpdateWatermark(const exec::ExecContext& ctx) {
  if (watermark_nodes_.empty()) return Status::OK();
  for (size_t i = 0; i < watermark_nodes_.size() && i < ctx.event_time.size(); ++i) {
    const auto& st = ctx.event_time[i];
    if (st.count == 0) continue;
    const int64_t candidate = st.max_ms - watermark_nodes_[i]->delay_ms;
    if (!node_watermarks_[i] || candidate > *node_watermarks_[i]) node_watermarks_[i] = candidate;
  }
  // Several inputs: the slowest one decides (Spark's default "min" policy).
  std::optional<int64_t> global;
  for (const auto& w : node_watermarks_) {
    if (w) global = global ? std::min(*global, *w) : *w;
  }
  if (global && *global > watermark_ms_) watermark_ms_ = *global;
  return Status::OK();
}

bool MicroBatchExecution::WantsNoDataBatch() const {
  return !stateful_.empty() && !watermark_nodes_.empty() && last_batch_watermark_ms_ &&
         watermark_ms_ > *last_batch_watermark_ms_;
}

Result<std::unique_ptr<MicroBatchExecution>> MicroBatchExecution::Open(const QueryConfig& config,
                                                                       const std::string& run_id) {
  std::unique_ptr<MicroBatchExecution> ex(new MicroBatchExecution(config, run_id));
  const auto& fs = config.fs;
  ARROW_RETURN_NOT_OK(fs->MakeDirs(config.checkpoint_dir));
  ARROW_ASSIGN_OR_RAISE(ex->lock_, checkpoint::CheckpointLock::Acquire(config.checkpoint_dir, run_id));
  ex->checkpoint_ = std::make_unique<checkpoint::Checkpoint>(fs, config.checkpoint_dir);

  checkpoint::QueryFingerprint fp;
  auto scans = config.plan->Scans();
  for (const auto* scan : scans) {
    fp.sources.push_back(scan->source->Describe() + " " + scan->source->format + " [" + SchemaText(*scan->schema) + "]");
  }
  fp.sink = config.sink.Describe();
  fp.plan = config.plan->ToString(0, /*with_options=*/false);
  // State first: a changed aggregation gets a message about its state, not just the plan.
  ARROW_RETURN_NOT_OK(ex->OpenState());
  ARROW_RETURN_NOT_OK(ex->CheckStateMetadata(/*write=*/false));
  ARROW_ASSIGN_OR_RAISE(auto md, ex->checkpoint_->LoadOrCreateMetadata(fp));
  ex->query_id_ = md.id;
  ARROW_RETURN_NOT_OK(ex->CheckStateMetadata(/*write=*/true));

  for (size_t i = 0; i < scans.size(); ++i) {
    source::SourceContext ctx{fs, ex->checkpoint_->SourceDir(i), config.min_batches_to_retain, config.clock_ms,
                              config.temporary_checkpoint};
    ARROW_ASSIGN_OR_RAISE(auto src, source::MakeStreamingSource(*scans[i]->source, ctx));
    ex->sources_.push_back(std::move(src));
  }
  sink::SinkContext sctx{fs, ex->query_id_, config.memory_tables, config.console};
  ARROW_ASSIGN_OR_RAISE(ex->sink_, sink::MakeSink(config.sink, sctx));
  ARROW_RETURN_NOT_OK(ex->Recover());
  return ex;
}

Status MicroBatchExecution::Recover() {
  committed_.assign(sources_.size(), std::nullopt);
  ARROW_ASSIGN_OR_RAISE(auto latest_offsets, checkpoint_->offsets().LatestId());
  if (!latest_offsets) return Status::OK();  // a new query: batch 0 from nothing
  const int64_t n = *latest_offsets;
  ARROW_ASSIGN_OR_RAISE(auto seq, checkpoint_->GetOffsets(n));
  if (seq->offsets.size() != sources_.size()) {
    return Status::Invalid("Checkpoint '", checkpoint_->dir(), "' records ", seq->offsets.size(),
                           " sources in offsets/", n, " but this query has ", sources_.size());
  }
  ARROW_ASSIGN_OR_RAISE(auto latest_commit, checkpoint_->commits().LatestId());
  if (latest_commit && *latest_commit == n) {
    committed_ = seq->offsets;
    next_batch_id_ = n + 1;
    ARROW_ASSIGN_OR_RAISE(auto commit, checkpoint_->GetCommit(n));
    watermark_ms_ = std::max(seq->batch_watermark_ms, commit ? commit->next_batch_watermark_ms : 0);
    last_batch_watermark_ms_ = seq->batch_watermark_ms;
    return Status::OK();
  }
  watermark_ms_ = seq->batch_watermark_ms;
  // offsets/N without commits/N: the crash came before the commit. Re-run N exactly.
  if (n > 0) {
    ARROW_ASSIGN_OR_RAISE(auto prev, checkpoint_->GetOffsets(n - 1));
    if (!prev) {
      return Status::Invalid("Checkpoint '", checkpoint_->dir(), "' has offsets/", n, " but not offsets/", n - 1,
                             ", so batch ", n, " cannot be re-run");
    }
    committed_ = prev->offsets;
    last_batch_watermark_ms_ = prev->batch_watermark_ms;
  }
  next_batch_id_ = n;
  pending_redo_ = std::move(seq);
  return Status::OK();
}

Status MicroBatchExecution::PrepareForAvailableNow() {
  for (auto& s : sources_) ARROW_RETURN_NOT_OK(s->PrepareForAvailableNow());
  return Status::OK();
}

Result<BatchReport> MicroBatchExecution::RunOneTrigger(bool limited, bool allow_new_data) {
  const int64_t trigger_start = NowMs();
  json durations = json::object();
  if (pending_redo_) {
    checkpoint::OffsetSeq seq = std::move(*pending_redo_);
    pending_redo_.reset();
    return RunBatch(next_batch_id_, seq, trigger_start, durations);
  }

  // 1. What is new since the last committed batch?
  checkpoint::OffsetSeq seq;
  bool has_data = false;
  if (allow_new_data) {
    for (size_t i = 0; i < sources_.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto end, sources_[i]->LatestOffset(committed_[i], limited));
      has_data = has_data || !SameOffset(end, committed_[i]);
      seq.offsets.push_back(std::move(end));
    }
  }
  durations["latestOffset"] = NowMs() - trigger_start;
  if (!has_data) {
    // No new rows, but a watermark that moved on closes windows: a no-data batch.
    if (!WantsNoDataBatch()) return BatchReport{};
    seq.offsets = committed_;
  }

  // 2. Write-ahead: offsets/N before the batch runs, with the watermark it uses.
  seq.batch_timestamp_ms = trigger_start;
  seq.batch_watermark_ms = watermark_ms_;
  seq.conf["sluice.sql.streaming.minBatchesToRetain"] = std::to_string(config_.min_batches_to_retain);
  if (!stateful_.empty()) {
    seq.conf[kShufflePartitionsConf] = std::to_string(num_partitions_);
    seq.conf[state::kStateStoreProviderConf] = provider_kind_;
  }
  if (!watermark_nodes_.empty()) seq.conf[kWatermarkPolicyConf] = "min";
  const int64_t wal_start = NowMs();
  ARROW_RETURN_NOT_OK(checkpoint_->offsets().Add(next_batch_id_, seq.Serialize()));
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_offsets_write"));
  ARROW_RETURN_NOT_OK(checkpoint_->Purge(next_batch_id_, config_.min_batches_to_retain));
  durations["walCommit"] = NowMs() - wal_start;
  return RunBatch(next_batch_id_, seq, trigger_start, durations);
}

Result<BatchReport> MicroBatchExecution::RunBatch(int64_t batch_id, const checkpoint::OffsetSeq& seq,
                                                  int64_t trigger_start_ms, json durations) {
  // 3. Read exactly the recorded range of every source.
  int64_t t = NowMs();
  std::vector<std::shared_ptr<arrow::Table>> inputs;
  std::vector<int64_t> rows_per_source;
  int64_t num_input_rows = 0;
  for (size_t i = 0; i < sources_.size(); ++i) {
    std::shared_ptr<arrow::Table> rows;
    if (!seq.offsets[i] || SameOffset(seq.offsets[i], committed_[i])) {
      ARROW_ASSIGN_OR_RAISE(rows, arrow::Table::MakeEmpty(sources_[i]->schema()));
    } else {
      ARROW_ASSIGN_OR_RAISE(rows, sources_[i]->GetBatch(committed_[i], *seq.offsets[i]));
    }
    rows_per_source.push_back(rows->num_rows());
    num_input_rows += rows->num_rows();
    inputs.push_back(std::move(rows));
  }
  durations["getBatch"] = NowMs() - t;

  // Run the plan; stateful operators work on the state at version N (= after batch N-1).
  t = NowMs();
  exec::ExecContext ctx;
  ctx.streaming = true;
  ctx.output_mode = config_.sink.output_mode;
  ctx.late_watermark_ms = last_batch_watermark_ms_.value_or(std::numeric_limits<int64_t>::min());
  ctx.eviction_watermark_ms = seq.batch_watermark_ms;
  if (stores_) {
    ARROW_RETURN_NOT_OK(stores_->Begin(batch_id));
    ctx.stores = stores_.get();
  }
  auto executed = exec::ExecutePlan(*config_.plan, inputs, &ctx);
  if (!executed.ok()) {
    if (stores_) stores_->AbortAll();
    return executed.status();
  }
  std::shared_ptr<arrow::Table> output = *executed;
  durations["queryPlanning"] = 0;
  int64_t state_commit_ms = 0;
  if (stores_) {
    const int64_t c0 = NowMs();
    ARROW_RETURN_NOT_OK(stores_->CommitAll());
    state_commit_ms = NowMs() - c0;
    ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_state_commit"));
  }

  // 4. The sink takes batch N (idempotent by batch id).
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("before_sink"));
  ARROW_RETURN_NOT_OK(sink_->AddBatch(batch_id, output));
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_sink_commit"));
  durations["addBatch"] = NowMs() - t;

  // 6. The commit: batch N is done.
  t = NowMs();
  ARROW_RETURN_NOT_OK(UpdateWatermark(ctx));
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("before_commit_log"));
  checkpoint::CommitEntry commit{watermark_ms_};
  ARROW_RETURN_NOT_OK(checkpoint_->commits().Add(batch_id, commit.Serialize()));
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_commit_log"));
  last_batch_watermark_ms_ = seq.batch_watermark_ms;
  if (stores_) ARROW_RETURN_NOT_OK(stores_->Maintenance(config_.min_batches_to_retain));
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (seq.offsets[i]) ARROW_RETURN_NOT_OK(sources_[i]->Commit(*seq.offsets[i]));
  }
  durations["commitOffsets"] = NowMs() - t;
  const int64_t end_ms = NowMs();
  durations["triggerExecution"] = end_ms - trigger_start_ms;

  // 7. Progress.
  const double secs = std::max<int64_t>(end_ms - trigger_start_ms, 1) / 1000.0;
  const double since_last = last_trigger_start_ms_ > 0 ? (trigger_start_ms - last_trigger_start_ms_) / 1000.0 : 0.0;
  last_trigger_start_ms_ = trigger_start_ms;
  json sources = json::array();
  for (size_t i = 0; i < sources_.size(); ++i) {
    json s = {{"description", sources_[i]->Description()},
              {"startOffset", OffsetJson(committed_[i])},
              {"endOffset", OffsetJson(seq.offsets[i])},
              {"latestOffset", OffsetJson(seq.offsets[i])},
              {"numInputRows", rows_per_source[i]},
              {"processedRowsPerSecond", rows_per_source[i] / secs}};
    if (since_last > 0) s["inputRowsPerSecond"] = rows_per_source[i] / since_last;
    const source::SourceMetrics m = sources_[i]->metrics();
    s["metrics"] = {{"numMalformedRows", std::to_string(m.malformed_rows)}};
    if (m.files_outstanding >= 0) s["metrics"]["numFilesOutstanding"] = std::to_string(m.files_outstanding);
    sources.push_back(std::move(s));
  }
  json state_ops = json::array();
  for (const auto& op : ctx.operators) {
    state_ops.push_back({{"operatorName", op.operator_name},
                         {"numRowsTotal", op.num_rows_total},
                         {"numRowsUpdated", op.num_rows_updated},
                         {"allUpdatesTimeMs", op.all_updates_time_ms},
                         {"numRowsRemoved", op.num_rows_removed},
                         {"allRemovalsTimeMs", op.all_removals_time_ms},
                         {"commitTimeMs", stateful_.empty() ? 0 : state_commit_ms / static_cast<int64_t>(stateful_.size())},
                         {"memoryUsedBytes", op.memory_used_bytes},
                         {"numRowsDroppedByWatermark", op.num_rows_dropped_by_watermark},
                         {"numShufflePartitions", op.num_shuffle_partitions},
                         {"numStateStoreInstances", op.num_state_store_instances}});
  }
  BatchReport report;
  report.ran = true;
  report.batch_id = batch_id;
  report.progress = {{"id", query_id_},
                     {"runId", run_id_},
                     {"name", config_.name.empty() ? json(nullptr) : json(config_.name)},
                     {"timestamp", IsoTimestamp(trigger_start_ms)},
                     {"batchId", batch_id},
                     {"batchDuration", end_ms - trigger_start_ms},
                     {"numInputRows", num_input_rows},
                     {"processedRowsPerSecond", num_input_rows / secs},
                     {"durationMs", durations},
                     {"stateOperators", state_ops},
                     {"sources", sources},
                     {"sink", {{"description", sink_->Description()}, {"numOutputRows", output->num_rows()}}}};
  if (since_last > 0) report.progress["inputRowsPerSecond"] = num_input_rows / since_last;
  if (!watermark_nodes_.empty()) {
    // Spark's eventTime map: the watermark this batch used; max/min/avg of its event times.
    json event_time = {{"watermark", IsoOrNull(seq.batch_watermark_ms)}};
    exec::EventTimeStats all;
    for (const auto& st : ctx.event_time) {
      all.count += st.count;
      all.sum_ms += st.sum_ms;
      all.max_ms = std::max(all.max_ms, st.max_ms);
      all.min_ms = std::min(all.min_ms, st.min_ms);
    }
    if (all.count > 0) {
      event_time["avg"] = IsoOrNull(static_cast<int64_t>(all.sum_ms / static_cast<double>(all.count)));
      event_time["max"] = IsoOrNull(all.max_ms);
      event_time["min"] = IsoOrNull(all.min_ms);
    }
    report.progress["eventTime"] = event_time;
  }

  committed_ = seq.offsets;
  next_batch_id_ = batch_id + 1;
  return report;
}

}  // namespace sluice::runtime
