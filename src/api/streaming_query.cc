#include "sluice/streaming_query.h"

#include <nlohmann/json.hpp>

#include "api/access.h"
#include "runtime/query_execution.h"

namespace sluice {

std::string StreamingQuery::id() const { return impl_->execution->id(); }
std::string StreamingQuery::runId() const { return impl_->execution->run_id(); }
std::string StreamingQuery::name() const { return impl_->execution->name(); }
bool StreamingQuery::isActive() const { return impl_->execution->IsActive(); }
Status StreamingQuery::stop() { return impl_->execution->Stop(); }

Status StreamingQuery::awaitTermination() {
  impl_->execution->AwaitTermination(-1);
  auto err = impl_->execution->Exception();
  return err ? *err : Status::OK();
}

Result<bool> StreamingQuery::awaitTermination(int64_t timeout_ms) {
  bool done = impl_->execution->AwaitTermination(timeout_ms);
  if (done) {
    auto err = impl_->execution->Exception();
    if (err) return *err;
  }
  return done;
}

Status StreamingQuery::processAllAvailable() { return impl_->execution->ProcessAllAvailable(); }
std::string StreamingQuery::lastProgress() const { return impl_->execution->LastProgress(); }
std::optional<Status> StreamingQuery::exception() const { return impl_->execution->Exception(); }
std::vector<std::string> StreamingQuery::recentProgress() const { return impl_->execution->RecentProgress(); }
QueryStatus StreamingQuery::status() const { return impl_->execution->CurrentStatus(); }

std::string QueryStatus::json() const {
  return nlohmann::json{{"message", message}, {"isDataAvailable", isDataAvailable}, {"isTriggerActive", isTriggerActive}}
      .dump();
}

}  // namespace sluice
