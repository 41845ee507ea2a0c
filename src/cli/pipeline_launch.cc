#include "cli/pipeline_launch.h"

#include <arrow/api.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/access.h"
#include "cli/pipeline_options.h"
#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "runtime/micro_batch_execution.h"
#include "sink/sink.h"
#include "sink/sink_registry.h"
#include "sql/sql_text.h"

namespace sluice::cli {

using sql::PipelineQuery;

namespace {

// For a query that has no checkpoint under `root` yet: the other query checkpoints there (a
// renamed sink table gets a new checkpoint directory, <root>/<new name>, and its old one is left
// behind), as a hint to append to a refusal.
std::string OtherCheckpointsHint(const std::string& root, const std::string& name,
                                 const std::vector<std::string>& pipeline_names) {
  auto fs = io::LocalFileSystem();
  auto own = fs->Stat(io::JoinPath(io::JoinPath(root, name), "metadata"));
  if (!own.ok() || *own) return "";
  auto entries = fs->List(root);
  if (!entries.ok()) return "";
  std::vector<std::string> others;
  for (const auto& e : *entries) {
    if (!e.is_dir || e.name == name) continue;
    if (std::find(pipeline_names.begin(), pipeline_names.end(), e.name) != pipeline_names.end()) continue;
    auto md = fs->Stat(io::JoinPath(e.path, "metadata"));
    if (md.ok() && *md) others.push_back(e.path);
  }
  if (others.empty()) return "";
  std::string list;
  for (const auto& o : others) list += (list.empty() ? "" : ", ") + o;
  return " (this query starts a new checkpoint, " + io::JoinPath(root, name) + "; --checkpoint " + root +
         " also holds " + list + ": if the sink table was renamed, its checkpoint is there; rename that directory "
         "to " + io::JoinPath(root, name) + " to continue it)";
}

}  // namespace

namespace {

DataStreamWriter WriterFor(const PipelineQuery& query, const StreamOptions& options) {
  DataStreamWriter writer = query.frame.writeStream();
  writer.format(query.sink.format).options(query.sink.options).queryName(query.name);
  writer.trigger(options.trigger).outputMode(options.output_mode);
  if (!options.checkpoint_root.empty()) {
    writer.option("checkpointLocation", io::JoinPath(options.checkpoint_root, query.name));
  }
  return writer;
}

}  // namespace

Result<StreamingQuery> StartStreamingQuery(const PipelineQuery& query, const StreamOptions& options) {
  DataStreamWriter writer = WriterFor(query, options);
  const std::string hint =
      options.checkpoint_root.empty() ? std::string() : OtherCheckpointsHint(options.checkpoint_root, query.name,
                                                                      options.pipeline_query_names);
  auto started = writer.start();
  if (!started.ok()) {
    return started.status().WithMessage("query '", query.name, "' (", query.statement_where, "): ",
                                        started.status().message(), hint);
  }
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
    out += std::string(plan::OutputModeName(mode)) + ": " + (st.ok() ? std::string("ok") : "refused: " + CliWording(st.message())) + "\n";
  }
  return out;
}

}  // namespace sluice::cli

namespace sluice::cli {

Result<std::string> ExplainRestart(const PipelineQuery& query, const StreamOptions& options, bool* refused) {
  const std::string dir = io::JoinPath(options.checkpoint_root, query.name);
  std::string out = "== Restart on checkpoint " + dir + " ==\n";
  auto check = api::CheckRestartOf(WriterFor(query, options));
  if (!check.ok()) {
    *refused = true;
    return out + "refused: " + CliWording(check.status().message()) + "\n";
  }
  if (check->new_checkpoint) {
    return out + "new: no checkpoint there yet; the query would start at batch 0" +
           OtherCheckpointsHint(options.checkpoint_root, query.name, options.pipeline_query_names) + "\n";
  }
  out += "query id " + check->query_id + ", " +
         (check->last_committed_batch ? "last committed batch " + std::to_string(*check->last_committed_batch)
                                      : std::string("no batch committed yet")) + "\n";
  for (const auto& line : check->kept) out += "kept: " + line + "\n";
  for (const auto& line : check->changed) out += "changed: " + line + "\n";
  if (check->refusal.ok()) {
    out += "verdict: the restart would continue from the checkpoint\n";
  } else {
    *refused = true;
    out += "verdict: the restart would be refused: " + CliWording(check->refusal.message()) + "\n";
  }
  return out;
}

}  // namespace sluice::cli
