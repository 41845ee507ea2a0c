// What stateful operators need from whoever runs the plan, and what they report back.
//
// A streaming query runs its plan once per micro-batch with the runtime's state stores (loaded
// at the batch's version) and the batch's two watermarks; a batch query runs it once over
// everything, with in-memory state and complete-mode semantics, so the two give the same
// answer (ARCHITECTURE.md: "the same query also runs as a plain batch job").
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "state/state_store.h"

namespace sluice::exec {

/// One entry of a progress report's stateOperators (Spark's StateOperatorProgress).
struct OperatorProgress {
  std::string operator_name;  // stateStoreSave (aggregations), dedupe, dedupeWithinWatermark
  int64_t num_rows_total = 0;
  int64_t num_rows_updated = 0;
  int64_t num_rows_removed = 0;
  int64_t memory_used_bytes = 0;
  int64_t num_rows_dropped_by_watermark = 0;
  int64_t all_updates_time_ms = 0;
  int64_t all_removals_time_ms = 0;
  int num_shuffle_partitions = 0;
  int num_state_store_instances = 0;
};

/// Event times a withWatermark node saw in one batch, in ms since the epoch.
struct EventTimeStats {
  int64_t max_ms = std::numeric_limits<int64_t>::min();
  int64_t min_ms = std::numeric_limits<int64_t>::max();
  double sum_ms = 0;
  int64_t count = 0;
};

/// The state of each (operator, partition) for the batch being run.
class StateStores {
 public:
  virtual ~StateStores() = default;
  virtual int num_partitions() const = 0;
  /// The store of operator `operator_id` (its index in LogicalPlan::StatefulNodes()) and
  /// `partition`, loaded at the batch's version. Safe to call from several threads for
  /// different partitions.
  virtual Result<state::StateStore*> Get(int operator_id, int partition) = 0;
};

/// In-memory stores (nothing durable): batch queries and tests.
std::unique_ptr<StateStores> MakeMemoryStateStores(int num_partitions);

struct ExecContext {
  /// False for a batch query: aggregations return every group (complete), nothing is late.
  bool streaming = false;
  /// append | update | complete (streaming only).
  std::string output_mode = "append";
  /// Rows (or windows) at or before this watermark belong to what an earlier batch closed:
  /// stateful operators drop them. The previous batch's watermark (Spark 3.4+).
  int64_t late_watermark_ms = std::numeric_limits<int64_t>::min();
  /// Windows ending at or before this watermark are emitted (append) and evicted. The batch's own.
  int64_t eviction_watermark_ms = std::numeric_limits<int64_t>::min();
  StateStores* stores = nullptr;

  // Filled in by ExecutePlan.
  std::vector<EventTimeStats> event_time;     // per LogicalPlan::WatermarkNodes() entry
  std::vector<OperatorProgress> operators;    // per LogicalPlan::StatefulNodes() entry
};

}  // namespace sluice::exec
