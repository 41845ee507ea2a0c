// The queries a session started (Spark's StreamingQueryManager): session->streams().
// Thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/listener.h"
#include "sluice/status.h"
#include "sluice/streaming_query.h"

namespace sluice {

namespace detail {
struct Access;  // the library's own access to the private parts below
}

class StreamingQueryManager {
 public:

  /// Queries of this session that are running.
  std::vector<StreamingQuery> active() const;
  /// A query of this session by id (active or terminated since the last resetTerminated()).
  std::optional<StreamingQuery> get(const std::string& id) const;
  /// Waits until any query terminated since the last resetTerminated(); returns its error if
  /// it failed. timeout_ms < 0 waits forever; returns false on timeout.
  Result<bool> awaitAnyTermination(int64_t timeout_ms = -1);
  /// Forgets terminated queries, so awaitAnyTermination() waits for a new one.
  void resetTerminated();

  void addListener(std::shared_ptr<StreamingQueryListener> listener);
  void removeListener(const std::shared_ptr<StreamingQueryListener>& listener);

 private:
  friend struct detail::Access;
  struct Impl;  // the session's query registry
  explicit StreamingQueryManager(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

  std::shared_ptr<Impl> impl_;
};

}  // namespace sluice
