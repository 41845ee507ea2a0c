// A running query: the trigger loop on its own thread around a MicroBatchExecution, and the
// state the public StreamingQuery reads (active, error, progress, status). Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/micro_batch_execution.h"
#include "runtime/query_config.h"
#include "sluice/streaming_query.h"

namespace sluice::runtime {

class QueryExecution {
 public:
  /// Opens the query synchronously (so a refused checkpoint or bad option is returned here,
  /// before any batch), registers it with the session (onQueryStarted), then starts the
  /// trigger loop on a new thread.
  static Result<std::shared_ptr<QueryExecution>> Start(QueryConfig config);
  ~QueryExecution();

  const std::string& id() const { return id_; }
  const std::string& run_id() const { return run_id_; }
  const std::string& name() const { return config_.name; }
  bool IsActive() const;
  Status Stop();
  /// timeout_ms < 0 waits forever. Returns true when terminated.
  bool AwaitTermination(int64_t timeout_ms);
  Status ProcessAllAvailable();
  std::string LastProgress() const;
  std::vector<std::string> RecentProgress() const;
  QueryStatus CurrentStatus() const;
  std::optional<sluice::Status> Exception() const;

 private:
  explicit QueryExecution(QueryConfig config) : config_(std::move(config)) {}
  void RunLoop();
  /// Runs triggers per the trigger kind until it says stop; returns the error that ended it.
  sluice::Status RunTriggers();
  /// Sleeps until `deadline_ms` or until stop is requested. Returns false if stopping.
  bool WaitUntil(int64_t deadline_ms);
  void SetStatus(const std::string& message, bool trigger_active, std::optional<bool> data_available = {});
  void Finish(sluice::Status st);

  QueryConfig config_;
  std::string id_;
  std::string run_id_;
  std::unique_ptr<MicroBatchExecution> execution_;
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_requested_ = false;
  bool active_ = true;
  std::optional<sluice::Status> error_;
  std::deque<std::string> recent_progress_;
  QueryStatus status_{"Initializing sources", false, false};
  /// Triggers are numbered as they start; the number of the latest one that found no new data
  /// (processAllAvailable waits for one that started after its call).
  int64_t triggers_started_ = 0;
  int64_t last_idle_trigger_ = 0;
  int64_t last_idle_event_ms_ = 0;
};

}  // namespace sluice::runtime
