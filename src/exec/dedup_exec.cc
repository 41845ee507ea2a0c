// StreamingDeduplicateExec (dropDuplicates) and the deduplication both variants share.
//
// dropDuplicates: the value is empty. With a watermarked key column (moved first in the key), a
// key expires once the watermark passes that column's value: eviction walks keys in event-time
// order and stops at the first one the watermark has not passed. Rows at or before the previous
// batch's watermark are dropped as late. Without one, keys are kept forever.
#include "exec/dedup_exec.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <unordered_set>

#include "util/compute_init.h"
#include "exec/physical_planner.h"
#include "exec/row_codec.h"
#include "exec/stateful_util.h"
#include "state/partitioning.h"

namespace sluice::exec {
namespace {

struct DedupInput : OperatorState {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
};

}  // namespace

DeduplicateExec::DeduplicateExec(const plan::LogicalPlan& node, int operator_id, std::vector<OperatorPtr> children,
                                 std::vector<std::string> key_columns, std::string event_column)
    : StatefulOperator(node.schema, std::move(children), operator_id),
      user_keys_(node.key_columns),
      key_columns_(std::move(key_columns)),
      event_column_(std::move(event_column)) {
  if (!event_column_.empty()) {
    if (auto f = node.input->schema->GetFieldByName(event_column_)) event_unit_ = UnitToMicros(*f->type());
  }
}

std::string DeduplicateExec::Describe() const {
  std::string line = std::string(exec_name()) + " [";
  for (size_t i = 0; i < user_keys_.size(); ++i) line += (i ? ", " : "") + user_keys_[i];
  return line + "] (keys kept in the state store)";
}

state::StateOperatorMetadata DeduplicateExec::StateMetadata(int num_partitions) const {
  state::StateOperatorMetadata md;
  md.operator_id = operator_id();
  md.num_partitions = num_partitions;
  md.operator_name = state_operator_name();
  std::string key;
  for (const auto& c : user_keys_) {
    key += (key.empty() ? "" : ", ") + c + " " + plan::TypeName(*schema()->GetFieldByName(c)->type());
  }
  md.key_schema = "[" + key + "]";
  md.value_schema = value_schema();
  return md;
}

Result<std::unique_ptr<OperatorState>> DeduplicateExec::MakeState(ExecContext*) const {
  return std::make_unique<DedupInput>();
}

Status DeduplicateExec::Push(ExecContext*, OperatorState* state, int, const std::shared_ptr<arrow::RecordBatch>& batch,
                             const BatchConsumer&) const {
  static_cast<DedupInput*>(state)->batches.push_back(batch);
  return Status::OK();
}

Status DeduplicateExec::Finish(ExecContext* ctx, OperatorState* state, const BatchConsumer& out) const {
  auto& buffered = static_cast<DedupInput*>(state)->batches;
  ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(children().at(0)->schema(), buffered));
  buffered.clear();
  ARROW_ASSIGN_OR_RAISE(auto batch, table->CombineChunksToBatch());
  const int64_t n = batch->num_rows();

  std::vector<std::shared_ptr<arrow::Array>> keys;
  for (const auto& c : key_columns_) {
    auto a = batch->GetColumnByName(c);
    if (!a) return Status::Invalid("dropDuplicates: column '", c, "' is missing from its input");
    keys.push_back(a);
  }
  std::shared_ptr<arrow::Int64Array> event_us;
  if (!event_column_.empty()) {
    auto a = batch->GetColumnByName(event_column_);
    if (!a) return Status::Invalid("dropDuplicates: event-time column '", event_column_, "' is missing from its input");
    ARROW_ASSIGN_OR_RAISE(event_us, TimestampMicros(a));
  }
  const int64_t late_us = ctx->streaming && event_us ? WatermarkUs(ctx->late_watermark_ms) : kNoWatermark;
  const int64_t evict_us = ctx->streaming && event_us ? WatermarkUs(ctx->eviction_watermark_ms) : kNoWatermark;

  OperatorProgress progress;
  progress.operator_name = state_operator_name();
  const int P = ctx->stores->num_partitions();

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
  auto run = [&](int p) -> Status {
    const int64_t t0 = SteadyNowMs();
    ARROW_ASSIGN_OR_RAISE(state::StateStore * store, ctx->stores->Get(operator_id(), p));
    std::unordered_set<std::string> seen;
    for (const auto& r : parts[static_cast<size_t>(p)]) {
      if (seen.count(r.key)) continue;
      ARROW_ASSIGN_OR_RAISE(auto old, store->Get(r.key));
      if (old) continue;
      seen.insert(r.key);
      kept[static_cast<size_t>(p)].push_back(r.row);
      std::string value;
      NewValue(event_us.get(), r.row, &value);
      ARROW_RETURN_NOT_OK(store->Put(r.key, value));
    }
    const int64_t t1 = SteadyNowMs();
    update_ms[static_cast<size_t>(p)] = t1 - t0;
    if (evict_us != kNoWatermark) {
      ARROW_RETURN_NOT_OK(store->ForEachRemoving(
          [&](std::string_view k, std::string_view v) { return Evict(k, v, evict_us); }));
    }
    removal_ms[static_cast<size_t>(p)] = SteadyNowMs() - t1;
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(ParallelFor(P, OperatorThreads(P), run));

  std::vector<int64_t> rows;
  for (int p = 0; p < P; ++p) {
    rows.insert(rows.end(), kept[static_cast<size_t>(p)].begin(), kept[static_cast<size_t>(p)].end());
    progress.all_updates_time_ms += update_ms[static_cast<size_t>(p)];
    progress.all_removals_time_ms += removal_ms[static_cast<size_t>(p)];
  }
  std::sort(rows.begin(), rows.end());
  ARROW_RETURN_NOT_OK(ReportProgress(ctx, std::move(progress)));

  ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
  arrow::Int64Builder idx;
  ARROW_RETURN_NOT_OK(idx.AppendValues(rows));
  std::shared_ptr<arrow::Array> indices;
  ARROW_RETURN_NOT_OK(idx.Finish(&indices));
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, indices));
  return out(taken.record_batch());
}

namespace {

class StreamingDeduplicateExec : public DeduplicateExec {
 public:
  using DeduplicateExec::DeduplicateExec;

 protected:
  const char* exec_name() const override { return "StreamingDeduplicateExec"; }
  const char* state_operator_name() const override { return "dedupe"; }
  const char* value_schema() const override { return "[]"; }
  void NewValue(const arrow::Int64Array*, int64_t, std::string*) const override {}

  // Keys start with the event column, so the walk stops at the first key the watermark keeps.
  Result<state::StateStore::KeyAction> Evict(std::string_view k, std::string_view, int64_t evict_us) const override {
    using Action = state::StateStore::KeyAction;
    if (EncodedIsNull(k, 0)) return Action::kKeep;
    size_t pos = 0;
    ARROW_ASSIGN_OR_RAISE(int64_t raw, DecodeInt64(k, &pos));
    // The key holds the column in its own unit; compare in micros.
    return ScaleToMicros(raw, event_unit()) > evict_us ? Action::kStop : Action::kRemove;
  }
};

}  // namespace

Result<OperatorPtr> PlanDeduplicateExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children,
                                        PlannerContext* ctx) {
  if (node.within_watermark) return OperatorPtr();
  // A watermarked timestamp key column goes first in the key: it expires keys.
  const auto marked = node.input->WatermarkedColumns();
  std::vector<std::string> keys = node.key_columns;
  std::string event_column;
  for (size_t i = 0; i < keys.size(); ++i) {
    auto field = node.input->schema->GetFieldByName(keys[i]);
    if (marked.count(keys[i]) && field && field->type()->id() == arrow::Type::TIMESTAMP) {
      event_column = keys[i];
      std::rotate(keys.begin(), keys.begin() + static_cast<long>(i), keys.begin() + static_cast<long>(i) + 1);
      break;
    }
  }
  return std::make_unique<StreamingDeduplicateExec>(node, ctx->next_stateful_id++, std::move(*children), std::move(keys),
                                                    std::move(event_column));
}

}  // namespace sluice::exec
