// The micro-batch protocol, top to bottom, as Spark's MicroBatchExecution names its phases.
//
//   Recovery rule. Let N = latest offsets entry and C = latest commit entry.
//     - no offsets:           batch 0 starts from nothing.
//     - C == N:               batch N is done; the next batch N+1 starts at offsets/N.
//     - otherwise (C < N):    batch N is RE-RUN with exactly the offsets recorded in offsets/N
//                             (and its timestamp/watermark); the sink recognises N if it already
//                             has it, so nothing is written twice.
//
//   One batch N (numbered as in the README's "How exactly-once works"):
//     1. constructNextBatch  each source's latest offset; nothing new (and no watermark move
//                            that closes state) -> no batch. Otherwise offsets/N is written
//                            BEFORE the batch runs (the write-ahead log); old log entries are
//                            purged. A redone batch skips this phase: offsets/N exists.
//     2. getBatch            read exactly the recorded range of every source.
//     3. execute             run the operators; stateful ones read state version N and their
//                            writes are committed as version N+1 (as Spark's stateful tasks
//                            commit before the sink sees the batch).
//     4. addBatch            the sink takes batch N; it recognises a batch id it already has.
//     5. commit              the next watermark, commits/N (the batch is done), old state
//                            versions purged, sources release data up to offsets/N.
//     6. progress            the ProgressReporter builds the batch's progress JSON.
//   A crash before commits/N is written leaves offsets/N without commits/N: the recovery rule
//   re-runs N. commits/N itself is not synced (unless a source cleans its input on commit): a
//   power failure may lose it, which re-runs N the same way, or cut it short, which Recover
//   treats as lost. Each phase is timed through PhaseTimer under Spark's durationMs keys.
//
// Fault points (io::FileSystem::FaultPoint) name the moments crash tests stop the process, in
// this order: after_offsets_write (1), during_state_commit, after_state_commit (3),
// before_sink, after_sink_commit (4), before_commit_log, after_commit_log (5).
#include "runtime/micro_batch_execution.h"

#include <arrow/api.h>

#include <chrono>
#include <atomic>
#include <limits>
#include <thread>

#include "exec/plan_executor.h"
#include "runtime/scan_filter.h"
#include "sink/sink_registry.h"
#include "exec/stateful_util.h"
#include "exec/watermark_exec.h"
#include "plan/current_time.h"
#include "source/static_table_source.h"
#include "state/operator_metadata.h"
#include "state/state_store.h"
#include "util/log.h"

namespace sluice::runtime {

namespace {

// A file source reading the file sink's output directory, or a folder inside it, would read
// every batch's output again as new input, without end. Refused before anything is written.
Status CheckSourcesOutsideSink(const QueryConfig& config) {
  const sink::SinkKind* kind = sink::FindSinkKind(config.sink.format);
  auto sink_path = config.sink.options.Get("path");
  if (!kind || !kind->file_format || !sink_path || sink_path->empty()) return Status::OK();
  const std::string out = io::AbsolutePath(*sink_path);
  for (const auto* scan : config.plan->Scans()) {
    if (!scan->source->reads_files || scan->source->path.empty()) continue;
    const std::string in = io::AbsolutePath(scan->source->path);
    if (in == out || in.rfind(out + "/", 0) == 0) {
      return Status::Invalid("The ", scan->source->format, " source folder ", io::PathToUri(in),
                             in == out ? " is" : " is inside", " the output directory ", io::PathToUri(out),
                             " of the ", kind->name, " sink: the query would read its own output as new input, "
                             "again and again. Write to a folder outside the source folder.");
    }
  }
  return Status::OK();
}

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

constexpr const char* kShufflePartitionsConf = "spark.sql.shuffle.partitions";
constexpr const char* kWatermarkPolicyConf = "spark.sql.streaming.multipleWatermarkPolicy";

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
  ARROW_ASSIGN_OR_RAISE(physical_, exec::PlanPhysical(*config_.plan));
  node_watermarks_.clear();
  for (const auto* w : physical_->watermarks()) node_watermarks_[w->watermark_id()] = std::nullopt;
  watermark_policy_ = config_.watermark_policy;
  ARROW_ASSIGN_OR_RAISE(auto last, checkpoint_->offsets().LatestId());
  if (last) {
    ARROW_ASSIGN_OR_RAISE(auto recorded, checkpoint_->GetOffsets(*last));
    if (recorded && recorded->conf.count(kWatermarkPolicyConf)) watermark_policy_ = recorded->conf.at(kWatermarkPolicyConf);
  }
  if (!stateful()) return Status::OK();
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
                                     static_cast<int>(physical_->stateful().size()));
  return Status::OK();
}

Status MicroBatchExecution::CheckStateMetadata(bool write) {
  for (size_t i = 0; i < physical_->stateful().size(); ++i) {
    const auto wanted = physical_->stateful()[i]->StateMetadata(num_partitions_);
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
  const auto& watermarks = physical_->watermarks();
  if (watermarks.empty()) return Status::OK();
  for (size_t i = 0; i < watermarks.size() && i < ctx.event_time.size(); ++i) {
    const auto& st = ctx.event_time[i];
    if (st.count == 0) continue;
    const int64_t candidate = st.max_ms - watermarks[i]->delay_ms();
    auto& node = node_watermarks_[watermarks[i]->watermark_id()];
    if (!node || candidate > *node) node = candidate;
  }
  // Several inputs: the slowest one decides ("min", Spark's default) or the fastest ("max"); an
  // input that has not seen a row yet counts as 0, as in Spark's WatermarkTracker.
  std::optional<int64_t> global;
  const bool max_policy = watermark_policy_ == "max";
  for (const auto& [id, w] : node_watermarks_) {
    const int64_t v = w.value_or(0);
    global = !global ? v : max_policy ? std::max(*global, v) : std::min(*global, v);
  }
  if (global && *global > watermark_ms_) watermark_ms_ = *global;
  return Status::OK();
}

bool MicroBatchExecution::WantsNoDataBatch() const {
  if (!has_watermark() || !last_batch_watermark_ms_ || watermark_ms_ <= *last_batch_watermark_ms_) return false;
  for (const exec::StatefulOperator* op : physical_->stateful()) {
    if (op->RunsNoDataBatch(config_.sink.output_mode)) return true;
  }
  return false;
}

Result<std::unique_ptr<MicroBatchExecution>> MicroBatchExecution::Open(const QueryConfig& config,
                                                                       const std::string& run_id) {
  std::unique_ptr<MicroBatchExecution> ex(new MicroBatchExecution(config, run_id));
  const auto& fs = config.fs;
  ARROW_RETURN_NOT_OK(CheckSourcesOutsideSink(config));
  ARROW_RETURN_NOT_OK(fs->MakeDirs(config.checkpoint_dir));
  ARROW_ASSIGN_OR_RAISE(ex->lock_, checkpoint::CheckpointLock::Acquire(config.checkpoint_dir, run_id));
  ex->checkpoint_ = std::make_unique<checkpoint::Checkpoint>(fs, config.checkpoint_dir);
  ARROW_ASSIGN_OR_RAISE(auto existing, ex->checkpoint_->ReadMetadata());
  if (!existing) {
    // Logs without `metadata`: it was deleted. Recreating it would give the checkpoint a new
    // query id, which sinks would take for another query (and a refusal would clean up logs).
    ARROW_ASSIGN_OR_RAISE(auto last_offsets, ex->checkpoint_->offsets().LatestId());
    ARROW_ASSIGN_OR_RAISE(auto last_commit, ex->checkpoint_->commits().LatestId());
    if (last_offsets || last_commit) {
      return Status::Invalid("Checkpoint '", config.checkpoint_dir, "' has ",
                             last_offsets ? "offsets/" + std::to_string(*last_offsets) : std::string("no offsets"),
                             " and ", last_commit ? "commits/" + std::to_string(*last_commit) : std::string("no commits"),
                             " but no 'metadata' file: it was deleted, and with it the query id its sink knows it "
                             "by. Restore 'metadata' from a backup; to start over on purpose, use a new "
                             "checkpointLocation.");
    }
  }
  Status opened = ex->OpenCheckpoint();
  if (!opened.ok() && !existing) {
    // A refused first start leaves nothing behind that the corrected query would trip over
    // (e.g. a `metadata` with this query's fingerprint).
    ex->sources_.clear();
    ex->sink_.reset();
    for (const char* entry : {"metadata", "offsets", "commits", "sources", "state", "sink"}) {
      (void)fs->DeleteTree(io::JoinPath(config.checkpoint_dir, entry));
    }
  }
  ARROW_RETURN_NOT_OK(opened);
  return ex;
}

checkpoint::QueryFingerprint MicroBatchExecution::Fingerprint() const {
  checkpoint::QueryFingerprint fp;
  for (const auto* scan : config_.plan->Scans()) {
    fp.sources.push_back(scan->source->Describe() + " " + scan->source->format + " [" + SchemaText(*scan->schema) + "]");
  }
  fp.sink = config_.sink.Describe();
  fp.plan = config_.plan->ToString(0, /*with_options=*/false);
  return fp;
}

Status MicroBatchExecution::OpenCheckpoint() {
  const QueryConfig& config = config_;
  const auto& fs = config.fs;
  MicroBatchExecution* ex = this;
  const checkpoint::QueryFingerprint fp = Fingerprint();
  auto scans = config.plan->Scans();
  // State first: a changed aggregation gets a message about its state, not just the plan.
  ARROW_RETURN_NOT_OK(ex->OpenState());
  ARROW_RETURN_NOT_OK(ex->CheckStateMetadata(/*write=*/false));
  ARROW_ASSIGN_OR_RAISE(auto md, ex->checkpoint_->LoadOrCreateMetadata(fp));
  if (!md.previous_plan.empty()) ARROW_RETURN_NOT_OK(ex->AllowPlanChange(md));
  ex->query_id_ = md.id;
  ARROW_RETURN_NOT_OK(ex->CheckStateMetadata(/*write=*/true));

  for (size_t i = 0; i < scans.size(); ++i) {
    source::SourceContext ctx{fs, ex->checkpoint_->SourceDir(i), config.min_batches_to_retain, config.clock_ms,
                              config.temporary_checkpoint, ex->query_id_};
    ctx.read_columns = plan::ColumnsReadFromScan(*config.plan, *scans[i]);  // projection pushdown
    ctx.filter = MakeScanFilter(*config.plan, *scans[i]);                     // filter pushdown
    // A static scan (the batch side of a stream-static join) becomes a source whose offset is
    // the table's version, so offsets/N records which version batch N joined against.
    ARROW_ASSIGN_OR_RAISE(auto src, scans[i]->source->streaming
                                        ? source::MakeStreamingSource(*scans[i]->source, ctx)
                                        : source::MakeStaticTableSource(*scans[i]->source, scans[i]->schema, ctx));
    ex->sources_.push_back(std::move(src));
  }
  sink::SinkContext sctx{fs, ex->query_id_, config.memory_tables, config.console,
                         config.trigger.kind == Trigger::Kind::kProcessingTime ? config.trigger.interval_ms : 0,
                         config.checkpoint_dir};
  ARROW_ASSIGN_OR_RAISE(sctx.last_committed_batch, ex->checkpoint_->commits().LatestId());
  sctx.query_schema = config.plan->schema;
  ARROW_ASSIGN_OR_RAISE(ex->sink_, sink::MakeSink(config.sink, sctx));
  ex->reporter_ = std::make_unique<ProgressReporter>(ex->query_id_, run_id_, config.name);
  return ex->Recover();
}

// Spark's rule for restarting on a checkpoint with a changed query: stateless changes (filters,
// projections, stateless expressions and operators) are allowed; the sources and the sink are
// compared by the checkpoint itself; stateful operators must stay as they were — same number,
// and each with the state layout it stored (CheckStateMetadata compares those).
Status MicroBatchExecution::CheckPlanChange(const checkpoint::QueryMetadata& md) const {
  ARROW_ASSIGN_OR_RAISE(const int64_t stored, StoredOperatorCount());
  const auto wanted = static_cast<int64_t>(physical_->stateful().size());
  if (stored != wanted) {
    return Status::Invalid("Checkpoint '", config_.checkpoint_dir, "' cannot continue this query: it holds the state of ",
                           stored, " stateful operator(s) (aggregation, deduplication, join, window) but the changed "
                           "query has ", wanted, ". Adding or removing a stateful operation changes what the state "
                           "means, so (as in Spark) it needs a new checkpointLocation; changes to filters, "
                           "projections and other stateless operations are allowed.\nThe checkpoint's plan was\n  ",
                           md.previous_plan, "\nthis query's is\n  ", md.fingerprint.plan);
  }
  return Status::OK();
}

Result<int64_t> MicroBatchExecution::StoredOperatorCount() const {
  int64_t stored = 0;
  while (true) {
    ARROW_ASSIGN_OR_RAISE(auto op, state::ReadOperatorMetadata(config_.fs.get(), config_.checkpoint_dir, stored));
    if (!op) return stored;
    ++stored;
  }
}

Status MicroBatchExecution::AllowPlanChange(const checkpoint::QueryMetadata& md) {
  ARROW_RETURN_NOT_OK(CheckPlanChange(md));
  util::LogInfo("Checkpoint '", config_.checkpoint_dir, "': the query changed since its last run (",
                physical_->stateful().empty() ? "a stateless query" : "its stateful operations are unchanged",
                "); continuing from the checkpoint, as Spark allows");
  return checkpoint_->UpdatePlan(md);
}

Status MicroBatchExecution::PrepareForAvailableNow() {
  for (auto& s : sources_) ARROW_RETURN_NOT_OK(s->PrepareForAvailableNow());
  return Status::OK();
}

// What getBatch read: one table per source, in source order.
struct MicroBatchExecution::BatchInput {
  std::vector<std::shared_ptr<arrow::Table>> tables;
};

// What execute produced: the rows for the sink, and the statistics the operators reported.
struct MicroBatchExecution::Executed {
  std::shared_ptr<arrow::Table> output;
  exec::ExecContext ctx;
  int64_t state_commit_ms = 0;
};

Result<BatchReport> MicroBatchExecution::RunOneTrigger(bool limited) {
  PhaseTimer timer([this] { return NowMs(); });
  if (pending_redo_) {
    checkpoint::OffsetSeq seq = std::move(*pending_redo_);
    pending_redo_.reset();
    return RunBatch(next_batch_id_, seq, &timer);
  }
  ARROW_ASSIGN_OR_RAISE(auto seq, ConstructNextBatch(limited, &timer));
  if (!seq) return BatchReport{};
  return RunBatch(next_batch_id_, *seq, &timer);
}

// 1. constructNextBatch.
Result<std::optional<checkpoint::OffsetSeq>> MicroBatchExecution::ConstructNextBatch(bool limited,
                                                                                     PhaseTimer* timer) {
  checkpoint::OffsetSeq seq;
  bool has_data = false;
  ARROW_RETURN_NOT_OK(timer->Time("latestOffset", [&]() -> Status {
    for (size_t i = 0; i < sources_.size(); ++i) {
      ARROW_ASSIGN_OR_RAISE(auto end, sources_[i]->LatestOffset(committed_[i], limited));
      has_data = has_data || (!sources_[i]->IsStatic() && !SameOffset(end, committed_[i]));
      seq.offsets.push_back(std::move(end));
    }
    return Status::OK();
  }));
  if (!has_data) {
    // No new rows, but a watermark that moved on closes windows: a no-data batch.
    if (!WantsNoDataBatch()) return std::nullopt;
    for (size_t i = 0; i < sources_.size(); ++i) {
      if (!sources_[i]->IsStatic()) seq.offsets[i] = committed_[i];
    }
  }

  // Write-ahead: offsets/N before the batch runs, with the watermark and settings it uses.
  seq.batch_timestamp_ms = timer->trigger_start_ms();
  seq.batch_watermark_ms = watermark_ms_;
  seq.conf["sluice.sql.streaming.minBatchesToRetain"] = std::to_string(config_.min_batches_to_retain);
  if (stateful()) {
    seq.conf[kShufflePartitionsConf] = std::to_string(num_partitions_);
    seq.conf[state::kStateStoreProviderConf] = provider_kind_;
  }
  if (has_watermark()) seq.conf[kWatermarkPolicyConf] = watermark_policy_;
  ARROW_RETURN_NOT_OK(timer->Time("walCommit", [&]() -> Status {
    ARROW_RETURN_NOT_OK(checkpoint_->offsets().Add(next_batch_id_, seq.Serialize()));
    ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_offsets_write"));
    return checkpoint_->Purge(next_batch_id_, config_.min_batches_to_retain);
  }));
  return seq;
}

Result<BatchReport> MicroBatchExecution::RunBatch(int64_t batch_id, const checkpoint::OffsetSeq& seq,
                                                  PhaseTimer* timer) {
  ARROW_ASSIGN_OR_RAISE(BatchInput input, timer->Time("getBatch", [&] { return GetBatch(seq); }));
  // Plans are made once, when the query opens.
  timer->Record("queryPlanning", 0);
  // Spark's addBatch covers running the plan too (its plans run lazily inside the sink write).
  ARROW_ASSIGN_OR_RAISE(Executed executed, timer->Time("addBatch", [&] { return Execute(batch_id, seq, input); }));
  ARROW_RETURN_NOT_OK(timer->Time("addBatch", [&] { return AddBatch(batch_id, executed.output); }));
  ARROW_RETURN_NOT_OK(timer->Time("commitOffsets", [&] { return Commit(batch_id, seq, executed.ctx); }));
  const int64_t end_ms = timer->Finish();

  // 6. progress.
  BatchStats stats;
  stats.batch_id = batch_id;
  stats.trigger_start_ms = timer->trigger_start_ms();
  stats.end_ms = end_ms;
  stats.durations = timer->durations();
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (sources_[i]->IsStatic()) continue;  // progress lists streaming sources, as Spark's does
    stats.sources.push_back({sources_[i]->Description(), committed_[i], seq.offsets[i], input.tables[i]->num_rows(),
                             sources_[i]->metrics()});
  }
  stats.operators = executed.ctx.operators;
  stats.state_commit_ms = executed.state_commit_ms;
  if (has_watermark()) stats.batch_watermark_ms = seq.batch_watermark_ms;
  stats.event_time = executed.ctx.event_time;
  stats.sink_description = sink_->Description();
  stats.num_output_rows = executed.output->num_rows();
  BatchReport report;
  report.ran = true;
  report.batch_id = batch_id;
  report.progress = reporter_->Report(stats);

  committed_ = seq.offsets;
  next_batch_id_ = batch_id + 1;
  // Between batches, off the next one's critical path (not in its durations): the files its
  // log entries will be written to are created now.
  config_.fs->PrepareEntries();
  return report;
}

// 2. getBatch.
Result<MicroBatchExecution::BatchInput> MicroBatchExecution::GetBatch(const checkpoint::OffsetSeq& seq) {
  BatchInput input;
  for (size_t i = 0; i < sources_.size(); ++i) {
    std::shared_ptr<arrow::Table> rows;
    if (!seq.offsets[i] || (!sources_[i]->IsStatic() && SameOffset(seq.offsets[i], committed_[i]))) {
      ARROW_ASSIGN_OR_RAISE(rows, arrow::Table::MakeEmpty(sources_[i]->schema()));
    } else {
      ARROW_ASSIGN_OR_RAISE(rows, sources_[i]->GetBatch(committed_[i], *seq.offsets[i]));
    }
    input.tables.push_back(std::move(rows));
  }
  return input;
}

// 3. execute.
Result<MicroBatchExecution::Executed> MicroBatchExecution::Execute(int64_t batch_id, const checkpoint::OffsetSeq& seq,
                                                                   const BatchInput& input) {
  Executed result;
  exec::ExecContext& ctx = result.ctx;
  ctx.streaming = true;
  ctx.output_mode = config_.sink.output_mode;
  ctx.late_watermark_ms = last_batch_watermark_ms_.value_or(std::numeric_limits<int64_t>::min());
  ctx.eviction_watermark_ms = seq.batch_watermark_ms;
  ctx.batch_id = batch_id;
  if (stores_) {
    ARROW_RETURN_NOT_OK(stores_->Begin(batch_id));
    ctx.stores = stores_.get();
  }
  // current_timestamp()/current_date() are the batch's recorded timestamp: a redo sees the value
  // the first run saw. Such a plan is planned again per batch (same operators, same ids).
  const exec::PhysicalPlan* physical = physical_.get();
  std::unique_ptr<const exec::PhysicalPlan> bound;
  if (plan::UsesCurrentTime(*config_.plan)) {
    ARROW_ASSIGN_OR_RAISE(bound, exec::PlanPhysical(*plan::BindCurrentTime(config_.plan, seq.batch_timestamp_ms)));
    physical = bound.get();
  }
  auto executed = exec::ExecutePhysicalPlan(*physical, input.tables, &ctx);
  if (!executed.ok()) {
    if (stores_) stores_->AbortAll();
    return executed.status();
  }
  result.output = *executed;
  if (stores_) {
    const int64_t start = NowMs();
    ARROW_RETURN_NOT_OK(stores_->CommitAll());
    result.state_commit_ms = NowMs() - start;
    ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_state_commit"));
  }
  return result;
}

// 4. addBatch.
Status MicroBatchExecution::AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& output) {
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("before_sink"));
  ARROW_RETURN_NOT_OK(sink_->AddBatch(batch_id, output));
  return config_.fs->FaultPoint("after_sink_commit");
}

// 5. commit: batch N is done.
Status MicroBatchExecution::Commit(int64_t batch_id, const checkpoint::OffsetSeq& seq, const exec::ExecContext& ctx) {
  ARROW_RETURN_NOT_OK(UpdateWatermark(ctx));
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("before_commit_log"));
  checkpoint::CommitEntry commit{watermark_ms_};
  // Without a sync of its own (the sink's and the state's entries are made durable before it
  // is named): losing commits/N to a power failure only means batch N runs again (Recover),
  // and its sink recognises it. Two of a small batch's ten syncs. Synced when a source is
  // about to change the input batch N read (cleanSource): running N again would need it.
  bool changes_input = false;
  for (const auto& source : sources_) changes_input = changes_input || source->CommitChangesInput();
  ARROW_RETURN_NOT_OK(checkpoint_->commits().Add(batch_id, commit.Serialize(), /*compact=*/false,
                                                 changes_input ? io::EntrySync::kNow : io::EntrySync::kNone));
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_commit_log"));
  last_batch_watermark_ms_ = seq.batch_watermark_ms;
  if (stores_) ARROW_RETURN_NOT_OK(stores_->Maintenance(config_.min_batches_to_retain));
  for (size_t i = 0; i < sources_.size(); ++i) {
    if (seq.offsets[i]) ARROW_RETURN_NOT_OK(sources_[i]->Commit(*seq.offsets[i]));
  }
  return Status::OK();
}

}  // namespace sluice::runtime
