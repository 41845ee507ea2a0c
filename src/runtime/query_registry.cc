#include "runtime/query_registry.h"

#include <algorithm>
#include <chrono>

#include "runtime/query_execution.h"

namespace sluice::runtime {

Status QueryRegistry::Admit(const std::shared_ptr<QueryExecution>& query, const std::string& timestamp) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = active_.begin(); it != active_.end();) {
      auto other = it->second.lock();
      if (!other || !other->IsActive()) {
        it = active_.erase(it);
        continue;
      }
      if (other->id() == query->id()) {
        return Status::Invalid("Cannot start query with id ", query->id(),
                               " as another query with the same id is already active in this session. "
                               "Perhaps you are restarting a query from a checkpoint that is still in use.");
      }
      if (!query->name().empty() && other->name() == query->name()) {
        return Status::Invalid("Cannot start query with name '", query->name(),
                               "' as a query with that name is already active in this session");
      }
      ++it;
    }
    active_[query->id()] = query;
    terminated_.erase(query->id());
  }
  StreamingQueryListener::QueryStartedEvent event{query->id(), query->run_id(), query->name(), timestamp};
  for (const auto& l : Listeners()) l->onQueryStarted(event);
  return Status::OK();
}

void QueryRegistry::OnProgress(const std::string& progress_json) {
  StreamingQueryListener::QueryProgressEvent event{progress_json};
  for (const auto& l : Listeners()) l->onQueryProgress(event);
}

void QueryRegistry::OnIdle(const std::string& id, const std::string& run_id, const std::string& timestamp) {
  StreamingQueryListener::QueryIdleEvent event{id, run_id, timestamp};
  for (const auto& l : Listeners()) l->onQueryIdle(event);
}

void QueryRegistry::OnTerminated(const std::string& id, const std::string& run_id,
                                 const std::optional<Status>& error) {
  StreamingQueryListener::QueryTerminatedEvent event{id, run_id, std::nullopt};
  if (error) event.exception = error->ToString();
  for (const auto& l : Listeners()) l->onQueryTerminated(event);
  std::shared_ptr<QueryExecution> kept;  // released outside the lock: it may be the last handle
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = active_.find(id);
    if (it != active_.end()) {
      kept = it->second.lock();
      if (kept) terminated_[id] = kept;
      active_.erase(it);
    }
    if (!first_termination_) first_termination_ = error;
  }
  terminated_cv_.notify_all();
}

void QueryRegistry::StopAll() {
  for (const auto& q : Active()) (void)q->Stop();
}

std::vector<std::shared_ptr<QueryExecution>> QueryRegistry::Active() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::shared_ptr<QueryExecution>> out;
  for (const auto& [id, weak] : active_) {
    if (auto q = weak.lock()) out.push_back(q);
  }
  return out;
}

std::shared_ptr<QueryExecution> QueryRegistry::Get(const std::string& id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = active_.find(id);
  if (it != active_.end()) return it->second.lock();
  auto t = terminated_.find(id);
  return t == terminated_.end() ? nullptr : t->second;
}

bool QueryRegistry::AwaitAnyTermination(int64_t timeout_ms, std::optional<Status>* error) {
  std::unique_lock<std::mutex> lock(mu_);
  auto done = [&] { return first_termination_.has_value(); };
  if (timeout_ms < 0) {
    terminated_cv_.wait(lock, done);
  } else if (!terminated_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), done)) {
    return false;
  }
  *error = *first_termination_;
  return true;
}

void QueryRegistry::ResetTerminated() {
  std::lock_guard<std::mutex> lock(mu_);
  terminated_.clear();
  first_termination_.reset();
}

void QueryRegistry::AddListener(std::shared_ptr<StreamingQueryListener> listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listeners_.push_back(std::move(listener));
}

void QueryRegistry::RemoveListener(const std::shared_ptr<StreamingQueryListener>& listener) {
  std::lock_guard<std::mutex> lock(mu_);
  listeners_.erase(std::remove(listeners_.begin(), listeners_.end(), listener), listeners_.end());
}

std::vector<std::shared_ptr<StreamingQueryListener>> QueryRegistry::Listeners() const {
  std::lock_guard<std::mutex> lock(mu_);
  return listeners_;
}

}  // namespace sluice::runtime
