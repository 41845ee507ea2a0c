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

#include "exec/plan_executor.h"
#include "runtime/progress.h"

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


}  // namespace

int64_t MicroBatchExecution::NowMs() const {
  if (config_.clock_ms) return config_.clock_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

MicroBatchExecution::~MicroBatchExecution() = default;

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
  ARROW_ASSIGN_OR_RAISE(auto md, ex->checkpoint_->LoadOrCreateMetadata(fp));
  ex->query_id_ = md.id;

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
    return Status::OK();
  }
  // offsets/N without commits/N: the crash came before the commit. Re-run N exactly.
  if (n > 0) {
    ARROW_ASSIGN_OR_RAISE(auto prev, checkpoint_->GetOffsets(n - 1));
    if (!prev) {
      return Status::Invalid("Checkpoint '", checkpoint_->dir(), "' has offsets/", n, " but not offsets/", n - 1,
                             ", so batch ", n, " cannot be re-run");
    }
    committed_ = prev->offsets;
  }
  next_batch_id_ = n;
  pending_redo_ = std::move(seq);
  return Status::OK();
}

Status MicroBatchExecution::PrepareForAvailableNow() {
  for (auto& s : sources_) ARROW_RETURN_NOT_OK(s->PrepareForAvailableNow());
  return Status::OK();
}

Result<BatchReport> MicroBatchExecution::RunOneTrigger(bool limited) {
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
  for (size_t i = 0; i < sources_.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto end, sources_[i]->LatestOffset(committed_[i], limited));
    has_data = has_data || !SameOffset(end, committed_[i]);
    seq.offsets.push_back(std::move(end));
  }
  durations["latestOffset"] = NowMs() - trigger_start;
  if (!has_data) return BatchReport{};

  // 2. Write-ahead: offsets/N before the batch runs.
  seq.batch_timestamp_ms = trigger_start;
  seq.conf["sluice.sql.streaming.minBatchesToRetain"] = std::to_string(config_.min_batches_to_retain);
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

  // Run the plan.
  t = NowMs();
  ARROW_ASSIGN_OR_RAISE(auto output, exec::ExecutePlan(*config_.plan, inputs));
  durations["queryPlanning"] = 0;

  // 4. The sink takes batch N (idempotent by batch id).
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("before_sink"));
  ARROW_RETURN_NOT_OK(sink_->AddBatch(batch_id, output));
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_sink_commit"));
  durations["addBatch"] = NowMs() - t;

  // 6. The commit: batch N is done.
  t = NowMs();
  checkpoint::CommitEntry commit{seq.batch_watermark_ms};
  ARROW_RETURN_NOT_OK(checkpoint_->commits().Add(batch_id, commit.Serialize()));
  ARROW_RETURN_NOT_OK(config_.fs->FaultPoint("after_commit_log"));
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
                     {"stateOperators", json::array()},
                     {"sources", sources},
                     {"sink", {{"description", sink_->Description()}, {"numOutputRows", output->num_rows()}}}};
  if (since_last > 0) report.progress["inputRowsPerSecond"] = num_input_rows / since_last;

  committed_ = seq.offsets;
  next_batch_id_ = batch_id + 1;
  return report;
}

}  // namespace sluice::runtime
