// `sluice batch PIPELINE.sql` and `sluice explain PIPELINE.sql`.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sluice::cli {

struct BatchArgs {
  std::string pipeline;
  std::string sql;          // -e: the pipeline's text given inline instead of a file
  bool print = false;       // print every query's rows instead of writing the sinks
  int64_t limit = -1;       // --limit: print at most this many rows of each query (-1: all)
  std::string mode = "error";  // write().mode(): error | overwrite | append | ignore
  std::vector<std::string> conf;
};

/// Runs every query of the file once over everything its source holds now: file sinks get
/// plain files (no streaming log), console sinks (and --print) a table on stdout. Exit status
/// 0, or 1 with the error on stderr.
int RunBatch(const BatchArgs& args);

struct ExplainArgs {
  std::string pipeline;
  std::optional<std::string> output_mode;
  std::vector<std::string> conf;
  /// --checkpoint: the `sluice run --checkpoint` root whose checkpoints a restart would continue.
  std::string checkpoint;
};

/// Prints each query's logical plan, sink and output-mode verdict; with a checkpoint root, also
/// what a restart on each query's checkpoint would keep, what changed and whether the restart
/// would be refused. Exit status 0, or 1 with the error on stderr (including a refused
/// --output-mode and a restart that would be refused).
int ExplainPipeline(const ExplainArgs& args);

}  // namespace sluice::cli
