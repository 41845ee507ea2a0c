// The sink contract: addBatch(batchId, rows). Exactly-once needs the sink to recognise a batch
// id it already has (a redone batch after a crash) and not write it twice.
#pragma once

#include <arrow/table.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "plan/output_mode.h"

namespace sluice::sink {

/// Named in-session tables the memory sink writes ("memory" format, queryName = table name).
class MemoryTables {
 public:
  /// Applies batch `batch_id` unless the table already has it; complete mode replaces the rows.
  /// Returns false when the batch was already applied (a redo).
  bool Apply(const std::string& name, int64_t batch_id, const std::shared_ptr<arrow::Table>& rows, bool complete);
  Result<std::shared_ptr<arrow::Table>> Get(const std::string& name) const;

 private:
  struct Entry {
    int64_t last_batch = -1;
    std::vector<std::shared_ptr<arrow::Table>> parts;
    std::shared_ptr<arrow::Schema> schema;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> tables_;
};

using ForeachBatchFn = std::function<Status(const std::shared_ptr<arrow::Table>&, int64_t)>;

/// What writeStream() collected.
struct SinkSpec {
  std::string format;  // parquet | json | csv | console | memory | foreachBatch
  plan::Options options;
  std::string query_name;
  plan::OutputMode output_mode = plan::OutputMode::kAppend;
  ForeachBatchFn foreach_batch;

  std::string Describe() const;
};

struct SinkContext {
  std::shared_ptr<io::FileSystem> fs;
  std::string query_id;
  std::shared_ptr<MemoryTables> memory_tables;  // shared with the session (memoryTable())
  std::ostream* console = nullptr;  // where the console sink prints (default std::cout)
  /// The query's processing-time trigger interval (0: back to back, once, availableNow).
  int64_t trigger_interval_ms = 0;
  std::string checkpoint_dir{};     // the query's checkpoint (recorded by the Iceberg sink); may be empty
  /// The newest batch in the checkpoint's commits/ (nullopt: none), and the query's output schema
  /// (the Iceberg sink refuses a missing table the checkpoint wrote, or creates it from the schema).
  std::optional<int64_t> last_committed_batch{};
  std::shared_ptr<arrow::Schema> query_schema{};
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual std::string Description() const = 0;
  /// Writes batch `batch_id`. If the sink already holds that batch it must not write it again.
  virtual Status AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) = 0;
  /// True when a redone batch is recognised (file, memory); false for console/foreachBatch.
  virtual bool idempotent() const = 0;
};

/// Checks format and options without touching the filesystem (writeStream().start()).
Status ValidateSinkSpec(const SinkSpec& spec);
Result<std::unique_ptr<Sink>> MakeSink(const SinkSpec& spec, const SinkContext& ctx);

}  // namespace sluice::sink
