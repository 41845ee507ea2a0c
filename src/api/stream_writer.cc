// DataStreamWriter: from writeStream() options to a running query. Everything that can be
// refused (format, options, output mode, checkpoint) is refused here, before any batch.
#include <arrow/api.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "api/access.h"
#include "api/option_text.h"
#include "conf/sql_conf.h"
#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "plan/output_mode.h"
#include "state/state_store.h"
#include "runtime/micro_batch_execution.h"
#include "runtime/query_execution.h"
#include "sink/sink.h"
#include "sink/sink_registry.h"
#include "sluice/dataframe.h"
#include "sluice/session.h"
#include "util/strings.h"

namespace sluice {

struct DataStreamWriter::State {
  std::string format;
  std::string output_mode = "append";
  std::map<std::string, std::string> options;
  Trigger trigger = ProcessingTime(0);
  std::string query_name;
  sink::ForeachBatchFn foreach_batch;
};

DataStreamWriter::DataStreamWriter(DataFrame df) : df_(std::move(df)), state_(std::make_shared<State>()) {}

DataStreamWriter& DataStreamWriter::format(const std::string& f) { state_->format = f; return *this; }
DataStreamWriter& DataStreamWriter::outputMode(const std::string& mode) { state_->output_mode = mode; return *this; }
DataStreamWriter& DataStreamWriter::option(const std::string& key, const std::string& value) {
  state_->options[key] = value;
  return *this;
}
DataStreamWriter& DataStreamWriter::option(const std::string& key, int64_t value) {
  return option(key, std::to_string(value));
}
DataStreamWriter& DataStreamWriter::option(const std::string& key, double value) {
  return option(key, api::OptionText(value));
}
DataStreamWriter& DataStreamWriter::option(const std::string& key, bool value) {
  return option(key, api::OptionText(value));
}
DataStreamWriter& DataStreamWriter::options(const std::map<std::string, std::string>& kv) {
  for (const auto& [k, v] : kv) state_->options[k] = v;
  return *this;
}
DataStreamWriter& DataStreamWriter::trigger(Trigger t) { state_->trigger = t; return *this; }
DataStreamWriter& DataStreamWriter::queryName(const std::string& name) { state_->query_name = name; return *this; }
DataStreamWriter& DataStreamWriter::foreachBatch(
    std::function<Status(const std::shared_ptr<arrow::Table>&, int64_t)> fn) {
  state_->format = "foreachBatch";
  state_->foreach_batch = std::move(fn);
  return *this;
}

Result<StreamingQuery> DataStreamWriter::toTable(const std::string& table) {
  state_->format = "iceberg";
  option("table", table);
  return start();
}

Result<StreamingQuery> DataStreamWriter::start(const std::string& path) {
  option("path", path);
  return start();
}

namespace {

// A positive integer setting (at most `max`); its default when unset.
Result<int64_t> PositiveConf(const Session& session, const conf::ConfEntry& entry, int64_t max = INT64_MAX) {
  const std::string v = session.conf(entry.key, entry.default_value);
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno == ERANGE || n <= 0 || n > max) {
    if (max == INT64_MAX || max == INT32_MAX) {
      return Status::Invalid("Invalid value '", v, "' for ", entry.key, ": must be a positive integer");
    }
    return Status::Invalid("Invalid value '", v, "' for ", entry.key, ": must be an integer in 1..", max);
  }
  return static_cast<int64_t>(n);
}

}  // namespace

Result<runtime::QueryConfig> detail::Access::StreamConfig(const DataStreamWriter& writer, bool dry_run) {
  const DataFrame& df_ = writer.df_;
  const DataStreamWriter::State* state_ = writer.state_.get();
  ARROW_RETURN_NOT_OK(df_.status());
  if (!df_.isStreaming()) {
    return Status::Invalid("Queries without streaming sources cannot be executed with writeStream().start(); use write()");
  }
  const auto& session = df_.session();
  runtime::QueryConfig cfg;
  cfg.plan = api::PlanOf(df_);
  cfg.trigger = state_->trigger;
  cfg.name = state_->query_name;
  cfg.fs = api::FileSystemOf(*session);
  cfg.memory_tables = detail::Access::MemoryTablesOf(*session);
  cfg.registry = detail::Access::RegistryOf(*session);
  // Session settings (conf/sql_conf.h lists them with their defaults).
  ARROW_ASSIGN_OR_RAISE(auto retain, PositiveConf(*session, conf::kMinBatchesToRetain, INT32_MAX));
  ARROW_ASSIGN_OR_RAISE(auto recent, PositiveConf(*session, conf::kNumRecentProgressUpdates, INT32_MAX));
  ARROW_ASSIGN_OR_RAISE(cfg.no_data_progress_interval_ms, PositiveConf(*session, conf::kNoDataProgressEventInterval));
  cfg.min_batches_to_retain = static_cast<int>(retain);
  cfg.num_recent_progress = static_cast<int>(recent);
  // State partitions and provider; kept by the checkpoint after its first batch.
  if (!session->conf(conf::kShufflePartitions.key).empty()) {
    ARROW_ASSIGN_OR_RAISE(auto parts, PositiveConf(*session, conf::kShufflePartitions, 4096));
    cfg.shuffle_partitions = static_cast<int>(parts);
  }
  ARROW_ASSIGN_OR_RAISE(cfg.state_store_provider,
                        state::NormalizeStateStoreProvider(
                            session->conf(conf::kStateStoreProvider.key, conf::kStateStoreProvider.default_value)));
  cfg.watermark_policy = util::ToLower(session->conf(conf::kMultipleWatermarkPolicy.key, "min"));
  if (cfg.watermark_policy != "min" && cfg.watermark_policy != "max") {
    return Status::Invalid("Could not recognize watermark policy '", cfg.watermark_policy, "' for ",
                           conf::kMultipleWatermarkPolicy.key, ": use min (the slowest input decides, the default) "
                           "or max (the fastest)");
  }
  if (cfg.trigger.kind == Trigger::Kind::kProcessingTime && cfg.trigger.interval_ms < 0) {
    return Status::Invalid("ProcessingTime trigger interval must be >= 0 ms, got ", cfg.trigger.interval_ms);
  }

  if (state_->format.empty()) {
    return Status::Invalid("writeStream(): no sink format given; call .format(\"", sink::SinkKindList(),
                           "\") (one of them) or .foreachBatch(fn)");
  }
  const sink::SinkKind* kind = sink::FindSinkKind(state_->format);
  if (!kind || (!kind->user_visible && !state_->foreach_batch)) {
    return Status::Invalid("Unknown sink format '", state_->format, "'. Valid formats: ", sink::SinkKindList(),
                           " (or foreachBatch(fn))");
  }
  if (!kind->streaming) return Status::Invalid("The ", kind->name, " sink cannot be written by writeStream()");
  cfg.sink.format = kind->name;
  ARROW_ASSIGN_OR_RAISE(cfg.sink.output_mode, plan::ParseOutputMode(state_->output_mode));
  ARROW_RETURN_NOT_OK(plan::CheckOutputMode(*cfg.plan, cfg.sink.output_mode));
  cfg.sink.query_name = state_->query_name;
  cfg.sink.foreach_batch = state_->foreach_batch;
  std::string checkpoint;
  for (const auto& [k, v] : state_->options) {
    if (util::ToLower(k) == "checkpointlocation") {
      checkpoint = v;
    } else {
      cfg.sink.options.Set(k, v);
    }
  }
  if (kind->prepare && !dry_run) {  // e.g. Iceberg: catalog settings from the conf; create or check the table
    auto conf = [&session](const std::string& key) { return session->conf(key); };
    ARROW_RETURN_NOT_OK(kind->prepare(&cfg.sink, conf, *df_.schema(), cfg.fs));
  }
  if (kind->validate) ARROW_RETURN_NOT_OK(kind->validate(cfg.sink));

  if (checkpoint.empty()) {
    std::string fallback = session->conf(conf::kCheckpointLocation.key);
    if (!fallback.empty()) {
      checkpoint = io::JoinPath(fallback, state_->query_name.empty() ? "query" : state_->query_name);
    }
  }
  if (checkpoint.empty()) {
    if (kind->needs_checkpoint) {
      return Status::Invalid("checkpointLocation must be specified for the ", kind->name,
                             " sink: option(\"checkpointLocation\", dir). It is where the query remembers its "
                             "progress; reuse the same directory on every restart.");
    }
    if (dry_run) return cfg;
    // In the temporary directory the environment names ($TMPDIR, else /tmp); Spark makes its own
    // under java.io.tmpdir.
    const char* tmpdir = ::getenv("TMPDIR");
    const std::string dir = tmpdir && *tmpdir ? tmpdir : "/tmp";
    std::string tmpl = io::JoinPath(dir, "sluice-temporary-checkpoint-XXXXXX");
    if (!::mkdtemp(tmpl.data())) {
      return Status::IOError("Cannot create a temporary checkpoint directory in ", dir, ": ", std::strerror(errno),
                             "; set option checkpointLocation, or TMPDIR to a writable directory");
    }
    checkpoint = tmpl;
    cfg.temporary_checkpoint = true;
  }
  cfg.checkpoint_dir = io::AbsolutePath(checkpoint);
  return cfg;
}

Result<runtime::RestartCheck> detail::Access::CheckRestart(const DataStreamWriter& writer) {
  ARROW_ASSIGN_OR_RAISE(auto cfg, StreamConfig(writer, /*dry_run=*/true));
  if (cfg.checkpoint_dir.empty()) return Status::Invalid("The query has no checkpoint location to check");
  return runtime::MicroBatchExecution::CheckRestart(cfg);
}

Result<runtime::RestartCheck> api::CheckRestartOf(const DataStreamWriter& writer) {
  return detail::Access::CheckRestart(writer);
}

Result<StreamingQuery> DataStreamWriter::start() {
  ARROW_ASSIGN_OR_RAISE(auto cfg, detail::Access::StreamConfig(*this, /*dry_run=*/false));
  ARROW_ASSIGN_OR_RAISE(auto impl, runtime::QueryExecution::Start(std::move(cfg)));
  return detail::Access::MakeQuery(std::move(impl));
}

}  // namespace sluice
