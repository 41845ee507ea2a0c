#include "runtime/query_execution.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "io/uuid.h"
#include "runtime/micro_batch_execution.h"
#include "runtime/progress.h"
#include "runtime/query_registry.h"
#include "util/compute_init.h"

namespace sluice::runtime {

namespace {
int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

// Everything the query thread uses. Shared by the handle and the thread; the thread's share
// keeps it alive until the loop has finished, whatever happens to the handle.
struct QueryExecution::Run {
  explicit Run(QueryConfig config) : config_(std::move(config)) {}

  void RunLoop() { Finish(RunTriggers()); }
  /// Runs triggers per the trigger kind until it says stop; returns the error that ended it.
  sluice::Status RunTriggers();
  /// Sleeps until `deadline_ms` or until stop is requested. Returns false if stopping.
  bool WaitUntil(int64_t deadline_ms);
  void SetStatus(const std::string& message, bool trigger_active, std::optional<bool> data_available = {});
  void Finish(sluice::Status st);
  void RequestStop();

  QueryConfig config_;
  std::string id_;
  std::string run_id_;
  std::unique_ptr<MicroBatchExecution> execution_;

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

Result<std::shared_ptr<QueryExecution>> QueryExecution::Start(QueryConfig config) {
  // Arrow's kernels are registered here, on the caller's thread, before the query's threads
  // exist: the registration makes thousands of small allocations, and on a thread of its own its
  // heap grows by mprotect, which holds the process's memory map lock while the threads
  // decoding the first batch wait on it for their page faults (~0.1 s measured).
  ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
  auto run = std::make_shared<Run>(std::move(config));
  if (!run->config_.clock_ms) run->config_.clock_ms = SystemNowMs;
  run->run_id_ = io::RandomUuid();
  ARROW_ASSIGN_OR_RAISE(run->execution_, MicroBatchExecution::Open(run->config_, run->run_id_));
  run->id_ = run->execution_->query_id();
  std::shared_ptr<QueryExecution> q(new QueryExecution(run));
  if (auto registry = run->config_.registry.lock()) {
    sluice::Status admitted = registry->Admit(q, IsoTimestamp(run->config_.clock_ms()));
    if (!admitted.ok()) {
      run->execution_.reset();  // releases the checkpoint
      run->active_ = false;
      return admitted;
    }
  }
  q->thread_ = std::thread([run] { run->RunLoop(); });
  return q;
}

QueryExecution::~QueryExecution() {
  run_->RequestStop();
  if (!thread_.joinable()) return;
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();  // the thread holds its own share of run_ and ends after this trigger
  } else {
    thread_.join();
  }
}

sluice::Status QueryExecution::Run::RunTriggers() {
  const Trigger trigger = config_.trigger;
  if (trigger.kind == Trigger::Kind::kAvailableNow) ARROW_RETURN_NOT_OK(execution_->PrepareForAvailableNow());
  while (true) {
    int64_t seq;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_requested_) return sluice::Status::OK();
      seq = ++triggers_started_;
    }
    SetStatus("Getting offsets and processing new data", true);
    const int64_t start = config_.clock_ms();
    const bool limited = trigger.kind != Trigger::Kind::kOnce;
    ARROW_ASSIGN_OR_RAISE(BatchReport report, execution_->RunOneTrigger(limited));
    bool post_idle = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (report.ran) {
        recent_progress_.push_back(report.progress.dump());
        while (static_cast<int>(recent_progress_.size()) > std::max(config_.num_recent_progress, 1)) {
          recent_progress_.pop_front();
        }
      } else {
        last_idle_trigger_ = seq;
        // Idle events belong to continuous runs; availableNow and once end on their empty trigger.
        if (trigger.kind == Trigger::Kind::kProcessingTime &&
            start - last_idle_event_ms_ >= config_.no_data_progress_interval_ms) {
          last_idle_event_ms_ = start;
          post_idle = true;
        }
      }
    }
    SetStatus(report.ran ? "Processing new data" : "Waiting for data to arrive", false, report.ran);
    if (auto registry = config_.registry.lock()) {
      if (report.ran) registry->OnProgress(report.progress.dump());
      if (post_idle) registry->OnIdle(id_, run_id_, IsoTimestamp(start));
    }
    cv_.notify_all();
    switch (trigger.kind) {
      case Trigger::Kind::kOnce:
        // Exactly one batch, as Spark's Trigger.Once: a restart's re-run of an uncommitted
        // batch, else the new data, else a no-data batch if the watermark moved. Windows the
        // final watermark closes are emitted by the next run's first batch.
        return sluice::Status::OK();
      case Trigger::Kind::kAvailableNow:
        if (!report.ran && !execution_->has_pending_redo()) return sluice::Status::OK();
        break;
      case Trigger::Kind::kProcessingTime: {
        const int64_t interval = trigger.interval_ms;
        int64_t deadline;
        if (interval <= 0) {
          deadline = report.ran ? 0 : config_.clock_ms() + 10;  // poll for new data every 10 ms
        } else {
          // The next slot; an overrunning batch is followed at once (missed slots are skipped).
          deadline = (start / interval) * interval + interval;
        }
        if (deadline > 0 && !WaitUntil(deadline)) return sluice::Status::OK();
        break;
      }
    }
  }
}

bool QueryExecution::Run::WaitUntil(int64_t deadline_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_requested_) {
    int64_t now = config_.clock_ms();
    if (now >= deadline_ms) return true;
    cv_.wait_for(lock, std::chrono::milliseconds(deadline_ms - now));
  }
  return false;
}

void QueryExecution::Run::SetStatus(const std::string& message, bool trigger_active, std::optional<bool> data_available) {
  std::lock_guard<std::mutex> lock(mu_);
  status_.message = message;
  status_.isTriggerActive = trigger_active;
  if (data_available) status_.isDataAvailable = *data_available;
}

void QueryExecution::Run::Finish(sluice::Status st) {
  // Release the checkpoint lock and sources before reporting termination, so a restart
  // right after awaitTermination() can take the checkpoint.
  execution_.reset();
  if (st.ok() && config_.temporary_checkpoint) (void)config_.fs->DeleteTree(config_.checkpoint_dir);
  std::optional<sluice::Status> error;
  if (!st.ok()) error = st;
  {
    std::lock_guard<std::mutex> lock(mu_);
    error_ = error;
    status_ = QueryStatus{"Stopped", false, false};
  }
  // The foreachBatch function may own the session (and so, through its registry, this run):
  // a terminated query lets go of it.
  config_.sink.foreach_batch = nullptr;
  if (auto registry = config_.registry.lock()) registry->OnTerminated(id_, run_id_, error);
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_ = false;
  }
  cv_.notify_all();
}

void QueryExecution::Run::RequestStop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = true;
  }
  cv_.notify_all();
}

const std::string& QueryExecution::id() const { return run_->id_; }
const std::string& QueryExecution::run_id() const { return run_->run_id_; }
const std::string& QueryExecution::name() const { return run_->config_.name; }

bool QueryExecution::IsActive() const {
  std::lock_guard<std::mutex> lock(run_->mu_);
  return run_->active_;
}

sluice::Status QueryExecution::Stop() {
  run_->RequestStop();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  return sluice::Status::OK();
}

bool QueryExecution::AwaitTermination(int64_t timeout_ms) {
  Run& r = *run_;
  std::unique_lock<std::mutex> lock(r.mu_);
  if (timeout_ms < 0) {
    r.cv_.wait(lock, [&] { return !r.active_; });
    return true;
  }
  return r.cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return !r.active_; });
}

sluice::Status QueryExecution::ProcessAllAvailable() {
  Run& r = *run_;
  std::unique_lock<std::mutex> lock(r.mu_);
  // Wait for a trigger that started after this call and found nothing new.
  const int64_t started_before = r.triggers_started_;
  r.cv_.wait(lock, [&] { return !r.active_ || r.last_idle_trigger_ > started_before; });
  if (r.error_) return *r.error_;
  return sluice::Status::OK();
}

std::string QueryExecution::LastProgress() const {
  std::lock_guard<std::mutex> lock(run_->mu_);
  return run_->recent_progress_.empty() ? std::string() : run_->recent_progress_.back();
}

std::vector<std::string> QueryExecution::RecentProgress() const {
  std::lock_guard<std::mutex> lock(run_->mu_);
  return {run_->recent_progress_.begin(), run_->recent_progress_.end()};
}

QueryStatus QueryExecution::CurrentStatus() const {
  std::lock_guard<std::mutex> lock(run_->mu_);
  return run_->status_;
}

std::optional<sluice::Status> QueryExecution::Exception() const {
  std::lock_guard<std::mutex> lock(run_->mu_);
  return run_->error_;
}

}  // namespace sluice::runtime
