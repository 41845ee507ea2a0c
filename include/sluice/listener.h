// Streaming query events (Spark's StreamingQueryListener). Register with
// session->streams().addListener(...). onQueryStarted is called on the thread that calls
// start(), before start() returns; the other events on the query's own thread, in order, one
// query at a time per listener call. Keep callbacks short: a batch waits for them.
#pragma once

#include <optional>
#include <string>

namespace sluice {

class StreamingQueryListener {
 public:
  struct QueryStartedEvent {
    std::string id, runId, name, timestamp;  // name empty when unset
  };
  struct QueryProgressEvent {
    std::string progress;  // the StreamingQueryProgress JSON, as lastProgress()
  };
  struct QueryIdleEvent {
    std::string id, runId, timestamp;
  };
  struct QueryTerminatedEvent {
    std::string id, runId;
    std::optional<std::string> exception;  // the error, when the query failed
  };

  virtual ~StreamingQueryListener() = default;
  virtual void onQueryStarted(const QueryStartedEvent& /*event*/) {}
  virtual void onQueryProgress(const QueryProgressEvent& /*event*/) {}
  /// A trigger found no new data (at most once per noDataProgressEventInterval, 10 s by default).
  virtual void onQueryIdle(const QueryIdleEvent& /*event*/) {}
  virtual void onQueryTerminated(const QueryTerminatedEvent& /*event*/) {}
};

}  // namespace sluice
