// The source contract (docs/architecture.md): a source reports offsets and returns the rows between
// two offsets, deterministically for a recorded range, so a redone batch reads the same rows.
#pragma once

#include <arrow/table.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/offset.h"
#include "io/file_system.h"
#include "plan/logical_plan.h"

namespace sluice::source {

/// A source's position (checkpoint/offset.h).
using Offset = checkpoint::Offset;

/// Counters a source accumulates for progress reports.
struct SourceMetrics {
  int64_t malformed_rows = 0;
  /// Files seen by the last listing but left for later batches (read limits); -1 = not a file source.
  int64_t files_outstanding = -1;
  /// The newest offset available (progress `latestOffset`); unset = the batch's end offset.
  std::optional<Offset> latest_offset;
  /// Further source-specific entries of the progress `metrics` map (Kafka: offsets behind latest).
  std::map<std::string, std::string> custom;
  /// Rows of the last batch a pushed filter removed while the source decoded them (they count as
  /// input rows: numInputRows = the rows returned + these).
  int64_t last_batch_rows_filtered = 0;
};

/// A predicate the query applies right above the scan, for a source to apply while it decodes
/// (filter pushdown, plan::PushableScanFilter): it may then skip decoding the other columns of
/// the rows it rejects, or whole Parquet row groups. The filter stays in the plan, so a source may
/// use it or not, row by row; it must never drop a row the predicate keeps.
struct ScanFilter {
  /// The predicate (resolved against the source's schema): its shape for row-group statistics.
  plan::ExprPtr predicate;
  /// The columns it reads, in schema order.
  std::vector<std::string> columns;
  /// Evaluates the predicate over a batch holding (at least) `columns`: true = keep, false or null
  /// = drop. Thread-safe. An error makes the caller give up on the filter, never fail the read.
  std::function<Result<std::shared_ptr<arrow::Array>>(const std::shared_ptr<arrow::RecordBatch>&)> evaluate;
};

/// What the runtime gives a source. `metadata_dir` is <checkpoint>/sources/<i>, for sources
/// that keep their own log (the file source).
struct SourceContext {
  std::shared_ptr<io::FileSystem> fs;
  std::string metadata_dir;
  int min_batches_to_retain = 100;
  /// Milliseconds since the epoch (the query's clock; injectable in tests).
  std::function<int64_t()> clock_ms;
  /// True when the query runs on a throw-away checkpoint (no recovery expected).
  bool temporary_checkpoint = false;
  /// The query's id (checkpoint metadata), e.g. to name a Kafka consumer group.
  std::string query_id{};
  /// The columns of the source's schema the query reads (plan::ColumnsReadFromScan); unset =
  /// all. A file source decodes only these and gives the others as nulls.
  std::optional<std::vector<std::string>> read_columns{};
  /// The predicate the file source may apply while decoding; null = none.
  std::shared_ptr<const ScanFilter> filter{};
};

class Source {
 public:
  virtual ~Source() = default;

  virtual std::string Description() const = 0;
  virtual std::shared_ptr<arrow::Schema> schema() const = 0;

  /// Called once before the first batch of an availableNow run: fix the set of data this run
  /// will process (later arrivals wait for the next run).
  virtual Status PrepareForAvailableNow() { return Status::OK(); }
  /// The end offset of the next batch after `start` (nullopt start = from the beginning),
  /// honouring the source's read limits (maxFilesPerTrigger, ...). Returns `start` (or
  /// nullopt) when nothing new is available. `limited` = false lifts the read limits
  /// (Trigger.Once).
  virtual Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start, bool limited) = 0;
  /// The rows in (start, end]. Must return the same rows for the same range on a redo.
  virtual Result<std::shared_ptr<arrow::Table>> GetBatch(const std::optional<Offset>& start, const Offset& end) = 0;
  /// Data up to `end` is committed: the source may release it (e.g. cleanSource).
  virtual Status Commit(const Offset& /*end*/) { return Status::OK(); }
  /// True when Commit() changes the input a batch read (cleanSource archives or deletes its
  /// files): commits/N is then synced before Commit() runs, since running batch N again after a
  /// power failure needs that input.
  virtual bool CommitChangesInput() const { return false; }
  virtual SourceMetrics metrics() const { return {}; }
  /// True for the static side of a stream-static join (static_table_source.h): its offset is
  /// the table's version, every batch reads all of it, and a new version alone starts no batch.
  virtual bool IsStatic() const { return false; }
};

/// rate, rate-micro-batch and socket: sources without a path that only stream.
bool IsStreamOnlyFormat(const std::string& format);
/// Checks the options of a stream-only source.
Status ValidateGeneratedSourceSpec(const plan::SourceSpec& spec);

/// Creates the streaming source a scan describes.
Result<std::unique_ptr<Source>> MakeStreamingSource(const plan::SourceSpec& spec, const SourceContext& ctx);

/// Reads everything a scan's source holds now (batch mode). For file sources without a
/// declared schema, the schema is inferred.
Result<std::shared_ptr<arrow::Table>> ReadStatic(const plan::SourceSpec& spec, const std::shared_ptr<io::FileSystem>& fs);

/// The schema a static read of `spec` will produce (declared, or inferred from the files).
Result<std::shared_ptr<arrow::Schema>> ResolveSourceSchema(const plan::SourceSpec& spec,
                                                           const std::shared_ptr<io::FileSystem>& fs);

}  // namespace sluice::source
