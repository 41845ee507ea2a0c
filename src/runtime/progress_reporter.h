// Progress of a streaming query: the per-batch facts the protocol gathers (BatchStats, timed
// phase by phase with PhaseTimer) and the reporter that turns them into Spark's
// StreamingQueryProgress JSON (docs/progress.md). The protocol never builds JSON itself.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/stateful.h"
#include "source/source.h"

namespace sluice::runtime {

/// Times the phases of one trigger on the query's clock, under Spark's durationMs keys
/// (latestOffset, walCommit, getBatch, queryPlanning, addBatch, commitOffsets,
/// triggerExecution). Not thread-safe: one per trigger.
class PhaseTimer {
 public:
  /// Starts the trigger's clock (triggerExecution counts from here).
  explicit PhaseTimer(std::function<int64_t()> clock_ms);

  int64_t trigger_start_ms() const { return start_ms_; }
  /// Runs `phase` and adds its duration to `key` (a key timed twice sums up).
  template <typename Phase>
  auto Time(const char* key, Phase&& phase) {
    const int64_t start = clock_ms_();
    auto result = phase();
    durations_[key] += clock_ms_() - start;
    return result;
  }
  /// Records a phase sluice does not have as such (queryPlanning: plans are made once).
  void Record(const char* key, int64_t ms) { durations_[key] = ms; }
  /// Stops the trigger's clock: sets triggerExecution; returns the end time.
  int64_t Finish();
  const std::map<std::string, int64_t>& durations() const { return durations_; }

 private:
  std::function<int64_t()> clock_ms_;
  int64_t start_ms_;
  std::map<std::string, int64_t> durations_;
};

/// What one source contributed to a batch.
struct SourceStats {
  std::string description;
  std::optional<source::Offset> start;  // the previous batch's end
  std::optional<source::Offset> end;
  int64_t num_input_rows = 0;
  source::SourceMetrics metrics;
};

/// The facts of one batch that ran.
struct BatchStats {
  int64_t batch_id = 0;
  int64_t trigger_start_ms = 0;
  int64_t end_ms = 0;
  std::map<std::string, int64_t> durations;
  std::vector<SourceStats> sources;
  /// Per stateful operator (their progress roll-ups), and the time their state commit took.
  std::vector<exec::OperatorProgress> operators;
  int64_t state_commit_ms = 0;
  /// Set when the query has a watermark: the one this batch used, and the event times seen.
  std::optional<int64_t> batch_watermark_ms;
  std::vector<exec::EventTimeStats> event_time;
  std::string sink_description;
  int64_t num_output_rows = 0;
};

/// Builds StreamingQueryProgress JSON for one query run. Keeps the previous trigger's start
/// (for inputRowsPerSecond), so it is called once per batch, in order.
class ProgressReporter {
 public:
  ProgressReporter(std::string query_id, std::string run_id, std::string name);
  nlohmann::json Report(const BatchStats& batch);

 private:
  std::string query_id_;
  std::string run_id_;
  std::string name_;
  int64_t last_trigger_start_ms_ = 0;
};

}  // namespace sluice::runtime
