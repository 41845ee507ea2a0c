// DataStreamWriter: from writeStream() options to a running query. Everything that can be
// refused (format, options, output mode, checkpoint) is refused here, before any batch.
#include <arrow/api.h>

#include <algorithm>
#include <cstdlib>

#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "plan/output_mode.h"
#include "state/state_store.h"
#include "runtime/query_execution.h"
#include "sink/iceberg_sink.h"
#include "sink/sink.h"
#include "sluice/dataframe.h"
#include "sluice/session.h"

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

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A positive integer session conf "sluice.sql.streaming.<name>" (Spark's "spark.sql.streaming.<name>"
// is accepted too).
Result<int64_t> StreamingConf(const Session& session, const std::string& name, int64_t def) {
  const std::string key = "sluice.sql.streaming." + name;
  std::string v = session.conf(key, session.conf("spark.sql.streaming." + name, std::to_string(def)));
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n <= 0) {
    return Status::Invalid("Invalid value '", v, "' for ", key, ": must be a positive integer");
  }
  return static_cast<int64_t>(n);
}

}  // namespace

Result<StreamingQuery> DataStreamWriter::start() {
  ARROW_RETURN_NOT_OK(df_.status());
  if (!df_.isStreaming()) {
    return Status::Invalid("Queries without streaming sources cannot be executed with writeStream().start(); use write()");
  }
  const auto& session = df_.session();
  runtime::QueryConfig cfg;
  cfg.plan = df_.plan();
  cfg.trigger = state_->trigger;
  cfg.name = state_->query_name;
  cfg.fs = session->fs();
  cfg.memory_tables = session->memoryTables();
  ARROW_ASSIGN_OR_RAISE(auto retain, StreamingConf(*session, "minBatchesToRetain", 100));
  ARROW_ASSIGN_OR_RAISE(auto recent, StreamingConf(*session, "numRecentProgressUpdates", 100));
  ARROW_ASSIGN_OR_RAISE(cfg.no_data_progress_interval_ms, StreamingConf(*session, "noDataProgressEventInterval", 10000));
  cfg.min_batches_to_retain = static_cast<int>(retain);
  cfg.num_recent_progress = static_cast<int>(recent);
  cfg.registry = session->registry();
  {
    // State partitions and provider (Spark's keys); kept by the checkpoint after its first batch.
    const std::string parts = session->conf("spark.sql.shuffle.partitions", session->conf("sluice.sql.shuffle.partitions"));
    if (!parts.empty()) {
      char* end = nullptr;
      long long n = std::strtoll(parts.c_str(), &end, 10);
      if (*end != '\0' || n <= 0 || n > 4096) {
        return Status::Invalid("Invalid value '", parts, "' for spark.sql.shuffle.partitions: must be an integer in 1..4096");
      }
      cfg.shuffle_partitions = static_cast<int>(n);
    }
    const std::string provider = session->conf(state::kStateStoreProviderConf, "file");
    ARROW_ASSIGN_OR_RAISE(cfg.state_store_provider, state::NormalizeStateStoreProvider(provider));
  }
  if (cfg.trigger.kind == Trigger::Kind::kProcessingTime && cfg.trigger.interval_ms < 0) {
    return Status::Invalid("ProcessingTime trigger interval must be >= 0 ms, got ", cfg.trigger.interval_ms);
  }

  cfg.sink.format = state_->format.empty() ? std::string() : state_->format;
  if (cfg.sink.format != "foreachBatch") cfg.sink.format = Lower(cfg.sink.format);
  if (cfg.sink.format.empty()) {
    return Status::Invalid("writeStream(): no sink format given; call .format(\"parquet\"|\"json\"|\"csv\"|\"console\"|\"memory\") or .foreachBatch(fn)");
  }
  ARROW_ASSIGN_OR_RAISE(cfg.sink.output_mode, plan::ParseOutputMode(state_->output_mode));
  ARROW_RETURN_NOT_OK(plan::CheckOutputMode(*df_.plan(), cfg.sink.output_mode));
  cfg.sink.query_name = state_->query_name;
  cfg.sink.foreach_batch = state_->foreach_batch;
  std::string checkpoint;
  for (const auto& [k, v] : state_->options) {
    if (Lower(k) == "checkpointlocation") {
      checkpoint = v;
    } else {
      cfg.sink.options.Set(k, v);
    }
  }
  if (cfg.sink.format == "iceberg") {  // catalog settings from the conf; create or check the table
    auto conf = [&session](const std::string& key) { return session->conf(key); };
    ARROW_RETURN_NOT_OK(sink::PrepareIcebergSinkSpec(&cfg.sink, conf, *df_.schema(), session->fs()));
  }
  ARROW_RETURN_NOT_OK(sink::ValidateSinkSpec(cfg.sink));

  if (checkpoint.empty()) {
    std::string fallback = session->conf("sluice.sql.streaming.checkpointLocation");
    if (!fallback.empty()) {
      checkpoint = io::JoinPath(fallback, state_->query_name.empty() ? "query" : state_->query_name);
    }
  }
  if (checkpoint.empty()) {
    const std::string& f = cfg.sink.format;
    if (f != "console" && f != "memory" && f != "foreachBatch") {
      return Status::Invalid("checkpointLocation must be specified for the ", f,
                             " sink: option(\"checkpointLocation\", dir). It is where the query remembers its "
                             "progress; reuse the same directory on every restart.");
    }
    char tmpl[] = "/tmp/sluice-temporary-checkpoint-XXXXXX";
    if (!::mkdtemp(tmpl)) return Status::IOError("cannot create a temporary checkpoint directory");
    checkpoint = tmpl;
    cfg.temporary_checkpoint = true;
  }
  cfg.checkpoint_dir = io::AbsolutePath(checkpoint);
  ARROW_ASSIGN_OR_RAISE(auto impl, runtime::QueryExecution::Start(std::move(cfg)));
  return StreamingQuery(std::move(impl));
}

}  // namespace sluice
