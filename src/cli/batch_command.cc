#include "cli/batch_command.h"

#include <arrow/api.h>

#include <algorithm>
#include <cctype>
#include <iostream>

#include "api/access.h"
#include "cli/pipeline_options.h"
#include "plan/logical_plan.h"
#include "plan/output_mode.h"
#include "sink/console_sink.h"
#include "cli/pipeline_launch.h"
#include "sql/sql_pipeline.h"
#include "util/log.h"

namespace sluice::cli {
namespace {

Result<sql::Pipeline> Compile(const sql::SqlText& text, const std::vector<std::string>& conf, sql::ExecutionMode mode) {
  auto session = Session::Make();
  ARROW_ASSIGN_OR_RAISE(auto pipeline, sql::CompilePipeline(session, text, mode));
  ARROW_RETURN_NOT_OK(ApplyConf(conf, session.get()));
  return pipeline;
}

Result<sql::Pipeline> Compile(const std::string& path, const std::vector<std::string>& conf, sql::ExecutionMode mode) {
  ARROW_ASSIGN_OR_RAISE(auto text, ReadPipelineFile(path));
  return Compile(text, conf, mode);
}

}  // namespace

int RunBatch(const BatchArgs& args) {
  if (args.pipeline.empty() == args.sql.empty()) {
    return ReportFailure(Status::Invalid("sluice batch: give either a pipeline file or -e \"SQL\", not ",
                                         args.sql.empty() ? "neither" : "both"));
  }
  if (args.limit < -1) return ReportFailure(Status::Invalid("sluice batch: --limit must be >= 0, not ", args.limit));
  auto pipeline = args.sql.empty() ? Compile(args.pipeline, args.conf, sql::ExecutionMode::kBatch)
                                   : Compile(sql::SqlText("-e", args.sql), args.conf, sql::ExecutionMode::kBatch);
  if (!pipeline.ok()) return ReportFailure(pipeline.status());
  for (const auto& q : pipeline->queries) {
    if (q.describe) {
      // The columns, and the same as a CREATE TABLE column list (what a `()` table inferred).
      const auto& schema = *q.frame.schema();
      std::string ddl;
      std::cout << "== " << q.name << ": DESCRIBE (" << schema.num_fields() << " columns) ==\n";
      for (const auto& f : schema.fields()) {
        std::string type = plan::TypeName(*f->type());
        std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::toupper(c); });
        const std::string column = f->name() + " " + type + (f->nullable() ? "" : " NOT NULL");
        std::cout << column << "\n";
        ddl += (ddl.empty() ? "" : ", ") + column;
      }
      std::cout << "-- as DDL: (" << ddl << ")\n" << std::flush;
      continue;
    }
    auto outcome = cli::RunBatchQuery(q, args.mode, /*write_files=*/!args.print);
    if (!outcome.ok()) return ReportFailure(outcome.status());
    if (outcome->written) {
      auto path = q.sink.options.find("path");
      util::LogInfo(q.name, ": wrote ", path == q.sink.options.end() ? q.sink.format + " sink" : path->second);
      continue;
    }
    const int64_t total = outcome->rows->num_rows();
    const int64_t shown_rows = args.limit >= 0 ? std::min(args.limit, total) : total;
    auto shown = sink::ShowTable(*outcome->rows, shown_rows, /*truncate=*/false);
    if (!shown.ok()) return ReportFailure(shown.status());
    std::cout << "== " << q.name << " (" << total << " rows" <<
        (shown_rows < total ? ", first " + std::to_string(shown_rows) + " shown" : std::string()) << ") ==\n"
              << *shown << std::flush;
  }
  return 0;
}

int ExplainPipeline(const ExplainArgs& args) {
  std::optional<plan::OutputMode> mode;
  if (args.output_mode) {
    auto parsed = ParseOutputMode(*args.output_mode);
    if (!parsed.ok()) return ReportFailure(parsed.status());
    mode = *parsed;
  }
  auto pipeline = Compile(args.pipeline, args.conf, sql::ExecutionMode::kStreaming);
  if (!pipeline.ok()) return ReportFailure(pipeline.status());
  int rc = 0;
  StreamOptions restart;
  restart.checkpoint_root = args.checkpoint;
  restart.output_mode = plan::OutputModeName(mode.value_or(plan::OutputMode::kAppend));
  for (const auto& q : pipeline->queries) restart.pipeline_query_names.push_back(q.name);
  for (size_t i = 0; i < pipeline->queries.size(); ++i) {
    const auto& q = pipeline->queries[i];
    std::cout << (i ? "\n" : "") << cli::ExplainQuery(q, mode);
    if (mode && !plan::CheckOutputMode(*api::PlanOf(q.frame), *mode).ok()) rc = 1;
    if (args.checkpoint.empty()) continue;
    bool refused = false;
    auto text = cli::ExplainRestart(q, restart, &refused);
    if (!text.ok()) return ReportFailure(text.status());
    std::cout << *text << std::flush;
    if (refused) rc = 1;
  }
  return rc;
}

}  // namespace sluice::cli
