// The SQL entry point: a pipeline file -> queries ready to run as streams (`sluice run`) or as
// one-off batch jobs (`sluice batch`), or to explain. The same text gives the same plan in both
// modes except for the scans (readStream() vs read()), so both give the same rows.
//
//   SqlText text("pipeline.sql", contents);
//   ARROW_ASSIGN_OR_RAISE(auto pipeline, CompilePipeline(session, text, ExecutionMode::kStreaming));
//   // then run each query: src/cli/pipeline_launch.h (StartStreamingQuery, RunBatchQuery)
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
  bool describe = false;  // DESCRIBE t: `sluice batch` prints frame's columns instead of its rows
};

struct Pipeline {
  std::vector<PipelineQuery> queries;
};

/// Reads `text`, applies its SET statements to `session` (in file order; before any query is
/// built), and plans every query. Errors name the table, column, function, connector or
/// option at fault and its line:column in `text`.
Result<Pipeline> CompilePipeline(const std::shared_ptr<Session>& session, const SqlText& text, ExecutionMode mode);

}  // namespace sluice::sql
