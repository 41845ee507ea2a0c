#include "runtime/query_execution.h"

#include <chrono>

#include "io/uuid.h"

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
  q->thread_ = std::thread([raw = q.get()] { raw->RunLoop(); });
  return q;
}

QueryExecution::~QueryExecution() {
  (void)Stop();
}

void QueryExecution::RunLoop() { Finish(RunTriggers()); }

Status QueryExecution::RunTriggers() {
  const Trigger trigger = config_.trigger;
  if (trigger.kind == Trigger::Kind::kAvailableNow) ARROW_RETURN_NOT_OK(execution_->PrepareForAvailableNow());
  while (true) {
    int64_t seq;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_requested_) return Status::OK();
      seq = ++triggers_started_;
    }
    const int64_t start = config_.clock_ms();
    const bool limited = trigger.kind != Trigger::Kind::kOnce;
    ARROW_ASSIGN_OR_RAISE(BatchReport report, execution_->RunOneTrigger(limited));
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (report.ran) {
        last_progress_ = report.progress.dump();
      } else {
        last_idle_trigger_ = seq;
      }
    }
    cv_.notify_all();
    switch (trigger.kind) {
      case Trigger::Kind::kOnce:
        // A restart's re-run of an uncommitted batch is the one batch.
        return Status::OK();
      case Trigger::Kind::kAvailableNow:
        if (!report.ran && !execution_->has_pending_redo()) return Status::OK();
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
        if (deadline > 0 && !WaitUntil(deadline)) return Status::OK();
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

void QueryExecution::Finish(Status st) {
  // Release the checkpoint lock and sources before reporting termination, so a restart
  // right after awaitTermination() can take the checkpoint.
  execution_.reset();
  if (st.ok() && config_.temporary_checkpoint) (void)config_.fs->DeleteTree(config_.checkpoint_dir);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!st.ok()) error_ = st;
    active_ = false;
  }
  cv_.notify_all();
}

bool QueryExecution::IsActive() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

Status QueryExecution::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  return Status::OK();
}

bool QueryExecution::AwaitTermination(int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  if (timeout_ms < 0) {
    cv_.wait(lock, [&] { return !active_; });
    return true;
  }
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return !active_; });
}

Status QueryExecution::ProcessAllAvailable() {
  std::unique_lock<std::mutex> lock(mu_);
  // Wait for a trigger that started after this call and found nothing new.
  const int64_t started_before = triggers_started_;
  cv_.wait(lock, [&] { return !active_ || last_idle_trigger_ > started_before; });
  if (error_) return *error_;
  return Status::OK();
}

std::string QueryExecution::LastProgress() const {
  std::lock_guard<std::mutex> lock(mu_);
  return last_progress_;
}

std::optional<Status> QueryExecution::Exception() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

}  // namespace sluice::runtime
