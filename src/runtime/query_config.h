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
  std::shared_ptr<io::FileSystem> fs;
  sink::MemoryTables* memory_tables = nullptr;
  std::ostream* console = nullptr;
  /// Milliseconds since the epoch; injectable for tests.
  std::function<int64_t()> clock_ms;
};

}  // namespace sluice::runtime
