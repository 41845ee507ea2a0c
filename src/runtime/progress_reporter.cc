#include "runtime/progress_reporter.h"

#include <algorithm>

#include "runtime/progress.h"

namespace sluice::runtime {

using nlohmann::json;

namespace {

json OffsetJson(const std::optional<source::Offset>& o) { return o ? *o : json(nullptr); }

// Spark's StateOperatorProgress. commitTimeMs: the batch's state commit, shared evenly.
json OperatorJson(const exec::OperatorProgress& op, int64_t commit_time_ms) {
  json out = {{"operatorName", op.operator_name},
          {"numRowsTotal", op.num_rows_total},
          {"numRowsUpdated", op.num_rows_updated},
          {"allUpdatesTimeMs", op.all_updates_time_ms},
          {"numRowsRemoved", op.num_rows_removed},
          {"allRemovalsTimeMs", op.all_removals_time_ms},
          {"commitTimeMs", commit_time_ms},
          {"memoryUsedBytes", op.memory_used_bytes},
          {"numRowsDroppedByWatermark", op.num_rows_dropped_by_watermark},
          {"numShufflePartitions", op.num_shuffle_partitions},
          {"numStateStoreInstances", op.num_state_store_instances}};
  if (!op.custom_metrics.empty()) out["customMetrics"] = op.custom_metrics;
  return out;
}

}  // namespace

PhaseTimer::PhaseTimer(std::function<int64_t()> clock_ms) : clock_ms_(std::move(clock_ms)), start_ms_(clock_ms_()) {}

int64_t PhaseTimer::Finish() {
  const int64_t end = clock_ms_();
  durations_["triggerExecution"] = end - start_ms_;
  return end;
}

ProgressReporter::ProgressReporter(std::string query_id, std::string run_id, std::string name)
    : query_id_(std::move(query_id)), run_id_(std::move(run_id)), name_(std::move(name)) {}

json ProgressReporter::Report(const BatchStats& b) {
  const double secs = std::max<int64_t>(b.end_ms - b.trigger_start_ms, 1) / 1000.0;
  const double since_last = last_trigger_start_ms_ > 0 ? (b.trigger_start_ms - last_trigger_start_ms_) / 1000.0 : 0.0;
  last_trigger_start_ms_ = b.trigger_start_ms;

  int64_t num_input_rows = 0;
  json sources = json::array();
  for (const auto& src : b.sources) {
    // The rows the source read, with those a pushed filter dropped while decoding.
    const int64_t rows = src.num_input_rows + src.metrics.last_batch_rows_filtered;
    num_input_rows += rows;
    json s = {{"description", src.description},
              {"startOffset", OffsetJson(src.start)},
              {"endOffset", OffsetJson(src.end)},
              {"latestOffset", OffsetJson(src.metrics.latest_offset ? src.metrics.latest_offset : src.end)},
              {"numInputRows", rows},
              {"processedRowsPerSecond", rows / secs}};
    // Spark: rows over the time since the previous trigger started; 0.0 on a run's first batch.
    s["inputRowsPerSecond"] = since_last > 0 ? rows / since_last : 0.0;
    s["metrics"] = {{"numMalformedRows", std::to_string(src.metrics.malformed_rows)}};
    if (src.metrics.files_outstanding >= 0) s["metrics"]["numFilesOutstanding"] = std::to_string(src.metrics.files_outstanding);
    for (const auto& [k, v] : src.metrics.custom) s["metrics"][k] = v;
    sources.push_back(std::move(s));
  }
  json state_ops = json::array();
  const int64_t commit_share =
      b.operators.empty() ? 0 : b.state_commit_ms / static_cast<int64_t>(b.operators.size());
  for (const auto& op : b.operators) state_ops.push_back(OperatorJson(op, commit_share));

  json durations = json::object();
  for (const auto& [key, ms] : b.durations) durations[key] = ms;
  json progress = {{"id", query_id_},
                   {"runId", run_id_},
                   {"name", name_.empty() ? json(nullptr) : json(name_)},
                   {"timestamp", IsoTimestamp(b.trigger_start_ms)},
                   {"batchId", b.batch_id},
                   {"batchDuration", b.end_ms - b.trigger_start_ms},
                   {"numInputRows", num_input_rows},
                   {"processedRowsPerSecond", num_input_rows / secs},
                   {"durationMs", durations},
                   {"stateOperators", state_ops},
                   {"sources", sources},
                   {"sink", {{"description", b.sink_description},
                             {"numOutputRows", b.num_output_rows},
                             {"metrics", json::object()}}},
                   {"observedMetrics", json::object()}};
  progress["inputRowsPerSecond"] = since_last > 0 ? num_input_rows / since_last : 0.0;
  progress["eventTime"] = json::object();  // Spark writes an empty map for a query without watermark
  if (b.batch_watermark_ms) {
    // Spark's eventTime map: the watermark this batch used; max/min/avg of its event times.
    json event_time = {{"watermark", IsoTimestamp(*b.batch_watermark_ms)}};
    exec::EventTimeStats all;
    for (const auto& st : b.event_time) {
      all.count += st.count;
      all.sum_ms += st.sum_ms;
      all.max_ms = std::max(all.max_ms, st.max_ms);
      all.min_ms = std::min(all.min_ms, st.min_ms);
    }
    if (all.count > 0) {
      event_time["avg"] = IsoTimestamp(static_cast<int64_t>(all.sum_ms / static_cast<double>(all.count)));
      event_time["max"] = IsoTimestamp(all.max_ms);
      event_time["min"] = IsoTimestamp(all.min_ms);
    }
    progress["eventTime"] = event_time;
  }
  return progress;
}

}  // namespace sluice::runtime
