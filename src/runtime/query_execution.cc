#include "runtime/query_execution.h"

#include <chrono>

#include "io/uuid.h"
#include "runtime/progress.h"
#include "runtime/query_registry.h"

namespace sluice::runtime {

namespace {
int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Result<std::shared_ptr<QueryExecution>> QueryExecution::Start(QueryConfig config) {
  std::shared_ptr<QueryExecution> q(new QueryExecution(std::move(config)));
  if (!q->config_.clock_ms) q->config_.clock_ms = SystemNowMs;
  q->run_id_ = io::RandomUuid();
  ARROW_ASSIGN_OR_RAISE(q->execution_, MicroBatchExecution::Open(q->config_, q->run_id_));
  q->id_ = q->execution_->query_id();
  if (q->config_.registry) {
    sluice::Status admitted = q->config_.registry->Admit(q, IsoTimestamp(q->config_.clock_ms()));
    if (!admitted.ok()) {
      q->execution_.reset();  // releases the checkpoint
      q->active_ = false;
      return admitted;
    }
  }
  q->thread_ = std::thread([raw = q.get()] { raw->RunLoop(); });
  return q;
}

QueryExecution::~QueryExecution() { (void)Stop(); }

void QueryExecution::RunLoop() { Finish(RunTriggers()); }

sluice::Status QueryExecution::RunTriggers() {
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
    if (config_.registry) {
      if (report.ran) config_.registry->OnProgress(report.progress.dump());
      if (post_idle) config_.registry->OnIdle(*this, IsoTimestamp(start));
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

bool QueryExecution::WaitUntil(int64_t deadline_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_requested_) {
    int64_t now = config_.clock_ms();
    if (now >= deadline_ms) return true;
    cv_.wait_for(lock, std::chrono::milliseconds(deadline_ms - now));
  }
  return false;
}

void QueryExecution::SetStatus(const std::string& message, bool trigger_active, std::optional<bool> data_available) {
  std::lock_guard<std::mutex> lock(mu_);
  status_.message = message;
  status_.isTriggerActive = trigger_active;
  if (data_available) status_.isDataAvailable = *data_available;
}

void QueryExecution::Finish(sluice::Status st) {
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
  if (config_.registry) config_.registry->OnTerminated(*this, error);
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_ = false;
  }
  cv_.notify_all();
}

bool QueryExecution::IsActive() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

sluice::Status QueryExecution::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  return sluice::Status::OK();
}

bool QueryExecution::AwaitTermination(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  if (timeout_ms < 0) {
    cv_.wait(lock, [&] { return !active_; });
    return true;
  }
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return !active_; });
}

sluice::Status QueryExecution::ProcessAllAvailable() {
  std::unique_lock<std::mutex> lock(mu_);
  // Wait for a trigger that started after this call and found nothing new.
  const int64_t started_before = triggers_started_;
  cv_.wait(lock, [&] { return !active_ || last_idle_trigger_ > started_before; });
  if (error_) return *error_;
  return sluice::Status::OK();
}

std::string QueryExecution::LastProgress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recent_progress_.empty() ? std::string() : recent_progress_.back();
}

std::vector<std::string> QueryExecution::RecentProgress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return {recent_progress_.begin(), recent_progress_.end()};
}

QueryStatus QueryExecution::CurrentStatus() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

std::optional<sluice::Status> QueryExecution::Exception() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace sluice::runtime
