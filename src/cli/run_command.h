// `sluice run PIPELINE.sql`: every INSERT INTO (and bare SELECT) of the file as a streaming
// query, all at once; returns when all have ended. SIGINT/SIGTERM stop every query after its
// batch in flight (the checkpoints stay consistent) and count as success.
#pragma once

#include <string>
#include <vector>

namespace sluice::cli {

struct RunArgs {
  std::string pipeline;
  std::string checkpoint;  // each query checkpoints in <checkpoint>/<sink table name>
  std::string trigger = "processing-time";
  std::string output_mode = "append";
  std::vector<std::string> conf;
  std::string progress_file;
  bool stats = false;  // on exit: one line `stats: {"fileSyncs":N,"dirSyncs":M}` on stderr
};

/// The process exit status: 0 when every query finished or was stopped by a signal; 1 when a
/// query was refused or failed (the error is printed on stderr; the other queries are stopped).
int RunPipeline(const RunArgs& args);

}  // namespace sluice::cli
