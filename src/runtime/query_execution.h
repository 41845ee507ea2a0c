// A running query: the trigger loop on its own thread around a MicroBatchExecution, and the
// state the public StreamingQuery reads (active, error, progress, status). Thread-safe.
//
// Ownership: a QueryExecution is the handle (held by StreamingQuery objects and, once the query
// terminated, by the session's QueryRegistry). The trigger loop runs on a thread that shares
// ownership of the query's run state (QueryExecution::Run), never of the handle, so the thread
// never touches a destroyed object. Dropping the last handle stops the query and joins its
// thread; when that happens on the query's own thread (a listener or foreachBatch callback let
// go of it), the stop is only requested and the thread ends on its own.
//
// The query does not outlive what it writes into: it holds shared ownership of the session's
// memory tables, and Session's destructor stops and joins its queries (QueryRegistry::StopAll).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/query_config.h"
#include "sluice/streaming_query.h"

namespace sluice::runtime {

class QueryExecution {
 public:
  /// Opens the query synchronously (so a refused checkpoint or bad option is returned here,
  /// before any batch), registers it with the session (onQueryStarted), then starts the
  /// trigger loop on a new thread.
  static Result<std::shared_ptr<QueryExecution>> Start(QueryConfig config);
  ~QueryExecution();
  QueryExecution(const QueryExecution&) = delete;
  QueryExecution& operator=(const QueryExecution&) = delete;

  const std::string& id() const;
  const std::string& run_id() const;
  const std::string& name() const;
  bool IsActive() const;
  /// Requests the stop and waits for the batch in flight (not when called on the query thread).
  Status Stop();
  /// timeout_ms < 0 waits forever. Returns true when terminated.
  bool AwaitTermination(int64_t timeout_ms);
  Status ProcessAllAvailable();
  std::string LastProgress() const;
  std::vector<std::string> RecentProgress() const;
  QueryStatus CurrentStatus() const;
  std::optional<sluice::Status> Exception() const;

 private:
  /// The run state the query thread shares (defined in query_execution.cc).
  struct Run;
  explicit QueryExecution(std::shared_ptr<Run> run) : run_(std::move(run)) {}

  std::shared_ptr<Run> run_;
  std::thread thread_;
};

}  // namespace sluice::runtime
