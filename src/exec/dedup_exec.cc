// dropDuplicates / dropDuplicatesWithinWatermark over the state store.
//
// State key = the key columns (a watermarked key column first, so eviction walks keys in event
// time order and stops early); value = empty, or for WithinWatermark the time (micros) at which
// the key expires: its first event time + the watermark delay.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <unordered_set>

#include "exec/compute_init.h"
#include "exec/row_codec.h"
#include "exec/stateful_ops.h"
#include "exec/stateful_util.h"
#include "state/partitioning.h"

namespace sluice::exec {
namespace {

constexpr int64_t kMin = kNoWatermark;
const Status kStop = Status::Cancelled("stop iteration");

int64_t NowMs() { return SteadyNowMs(); }

}  // namespace

Result<std::shared_ptr<arrow::Table>> RunDeduplicate(const plan::LogicalPlan& node, int op,
                                                     const std::shared_ptr<arrow::Table>& input, ExecContext* ctx) {
  ARROW_ASSIGN_OR_RAISE(auto batch, input->CombineChunksToBatch());
  const int64_t n = batch->num_rows();
  const auto marked = node.input->WatermarkedColumns();
  const bool streaming = ctx->streaming;

  // The event-time column: for dropDuplicates a watermarked key column (moved first in the
  // key); for WithinWatermark the input's watermarked column.
  std::vector<std::string> key_cols = node.key_columns;
  std::string event_col;
  int64_t delay_us = 0;
  if (node.within_watermark) {
    if (!marked.empty()) {
      event_col = marked.begin()->first;
      delay_us = marked.begin()->second * 1000;
    }
  } else {
    for (size_t i = 0; i < key_cols.size(); ++i) {
      if (marked.count(key_cols[i]) && batch->schema()->GetFieldByName(key_cols[i])->type()->id() == arrow::Type::TIMESTAMP) {
        event_col = key_cols[i];
        std::rotate(key_cols.begin(), key_cols.begin() + static_cast<long>(i), key_cols.begin() + static_cast<long>(i) + 1);
        break;
      }
    }
  }
  std::vector<std::shared_ptr<arrow::Array>> keys;
  for (const auto& c : key_cols) {
    auto a = batch->GetColumnByName(c);
    if (!a) return Status::Invalid("dropDuplicates: column '", c, "' is missing from its input");
    keys.push_back(a);
  }
  std::shared_ptr<arrow::Int64Array> event_us;
  if (!event_col.empty()) {
    ARROW_ASSIGN_OR_RAISE(event_us, TimestampMicros(batch->GetColumnByName(event_col)));
  }
  const int64_t key_unit = event_col.empty() ? 1 : UnitToMicros(*batch->schema()->GetFieldByName(event_col)->type());
  const int64_t late_us = streaming && event_us ? WatermarkUs(ctx->late_watermark_ms) : kMin;
  const int64_t evict_us = streaming && event_us ? WatermarkUs(ctx->eviction_watermark_ms) : kMin;

  OperatorProgress progress;
  progress.operator_name = node.within_watermark ? "dedupeWithinWatermark" : "dedupe";
  const int P = ctx->stores->num_partitions();
  progress.num_shuffle_partitions = P;
  progress.num_state_store_instances = P;

  struct Row {
    int64_t row;
    std::string key;
  };
  std::vector<std::vector<Row>> parts(static_cast<size_t>(P));
  for (int64_t row = 0; row < n; ++row) {
    if (event_us && !event_us->IsNull(row) && event_us->Value(row) <= late_us) {
      ++progress.num_rows_dropped_by_watermark;
      continue;
    }
    std::string key;
    for (const auto& k : keys) EncodeValue(*k, row, &key);
    const int p = state::PartitionOf(key, P);
    parts[static_cast<size_t>(p)].push_back({row, std::move(key)});
  }

  std::vector<std::vector<int64_t>> kept(static_cast<size_t>(P));
  std::vector<int64_t> update_ms(static_cast<size_t>(P), 0), removal_ms(static_cast<size_t>(P), 0);
  const int T = OperatorThreads(P);
  auto run = [&](int p) -> Status {
    const int64_t t0 = NowMs();
    ARROW_ASSIGN_OR_RAISE(state::StateStore * store, ctx->stores->Get(op, p));
    std::unordered_set<std::string> seen;
    for (const auto& r : parts[static_cast<size_t>(p)]) {
      if (seen.count(r.key)) continue;
      ARROW_ASSIGN_OR_RAISE(auto old, store->Get(r.key));
      if (old) continue;
      seen.insert(r.key);
      kept[static_cast<size_t>(p)].push_back(r.row);
      std::string value;
      if (node.within_watermark && event_us && !event_us->IsNull(r.row)) {
        EncodeInt64(event_us->Value(r.row) + delay_us, &value);
      }
      ARROW_RETURN_NOT_OK(store->Put(r.key, value));
    }
    const int64_t t1 = NowMs();
    update_ms[static_cast<size_t>(p)] = t1 - t0;
    if (evict_us != kMin) {
      std::vector<std::string> expired;
      Status st = store->ForEach([&](std::string_view k, std::string_view v) -> Status {
        size_t pos = 0;
        if (node.within_watermark) {
          if (v.empty()) return Status::OK();
          ARROW_ASSIGN_OR_RAISE(int64_t expires, DecodeInt64(v, &pos));
          if (expires <= evict_us) expired.emplace_back(k);
          return Status::OK();
        }
        if (EncodedIsNull(k, 0)) return Status::OK();
        ARROW_ASSIGN_OR_RAISE(int64_t raw, DecodeInt64(k, &pos));
        // The key holds the column in its own unit; compare in micros.
        if (ScaleToMicros(raw, key_unit) > evict_us) return kStop;
        expired.emplace_back(k);
        return Status::OK();
      });
      if (!st.ok() && !st.IsCancelled()) return st;
      for (const auto& k : expired) ARROW_RETURN_NOT_OK(store->Remove(k));
    }
    removal_ms[static_cast<size_t>(p)] = NowMs() - t1;
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(ParallelFor(P, T, run));

  std::vector<int64_t> rows;
  for (int p = 0; p < P; ++p) {
    rows.insert(rows.end(), kept[static_cast<size_t>(p)].begin(), kept[static_cast<size_t>(p)].end());
    progress.all_updates_time_ms += update_ms[static_cast<size_t>(p)];
    progress.all_removals_time_ms += removal_ms[static_cast<size_t>(p)];
    ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(op, p));
    const auto m = store->metrics();
    progress.num_rows_total += m.num_keys;
    progress.num_rows_updated += m.num_rows_updated;
    progress.num_rows_removed += m.num_rows_removed;
    progress.memory_used_bytes += m.memory_used_bytes;
  }
  std::sort(rows.begin(), rows.end());
  if (ctx->operators.size() <= static_cast<size_t>(op)) ctx->operators.resize(static_cast<size_t>(op) + 1);
  ctx->operators[static_cast<size_t>(op)] = progress;

  ARROW_RETURN_NOT_OK(EnsureComputeInitialized());
  arrow::Int64Builder idx;
  ARROW_RETURN_NOT_OK(idx.AppendValues(rows));
  std::shared_ptr<arrow::Array> indices;
  ARROW_RETURN_NOT_OK(idx.Finish(&indices));
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, indices));
  auto out_batch = taken.record_batch();
  return arrow::Table::FromRecordBatches(node.schema, {out_batch});
}

}  // namespace sluice::exec
