#include "sluice/query_manager.h"

#include "runtime/query_execution.h"
#include "runtime/query_registry.h"

namespace sluice {

std::vector<StreamingQuery> StreamingQueryManager::active() const {
  std::vector<StreamingQuery> out;
  for (auto& q : registry_->Active()) out.emplace_back(q);
  return out;
}

std::optional<StreamingQuery> StreamingQueryManager::get(const std::string& id) const {
  auto q = registry_->Get(id);
  if (!q) return std::nullopt;
  return StreamingQuery(q);
}

Result<bool> StreamingQueryManager::awaitAnyTermination(int64_t timeout_ms) {
  std::optional<Status> error;
  if (!registry_->AwaitAnyTermination(timeout_ms, &error)) return false;
  if (error) return *error;
  return true;
}

void StreamingQueryManager::resetTerminated() { registry_->ResetTerminated(); }

void StreamingQueryManager::addListener(std::shared_ptr<StreamingQueryListener> listener) {
  registry_->AddListener(std::move(listener));
}

void StreamingQueryManager::removeListener(const std::shared_ptr<StreamingQueryListener>& listener) {
  registry_->RemoveListener(listener);
}

}  // namespace sluice
