// The SQL entry point: a pipeline file -> queries ready to run as streams (`sluice run`) or as
// one-off batch jobs (`sluice batch`), or to explain. The same text gives the same plan in both
// modes except for the scans (readStream() vs read()), so both give the same rows.
//
//   SqlText text("pipeline.sql", contents);
//   ARROW_ASSIGN_OR_RAISE(auto pipeline, CompilePipeline(session, text, ExecutionMode::kStreaming));
//   for (auto& q : pipeline.queries) ARROW_ASSIGN_OR_RAISE(auto running, StartStreamingQuery(q, options));
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/access.h"
#include "sluice/dataframe.h"
#include "sluice/session.h"
#include "sluice/streaming_query.h"
#include "sluice/trigger.h"
#include "plan/output_mode.h"
#include "sql/sql_connectors.h"
#include "sql/sql_text.h"

namespace sluice::sql {

enum class ExecutionMode { kStreaming, kBatch };

/// One INSERT INTO (or bare SELECT) of the file.
struct PipelineQuery {
  /// The sink table's name as written; "select_<k>" for the k-th bare SELECT (1-based).
  /// Names the query and its checkpoint directory.
  std::string name;
  std::string statement_where;  // "file.sql:5:1"
  DataFrame frame = api::MakeDataFrame(nullptr, Status::Invalid("query not planned"));
  SinkTarget sink;
};

struct Pipeline {
  std::vector<PipelineQuery> queries;
};

/// Reads `text`, applies its SET statements to `session` (in file order; before any query is
/// built), and plans every query. Errors name the table, column, function, connector or
/// option at fault and its line:column in `text`.
Result<Pipeline> CompilePipeline(const std::shared_ptr<Session>& session, const SqlText& text, ExecutionMode mode);

struct StreamOptions {
  /// Each query checkpoints in <checkpoint_root>/<query name>. Empty: no checkpoint (only the
  /// console and memory sinks accept that).
  std::string checkpoint_root;
  Trigger trigger = ProcessingTime(0);
  std::string output_mode = "append";
};

/// writeStream() for `query` with its sink's format and options; starts it.
Result<StreamingQuery> StartStreamingQuery(const PipelineQuery& query, const StreamOptions& options);

/// Runs a query compiled in batch mode over everything its source holds now. A file sink gets
/// plain files via write().mode(save_mode).save(path); a console or memory sink writes
/// nothing: the rows are returned for the caller to print.
struct BatchOutcome {
  std::shared_ptr<arrow::Table> rows;
  bool written = false;  // true when the rows went to files
};
Result<BatchOutcome> RunBatchQuery(const PipelineQuery& query, const std::string& save_mode, bool write_files);

/// The query's logical plan, its sink, and the verdict (plan, then sink) for each output mode (or just
/// `output_mode` when given), as `sluice explain` prints them.
std::string ExplainQuery(const PipelineQuery& query, const std::optional<plan::OutputMode>& output_mode);

}  // namespace sluice::sql
