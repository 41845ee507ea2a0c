// Everything a streaming query needs to run, collected by DataStreamWriter::start().
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "sink/sink.h"
#include "sluice/trigger.h"

namespace sluice::runtime {
class QueryRegistry;
}

namespace sluice::runtime {

struct QueryConfig {
  std::shared_ptr<const plan::LogicalPlan> plan;
  sink::SinkSpec sink;
  Trigger trigger;
  std::string checkpoint_dir;
  /// True when sluice made a temporary checkpoint (console/memory/foreachBatch sinks without
  /// checkpointLocation); it is deleted when the query stops cleanly.
  bool temporary_checkpoint = false;
  std::string name;
  int min_batches_to_retain = 100;
  /// State partitions of stateful operators (spark.sql.shuffle.partitions); 0 = the number of
  /// cores. A checkpoint keeps the value it started with.
  int shuffle_partitions = 0;
  /// State store provider: file | rocksdb (spark.sql.streaming.stateStore.providerClass).
  std::string state_store_provider = "file";
  /// How the watermarks of several withWatermark nodes combine: "min" (the slowest input) or
  /// "max" (spark.sql.streaming.multipleWatermarkPolicy). A checkpoint keeps the value it
  /// started with.
  std::string watermark_policy = "min";
  std::shared_ptr<io::FileSystem> fs;
  /// The session's memory-sink tables; shared so the query never writes into freed tables.
  std::shared_ptr<sink::MemoryTables> memory_tables;
  std::ostream* console = nullptr;
  /// Milliseconds since the epoch; injectable for tests.
  std::function<int64_t()> clock_ms;
  /// The session's registry (listeners, duplicate-query checks); may be empty. Weak: the
  /// registry keeps terminated queries, which keep their config.
  std::weak_ptr<QueryRegistry> registry;
  /// How many progress updates recentProgress() keeps.
  int num_recent_progress = 100;
  /// Idle events (no new data) are reported at most this often.
  int64_t no_data_progress_interval_ms = 10000;
};

}  // namespace sluice::runtime
