#include "sluice/streaming_query.h"

#include <nlohmann/json.hpp>

#include "runtime/query_execution.h"

namespace sluice {

std::string StreamingQuery::id() const { return impl_->id(); }
std::string StreamingQuery::runId() const { return impl_->run_id(); }
std::string StreamingQuery::name() const { return impl_->name(); }
bool StreamingQuery::isActive() const { return impl_->IsActive(); }
Status StreamingQuery::stop() { return impl_->Stop(); }

Status StreamingQuery::awaitTermination() {
  impl_->AwaitTermination(-1);
  auto err = impl_->Exception();
  return err ? *err : Status::OK();
}

Result<bool> StreamingQuery::awaitTermination(int64_t timeout_ms) {
  bool done = impl_->AwaitTermination(timeout_ms);
  if (done) {
    auto err = impl_->Exception();
    if (err) return *err;
  }
  return done;
}

Status StreamingQuery::processAllAvailable() { return impl_->ProcessAllAvailable(); }
std::string StreamingQuery::lastProgress() const { return impl_->LastProgress(); }
std::optional<Status> StreamingQuery::exception() const { return impl_->Exception(); }
std::vector<std::string> StreamingQuery::recentProgress() const { return impl_->RecentProgress(); }
QueryStatus StreamingQuery::status() const { return impl_->CurrentStatus(); }

std::string QueryStatus::json() const {
  return nlohmann::json{{"message", message}, {"isDataAvailable", isDataAvailable}, {"isTriggerActive", isTriggerActive}}
      .dump();
}

}  // namespace sluice
