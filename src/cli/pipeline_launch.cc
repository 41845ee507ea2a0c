#include "cli/pipeline_launch.h"

#include <arrow/api.h>

#include <vector>

#include "api/access.h"
#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "sink/sink.h"
#include "sink/sink_registry.h"
#include "sql/sql_text.h"

namespace sluice::cli {

using sql::PipelineQuery;

Result<StreamingQuery> StartStreamingQuery(const PipelineQuery& query, const StreamOptions& options) {
  DataStreamWriter writer = query.frame.writeStream();
  writer.format(query.sink.format).options(query.sink.options).queryName(query.name);
  writer.trigger(options.trigger).outputMode(options.output_mode);
  if (!options.checkpoint_root.empty()) {
    writer.option("checkpointLocation", io::JoinPath(options.checkpoint_root, query.name));
  }
  auto started = writer.start();
  if (!started.ok()) return started.status().WithMessage("query '", query.name, "' (", query.statement_where, "): ", started.status().message());
  return started;
}

Result<BatchOutcome> RunBatchQuery(const PipelineQuery& query, const std::string& save_mode, bool write_files) {
  BatchOutcome out;
  const std::string& format = query.sink.format;
  const sink::SinkKind* kind = sink::FindSinkKind(format);
  if (write_files && kind && kind->batch) {
    DataFrameWriter writer = query.frame.write();
    writer.format(format).mode(save_mode);
    std::string path;
    for (const auto& [k, v] : query.sink.options) {
      if (sql::FoldCase(k) == "path") {
        path = v;
      } else {
        writer.option(k, v);
      }
    }
    Status st = writer.save(path);
    if (!st.ok()) return st.WithMessage("query '", query.name, "' (", query.statement_where, "): ", st.message());
    out.written = true;
    return out;
  }
  auto rows = query.frame.collect();
  if (!rows.ok()) {
    return rows.status().WithMessage("query '", query.name, "' (", query.statement_where, "): ", rows.status().message());
  }
  out.rows = *rows;
  return out;
}

std::string ExplainQuery(const PipelineQuery& query, const std::optional<plan::OutputMode>& output_mode) {
  std::string out = "== Query '" + query.name + "' (" + query.statement_where + ") ==\n";
  out += "== Logical Plan ==\n" + query.frame.explain() + "\n";
  if (query.frame.ok()) out += "== Physical Plan ==\n" + api::PhysicalPlanText(query.frame);
  sink::SinkSpec spec;
  spec.format = query.sink.format;
  spec.query_name = query.name;
  for (const auto& [k, v] : query.sink.options) spec.options.Set(k, v);
  out += "== Sink ==\n" + spec.Describe() + "\n";
  out += "== Output mode ==\n";
  using plan::OutputMode;
  std::vector<OutputMode> modes = output_mode ? std::vector<OutputMode>{*output_mode}
                                              : std::vector<OutputMode>{OutputMode::kAppend, OutputMode::kUpdate,
                                                                        OutputMode::kComplete};
  for (const auto& mode : modes) {
    // The plan's verdict, then the sink's (file sinks only append).
    Status st = plan::CheckOutputMode(*api::PlanOf(query.frame), mode);
    if (st.ok()) {
      spec.output_mode = mode;
      st = sink::ValidateSinkSpec(spec);
    }
    out += std::string(plan::OutputModeName(mode)) + ": " + (st.ok() ? std::string("ok") : "refused: " + st.message()) + "\n";
  }
  return out;
}

}  // namespace sluice::cli
