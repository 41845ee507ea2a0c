#include "sluice/query_manager.h"

#include "api/access.h"
#include "runtime/query_execution.h"
#include "runtime/query_registry.h"

namespace sluice {

std::vector<StreamingQuery> StreamingQueryManager::active() const {
  std::vector<StreamingQuery> out;
  for (auto& q : impl_->registry->Active()) out.push_back(detail::Access::MakeQuery(q));
  return out;
}

std::optional<StreamingQuery> StreamingQueryManager::get(const std::string& id) const {
  auto q = impl_->registry->Get(id);
  if (!q) return std::nullopt;
  return detail::Access::MakeQuery(q);
}

Result<bool> StreamingQueryManager::awaitAnyTermination(int64_t timeout_ms) {
  std::optional<Status> error;
  if (!impl_->registry->AwaitAnyTermination(timeout_ms, &error)) return false;
  if (error) return *error;
  return true;
}

void StreamingQueryManager::resetTerminated() { impl_->registry->ResetTerminated(); }

void StreamingQueryManager::addListener(std::shared_ptr<StreamingQueryListener> listener) {
  impl_->registry->AddListener(std::move(listener));
}

void StreamingQueryManager::removeListener(const std::shared_ptr<StreamingQueryListener>& listener) {
  impl_->registry->RemoveListener(listener);
}

}  // namespace sluice
