// A running streaming query. Thread-safe: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/status.h"

namespace sluice {

namespace detail {
struct Access;  // the library's own access to the private parts below
}

/// What a query is doing now (Spark's StreamingQueryStatus).
struct QueryStatus {
  std::string message;  // e.g. "Waiting for data to arrive", "Processing new data", "Stopped"
  bool isDataAvailable = false;
  bool isTriggerActive = false;
  std::string json() const;
};

/// A handle on a query. Copies share the query; when the last handle (and the session's record
/// of it, kept once it terminated) goes away, the query is stopped. Destroying the Session
/// stops its queries too.
class StreamingQuery {
 public:

  /// Persistent id, kept in the checkpoint across restarts.
  std::string id() const;
  /// New for every start.
  std::string runId() const;
  std::string name() const;
  bool isActive() const;

  /// Stops after the batch in flight (the checkpoint stays consistent) and waits for it.
  Status stop();
  /// Waits until the query ends; returns its error if it failed.
  Status awaitTermination();
  /// Waits at most `timeout_ms`; returns true if the query ended (its error, if any, is in
  /// exception()).
  Result<bool> awaitTermination(int64_t timeout_ms);
  /// Blocks until every source's data available at the time of the call is processed and
  /// committed (for tests). Returns the query's error if it fails meanwhile.
  Status processAllAvailable();
  /// The last batch's progress as JSON (Spark's StreamingQueryProgress field names); empty
  /// before the first batch.
  std::string lastProgress() const;
  /// The progress of the most recent batches, oldest first (at most
  /// sluice.sql.streaming.numRecentProgressUpdates, default 100).
  std::vector<std::string> recentProgress() const;
  QueryStatus status() const;
  /// The error that stopped the query, if any.
  std::optional<Status> exception() const;

 private:
  friend struct detail::Access;
  struct Impl;  // the running query
  explicit StreamingQuery(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

  std::shared_ptr<Impl> impl_;
};

}  // namespace sluice
