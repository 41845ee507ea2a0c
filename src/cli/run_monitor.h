// What `sluice run` shows while queries run: a live status line on a terminal (batch, rows,
// rows/s per query), one plain line per batch otherwise, and --progress FILE (each batch's
// StreamingQueryProgress JSON appended as one line). A listener on the session's queries.
#pragma once

#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>

#include "sluice/listener.h"
#include "sluice/status.h"

namespace sluice::cli {

class RunMonitor : public StreamingQueryListener {
 public:
  /// `progress_path` empty: no progress file. `live`: redraw one status line on `out` (a
  /// terminal); otherwise print a line per batch.
  static Result<std::shared_ptr<RunMonitor>> Make(const std::string& progress_path, bool live, std::ostream* out);

  /// Called on each query's thread after its batch commits; serialized here.
  void onQueryProgress(const QueryProgressEvent& event) override;
  /// A trigger found no new data: one {"event":"QueryIdleEvent","id","runId","timestamp"} line
  /// in the progress file (spaced by sluice.sql.streaming.noDataProgressEventInterval).
  void onQueryIdle(const QueryIdleEvent& event) override;
  /// Ends the live line (a final newline) and flushes the progress file. Call once, after the
  /// queries stopped.
  void Finish();

 private:
  RunMonitor(bool live, std::ostream* out) : live_(live), out_(out) {}

  struct QueryLine {
    int64_t batch = -1;
    int64_t total_rows = 0;
    double rows_per_second = 0;
    int64_t files_pending = -1;  // -1: no file source
  };

  std::mutex mu_;
  bool live_;
  std::ostream* out_;
  std::ofstream progress_;
  std::map<std::string, QueryLine> queries_;  // by query name
  bool drew_live_line_ = false;
};

}  // namespace sluice::cli
