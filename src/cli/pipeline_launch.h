// Running what sql::CompilePipeline planned: each query of a pipeline file started as a stream
// (`sluice run`), run once as a batch job (`sluice batch`), or explained (`sluice explain`).
// The SQL layer only plans; launching lives here, with the commands that launch.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/table.h>

#include "plan/output_mode.h"
#include "sluice/streaming_query.h"
#include "sluice/trigger.h"
#include "sql/sql_pipeline.h"

namespace sluice::cli {

struct StreamOptions {
  /// Each query checkpoints in <checkpoint_root>/<query name>. Empty: no checkpoint (only the
  /// console and memory sinks accept that).
  std::string checkpoint_root;
  Trigger trigger = ProcessingTime(0);
  std::string output_mode = "append";
  /// The names of every query of the pipeline: a checkpoint under the root that belongs to none
  /// of them (e.g. of a sink table since renamed) is named in a refusal's message.
  std::vector<std::string> pipeline_query_names{};
};

/// writeStream() for `query` with its sink's format and options; starts it.
Result<StreamingQuery> StartStreamingQuery(const sql::PipelineQuery& query, const StreamOptions& options);

/// Runs a query compiled in batch mode over everything its source holds now. A file sink gets
/// plain files via write().mode(save_mode).save(path); a console or memory sink writes
/// nothing: the rows are returned for the caller to print.
struct BatchOutcome {
  std::shared_ptr<arrow::Table> rows;
  bool written = false;  // true when the rows went to files
};
Result<BatchOutcome> RunBatchQuery(const sql::PipelineQuery& query, const std::string& save_mode, bool write_files);

/// The query's logical plan, its sink, and the verdict (plan, then sink) for each output mode (or just
/// `output_mode` when given), as `sluice explain` prints them.
std::string ExplainQuery(const sql::PipelineQuery& query, const std::optional<plan::OutputMode>& output_mode);

/// For `sluice explain --checkpoint`: what starting `query` on its checkpoint under
/// options.checkpoint_root would keep, what changed, and whether the start would be refused
/// (then `*refused` is set). The verdict is the engine's own start check; nothing is written.
Result<std::string> ExplainRestart(const sql::PipelineQuery& query, const StreamOptions& options, bool* refused);

}  // namespace sluice::cli
