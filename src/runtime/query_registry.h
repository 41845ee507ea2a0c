// The session's running and recently terminated queries, and its listeners. Queries report
// their lifecycle here; StreamingQueryManager reads it. Thread-safe.
//
// Ownership: the session owns its registry; a query refers to it weakly (QueryConfig::registry),
// so a registry keeping terminated queries (strongly, for get()) forms no cycle with them.
// Active queries are held weakly: their StreamingQuery handles own them.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sluice/listener.h"
#include "sluice/status.h"

namespace sluice::runtime {

class QueryExecution;

class QueryRegistry {
 public:
  /// Admits a query that opened its checkpoint: refuses a second active query with the same id
  /// or the same name, then posts onQueryStarted. Called on the thread calling start().
  Status Admit(const std::shared_ptr<QueryExecution>& query, const std::string& timestamp);
  void OnProgress(const std::string& progress_json);
  void OnIdle(const std::string& id, const std::string& run_id, const std::string& timestamp);
  /// Moves the query from active to terminated and posts onQueryTerminated. Called on the
  /// query's thread, after it released its checkpoint.
  void OnTerminated(const std::string& id, const std::string& run_id, const std::optional<Status>& error);
  /// Stops every active query and waits for each (the session is going away). A query whose
  /// own thread calls this is only asked to stop.
  void StopAll();

  std::vector<std::shared_ptr<QueryExecution>> Active() const;
  std::shared_ptr<QueryExecution> Get(const std::string& id) const;
  /// True when a query terminated (since the last reset) within the timeout; sets `error`
  /// to the first such query's error.
  bool AwaitAnyTermination(int64_t timeout_ms, std::optional<Status>* error);
  void ResetTerminated();

  void AddListener(std::shared_ptr<StreamingQueryListener> listener);
  void RemoveListener(const std::shared_ptr<StreamingQueryListener>& listener);

 private:
  std::vector<std::shared_ptr<StreamingQueryListener>> Listeners() const;

  mutable std::mutex mu_;
  std::condition_variable terminated_cv_;
  std::map<std::string, std::weak_ptr<QueryExecution>> active_;  // by query id
  std::map<std::string, std::shared_ptr<QueryExecution>> terminated_;
  std::optional<std::optional<Status>> first_termination_;  // set once per reset
  std::vector<std::shared_ptr<StreamingQueryListener>> listeners_;
};

}  // namespace sluice::runtime
