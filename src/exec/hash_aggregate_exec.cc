// StateStoreSaveExec: streaming (and batch) aggregation of plain groups and of tumbling and
// sliding windows over the state store.
//
// Per batch: (A) the rows are grouped and their partial aggregates folded per group: when every
// grouping key has a fixed width (windows, integer, date and timestamp columns) by the
// vectorised path (fixed_key_aggregate.h: no key string per row, one per distinct group);
// otherwise rows are split into ranges, one per thread, each thread encodes the keys (window
// bounds first, so state iterates in window-end order), drops late rows and folds the rest into
// per-partition hash maps of partials, merged in row order. (B) per partition, in parallel: each
// distinct key of the batch is read from state once and its partials merged after the stored
// ones (state first: it holds earlier rows) and written back once; then the output mode decides
// what is emitted and evicted. (C) the emitted keys and partials become the output columns.
//
// Eviction (append and update): keys whose event time (window end, or the watermarked grouping
// column) is at or before the batch's watermark are removed; append emits them as they go.
// Rows whose window ends at or before the previous batch's watermark are dropped as late.
#include <arrow/api.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>

#include "exec/aggregate_exec.h"
#include "exec/fixed_key_aggregate.h"
#include "exec/physical_planner.h"
#include "exec/row_codec.h"
#include "state/partitioning.h"

namespace sluice::exec {
namespace {

// Emitted rows whose key is window bounds and integer-like grouping values and whose
// aggregates are all counts (a windowed count, the commonest streaming aggregation): each value
// is decoded into a plain vector per column, and the vectors become arrays once, in Finish (a
// builder's checked append per value cost more than decoding the row).
class IntegerColumns {
 public:
  static bool Fits(const AggregateLayout& l, const AccumulatorSet& accs) {
    if (!accs.CountsOnly()) return false;
    for (const int col : l.group_out) {
      if (!IsIntegerLike(l.schema->field(col)->type()->id())) return false;
    }
    return l.schema->num_fields() == (l.windowed ? 2 : 0) + static_cast<int>(l.group_out.size() + accs.size());
  }

  IntegerColumns(const AggregateLayout& l, const AccumulatorSet& accs)
      : l_(l), groups_(l.group_out.size()), group_valid_(l.group_out.size()), counts_(accs.size()) {}

  void Reserve(int64_t rows) {
    const auto n = static_cast<size_t>(rows_ + rows);  // on top of the rows emitted so far
    starts_.reserve(n);
    ends_.reserve(n);
    for (auto& g : groups_) g.reserve(n);
    for (auto& c : counts_) c.reserve(n);
  }

  Status Emit(std::string_view key, std::string_view value) {
    ++rows_;
    size_t pos = 0;
    if (l_.windowed) {
      ARROW_ASSIGN_OR_RAISE(int64_t wend, DecodeInt64(key, &pos));
      ARROW_ASSIGN_OR_RAISE(int64_t wstart, DecodeInt64(key, &pos));
      ends_.push_back(wend);
      starts_.push_back(wstart);
    }
    for (size_t k = 0; k < groups_.size(); ++k) {
      if (EncodedIsNull(key, pos)) {
        ++pos;
        // Validity is kept from a column's first null on (a column without nulls needs none).
        if (group_valid_[k].empty()) group_valid_[k].assign(groups_[k].size(), 1);
        group_valid_[k].push_back(0);
        groups_[k].push_back(0);
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(int64_t v, DecodeInt64(key, &pos));
      groups_[k].push_back(v);
      if (!group_valid_[k].empty()) group_valid_[k].push_back(1);
    }
    if (pos != key.size()) {
      return Status::IOError("state key of ", key.size(), " bytes has ", key.size() - pos,
                             " bytes after its grouping values: the state does not match this aggregation");
    }
    size_t vpos = 0;
    for (auto& c : counts_) {
      ARROW_ASSIGN_OR_RAISE(uint64_t n, GetFixed64(value, &vpos));
      c.push_back(static_cast<int64_t>(n));
    }
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::Table>> Finish() const {
    const arrow::Schema& schema = *l_.schema;
    arrow::ArrayVector columns(static_cast<size_t>(schema.num_fields()));
    auto make = [&](int col, const std::vector<int64_t>& values, const std::vector<uint8_t>& valid) -> Status {
      ARROW_ASSIGN_OR_RAISE(columns[static_cast<size_t>(col)], IntegerArray(schema.field(col)->type(), values, valid));
      return Status::OK();
    };
    const std::vector<uint8_t> all_valid;
    if (l_.windowed) {
      ARROW_RETURN_NOT_OK(make(l_.window_start_out, starts_, all_valid));
      ARROW_RETURN_NOT_OK(make(l_.window_start_out + 1, ends_, all_valid));
    }
    for (size_t k = 0; k < groups_.size(); ++k) ARROW_RETURN_NOT_OK(make(l_.group_out[k], groups_[k], group_valid_[k]));
    for (size_t j = 0; j < counts_.size(); ++j) {
      ARROW_RETURN_NOT_OK(make(static_cast<int>(l_.first_agg_out + j), counts_[j], all_valid));
    }
    return arrow::Table::Make(l_.schema, columns, rows_);
  }

 private:
  template <typename T>
  static Result<std::shared_ptr<arrow::Array>> Typed(const std::shared_ptr<arrow::DataType>& type,
                                                     const std::vector<int64_t>& values,
                                                     const std::vector<uint8_t>& valid) {
    using C = typename T::c_type;
    arrow::NumericBuilder<T> b(type, arrow::default_memory_pool());
    const uint8_t* valid_bytes = valid.empty() ? nullptr : valid.data();
    if constexpr (sizeof(C) == sizeof(int64_t)) {
      ARROW_RETURN_NOT_OK(b.AppendValues(reinterpret_cast<const C*>(values.data()), static_cast<int64_t>(values.size()),
                                         valid_bytes));
    } else {
      std::vector<C> narrow(values.begin(), values.end());
      ARROW_RETURN_NOT_OK(b.AppendValues(narrow.data(), static_cast<int64_t>(narrow.size()), valid_bytes));
    }
    return b.Finish();
  }

  // `values` as an array of `type` (integer-like: row_codec.h), null where valid[i] is 0.
  static Result<std::shared_ptr<arrow::Array>> IntegerArray(const std::shared_ptr<arrow::DataType>& type,
                                                            const std::vector<int64_t>& values,
                                                            const std::vector<uint8_t>& valid) {
    switch (type->id()) {
      case arrow::Type::INT8: return Typed<arrow::Int8Type>(type, values, valid);
      case arrow::Type::INT16: return Typed<arrow::Int16Type>(type, values, valid);
      case arrow::Type::INT32: return Typed<arrow::Int32Type>(type, values, valid);
      case arrow::Type::INT64: return Typed<arrow::Int64Type>(type, values, valid);
      case arrow::Type::UINT8: return Typed<arrow::UInt8Type>(type, values, valid);
      case arrow::Type::UINT16: return Typed<arrow::UInt16Type>(type, values, valid);
      case arrow::Type::UINT32: return Typed<arrow::UInt32Type>(type, values, valid);
      case arrow::Type::UINT64: return Typed<arrow::UInt64Type>(type, values, valid);
      case arrow::Type::DATE32: return Typed<arrow::Date32Type>(type, values, valid);
      case arrow::Type::DATE64: return Typed<arrow::Date64Type>(type, values, valid);
      case arrow::Type::TIMESTAMP: return Typed<arrow::TimestampType>(type, values, valid);
      default: return Status::Invalid("aggregate output column of type ", type->ToString(), " is not an integer type");
    }
  }

  const AggregateLayout& l_;
  std::vector<int64_t> starts_, ends_;           // window bounds (windowed)
  std::vector<std::vector<int64_t>> groups_;     // per grouping column
  std::vector<std::vector<uint8_t>> group_valid_;  // per grouping column: empty until its first null
  std::vector<std::vector<int64_t>> counts_;     // per aggregate call
  int64_t rows_ = 0;  // emitted (a grouping without aggregates has no count column to tell)
};

// One partition's output rows, decoded into output columns as they are emitted: no copy of an
// emitted key or value outlives the call (update mode emits every key of the batch: 10^6 copies
// were 64 MB).
class PartitionRows {
 public:
  PartitionRows(const AggregateLayout& l, const AccumulatorSet& accs, int op, int partition)
      : l_(l), accs_(accs), op_(op), partition_(partition) {
    // With the vectorised path (SLUICE_AGGREGATION=generic turns both off, to compare).
    if (FixedKeyAggregationEnabled() && IntegerColumns::Fits(l, accs)) integers_.emplace(l, accs);
  }

  /// Room for `rows` more rows (update mode knows how many it emits).
  Status Reserve(int64_t rows) {
    if (integers_) {
      integers_->Reserve(rows);
      return Status::OK();
    }
    ARROW_RETURN_NOT_OK(Start());
    return out_->Reserve(rows);
  }
  /// Appends the row of one state entry. A key or value that does not decode is reported with
  /// the operator and partition whose state holds it.
  Status Emit(std::string_view key, std::string_view value) {
    Status st = integers_ ? integers_->Emit(key, value) : EmitRow(key, value);
    if (ARROW_PREDICT_TRUE(st.ok())) {
      ++rows_;
      return st;
    }
    if (st.IsIOError()) {
      return Status::IOError("State of operator ", op_, " partition ", partition_, " is unreadable: ", st.message());
    }
    return st;
  }
  /// The rows emitted, or null when there were none.
  Result<std::shared_ptr<arrow::Table>> Finish() {
    if (rows_ == 0) return nullptr;
    if (integers_) return integers_->Finish();
    return out_->Finish(l_.schema);
  }

 private:
  Status EmitRow(std::string_view key, std::string_view value) {
    ARROW_RETURN_NOT_OK(Start());
    size_t pos = 0;
    if (l_.windowed) {
      ARROW_ASSIGN_OR_RAISE(int64_t wend, DecodeInt64(key, &pos));
      ARROW_ASSIGN_OR_RAISE(int64_t wstart, DecodeInt64(key, &pos));
      ARROW_RETURN_NOT_OK(out_->AppendTimestamp(l_.window_start_out, wstart));
      ARROW_RETURN_NOT_OK(out_->AppendTimestamp(l_.window_start_out + 1, wend));
    }
    ARROW_RETURN_NOT_OK(out_->AppendGroups(l_, key, &pos));
    size_t vpos = 0;
    ARROW_RETURN_NOT_OK(accs_.Decode(value, &vpos, &partials_));  // resets partials_ in place
    return accs_.Finish(partials_, out_->builders, l_.first_agg_out);
  }
  Status Start() {
    if (!out_) {
      ARROW_ASSIGN_OR_RAISE(auto made, AggregateOutput::Make(*l_.schema));
      out_.emplace(std::move(made));
    }
    return Status::OK();
  }

  const AggregateLayout& l_;
  const AccumulatorSet& accs_;
  const int op_, partition_;
  std::optional<IntegerColumns> integers_;  // the fast path, when the rows fit it
  std::optional<AggregateOutput> out_;
  Accs partials_;
  int64_t rows_ = 0;
};

using PartialMap = std::unordered_map<std::string, Accs>;

// The batch's partials of one partition, ready to fold into state: keys[i] (in bytewise order
// in update mode, which emits them in that order), and merge(i, stored value, out) computing the
// value to store for keys[i].
struct PartitionUpdate {
  std::vector<std::string_view> keys;
  std::function<Status(size_t i, std::optional<std::string_view> old, std::string* value)> merge;
};

class HashAggregateExec : public AggregateExec {
 public:
  using AggregateExec::AggregateExec;

 protected:
  const char* exec_name() const override { return "StateStoreSaveExec"; }
  const char* state_operator_name() const override { return "stateStoreSave"; }
  Result<std::shared_ptr<arrow::Table>> Aggregate(const std::vector<AggregateInputs>& parts,
                                                  const AggregateSettings& settings, ExecContext* ctx,
                                                  OperatorProgress* progress) const override;

 private:
  Status AggregateFixedKeys(const FixedKeyGroups& groups, const AggregateSettings& settings, ExecContext* ctx,
                            std::vector<PartitionRows>* emitted, OperatorProgress* progress) const;
  Status AggregateRows(const AggregateInputs& in, const AggregateSettings& settings, const AccumulatorSet& accs,
                       ExecContext* ctx, std::vector<PartitionRows>* emitted, OperatorProgress* progress) const;
  Status UpdatePartition(const AggregateSettings& settings, state::StateStore* store, const PartitionUpdate& update,
                         PartitionRows* out, int64_t* removal_ms) const;
};

Status HashAggregateExec::UpdatePartition(const AggregateSettings& settings, state::StateStore* store,
                                          const PartitionUpdate& update, PartitionRows* out,
                                          int64_t* removal_ms) const {
  const AggregateLayout& l = layout();
  const plan::OutputMode mode = settings.mode;
  if (mode == plan::OutputMode::kUpdate) ARROW_RETURN_NOT_OK(out->Reserve(static_cast<int64_t>(update.keys.size())));
  store->ReserveForPuts(static_cast<int64_t>(update.keys.size()));
  // One function for every key (it reads the key's index from `i`): a lambda made per key was
  // too large for std::function's inline buffer, an allocation and a free per group.
  size_t i = 0;
  const state::StateStore::UpdateFn merge = [&](std::optional<std::string_view> old, std::string* v) {
    ARROW_RETURN_NOT_OK(update.merge(i, old, v));
    if (mode == plan::OutputMode::kUpdate) return out->Emit(update.keys[i], *v);
    return Status::OK();
  };
  for (; i < update.keys.size(); ++i) ARROW_RETURN_NOT_OK(store->Update(update.keys[i], merge));
  const int64_t t1 = SteadyNowMs();
  if (mode == plan::OutputMode::kComplete) {
    ARROW_RETURN_NOT_OK(store->ForEach([&](std::string_view k, std::string_view v) { return out->Emit(k, v); }));
  } else if (l.evictable && settings.evict_us != kNoWatermark) {
    // Keys iterate in event-time order (window end / watermarked column first): stop at the
    // first one the watermark has not passed. Append mode emits the expired keys.
    using Action = state::StateStore::KeyAction;
    const bool emit = mode == plan::OutputMode::kAppend;
    auto expire = [&](std::string_view k, std::string_view v) -> Result<Action> {
      ARROW_ASSIGN_OR_RAISE(int64_t t, KeyTime(l, k));
      if (t == kNoWatermark) return Action::kKeep;
      if (t > settings.evict_us) return Action::kStop;
      if (emit) ARROW_RETURN_NOT_OK(out->Emit(k, v));
      return Action::kRemove;
    };
    if (l.windowed) {
      // A windowed key begins with its window's end: only the keys up to the watermark's
      // encoding can expire, and the store orders only those.
      std::string up_to;
      EncodeInt64(settings.evict_us, &up_to);
      ARROW_RETURN_NOT_OK(store->ForEachRemovingInRange("", up_to, expire));
    } else {
      ARROW_RETURN_NOT_OK(store->ForEachRemoving(expire));
    }
  }
  *removal_ms = SteadyNowMs() - t1;
  return Status::OK();
}

// (A) and (B) on the vectorised path (fixed_key_aggregate.h).
Status HashAggregateExec::AggregateFixedKeys(const FixedKeyGroups& groups, const AggregateSettings& settings,
                                             ExecContext* ctx, std::vector<PartitionRows>* emitted,
                                             OperatorProgress* progress) const {
  const int op = operator_id();
  const int P = ctx->stores->num_partitions();
  progress->num_rows_dropped_by_watermark += groups.dropped();
  std::vector<std::vector<uint32_t>> members(static_cast<size_t>(P));
  for (size_t g = 0; g < groups.size(); ++g) members[static_cast<size_t>(groups.partition(g))].push_back(static_cast<uint32_t>(g));
  std::vector<int64_t> update_ms(static_cast<size_t>(P), 0), removal_ms(static_cast<size_t>(P), 0);
  ARROW_RETURN_NOT_OK(ParallelFor(P, OperatorThreads(P), [&](int p) -> Status {
    const int64_t t0 = SteadyNowMs();
    ARROW_ASSIGN_OR_RAISE(state::StateStore * store, ctx->stores->Get(op, p));
    auto& ids = members[static_cast<size_t>(p)];
    // Update mode emits the batch's keys in key order; otherwise the order of the puts changes
    // nothing (the store orders its keys itself), so the sort is skipped.
    if (settings.mode == plan::OutputMode::kUpdate) {
      std::sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) { return groups.key(a) < groups.key(b); });
    }
    PartitionUpdate update;
    update.keys.reserve(ids.size());
    for (uint32_t g : ids) update.keys.emplace_back(groups.key(g));
    update.merge = [&](size_t i, std::optional<std::string_view> old, std::string* value) {
      return groups.Merge(ids[i], op, p, old, value);
    };
    ARROW_RETURN_NOT_OK(UpdatePartition(settings, store, update, &(*emitted)[static_cast<size_t>(p)],
                                        &removal_ms[static_cast<size_t>(p)]));
    update_ms[static_cast<size_t>(p)] = SteadyNowMs() - t0 - removal_ms[static_cast<size_t>(p)];
    return Status::OK();
  }));
  for (int p = 0; p < P; ++p) {
    progress->all_updates_time_ms += update_ms[static_cast<size_t>(p)];
    progress->all_removals_time_ms += removal_ms[static_cast<size_t>(p)];
  }
  return Status::OK();
}

// (A) and (B) on the generic path: a byte-string key per row.
Status HashAggregateExec::AggregateRows(const AggregateInputs& in, const AggregateSettings& settings,
                                        const AccumulatorSet& accs, ExecContext* ctx,
                                        std::vector<PartitionRows>* emitted, OperatorProgress* progress) const {
  const AggregateLayout& l = layout();
  const int op = operator_id();
  const int P = ctx->stores->num_partitions();
  const int T = OperatorThreads(P);
  const int64_t late_us = settings.late_us;

  // (A) rows -> per-thread, per-partition partial aggregates.
  const int ranges = in.num_rows >= 4096 ? T : 1;
  std::vector<std::vector<PartialMap>> partials(static_cast<size_t>(ranges), std::vector<PartialMap>(static_cast<size_t>(P)));
  std::vector<int64_t> dropped(static_cast<size_t>(ranges), 0);
  const plan::WindowSpec* w = l.windowed ? &*window() : nullptr;
  ARROW_RETURN_NOT_OK(ParallelFor(ranges, T, [&](int r) -> Status {
    const int64_t begin = in.num_rows * r / ranges, end = in.num_rows * (r + 1) / ranges;
    auto& maps = partials[static_cast<size_t>(r)];
    for (auto& m : maps) m.reserve(static_cast<size_t>((end - begin) / P / 4 + 16));
    std::string key;
    auto fold = [&](int64_t row) -> Status {
      auto& slot = maps[static_cast<size_t>(state::PartitionOf(key, P))][key];
      if (slot.empty()) slot.resize(accs.size());
      return accs.Update(&slot, in.args, row);
    };
    for (int64_t row = begin; row < end; ++row) {
      if (w) {
        if (in.time_us->IsNull(row)) continue;  // no event time: in no window (as Spark)
        const int64_t ts = in.time_us->Value(row);
        const int64_t last_start = ts - FloorMod(ts, w->slide_us);
        for (int64_t start = last_start; start > ts - w->size_us; start -= w->slide_us) {
          const int64_t wend = start + w->size_us;
          if (wend <= late_us) {
            ++dropped[static_cast<size_t>(r)];
            continue;
          }
          key.clear();
          EncodeInt64(wend, &key);
          EncodeInt64(start, &key);
          EncodeGroups(in, row, &key);
          ARROW_RETURN_NOT_OK(fold(row));
        }
        continue;
      }
      key.clear();
      EncodeGroups(in, row, &key);
      if (l.time_first && late_us != kNoWatermark && !in.groups[0]->IsNull(row)) {
        size_t pos = 0;
        auto t = DecodeInt64(key, &pos);
        if (t.ok() && ScaleToMicros(*t, l.time_first_factor) <= late_us) {
          ++dropped[static_cast<size_t>(r)];
          continue;
        }
      }
      ARROW_RETURN_NOT_OK(fold(row));
    }
    return Status::OK();
  }));
  for (int64_t d : dropped) progress->num_rows_dropped_by_watermark += d;

  // (B) per partition: merge into state, decide what to emit and evict.
  std::vector<int64_t> update_ms(static_cast<size_t>(P), 0), removal_ms(static_cast<size_t>(P), 0);
  ARROW_RETURN_NOT_OK(ParallelFor(P, T, [&](int p) -> Status {
    const int64_t t0 = SteadyNowMs();
    ARROW_ASSIGN_OR_RAISE(state::StateStore * store, ctx->stores->Get(op, p));
    PartialMap merged = std::move(partials[0][static_cast<size_t>(p)]);
    for (int r = 1; r < ranges; ++r) {
      for (auto& [k, v] : partials[static_cast<size_t>(r)][static_cast<size_t>(p)]) {
        auto it = merged.find(k);
        if (it == merged.end()) {
          merged.emplace(k, std::move(v));
        } else {
          ARROW_RETURN_NOT_OK(accs.Merge(&it->second, v));
        }
      }
    }
    std::vector<std::pair<std::string, Accs>> keys(std::make_move_iterator(merged.begin()),
                                                   std::make_move_iterator(merged.end()));
    std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    PartitionUpdate update;
    update.keys.reserve(keys.size());
    for (const auto& kv : keys) update.keys.emplace_back(kv.first);
    update.merge = [&](size_t i, std::optional<std::string_view> old, std::string* value) {
      return MergeIntoStored(accs, op, p, old, std::move(keys[i].second), value);
    };
    ARROW_RETURN_NOT_OK(UpdatePartition(settings, store, update, &(*emitted)[static_cast<size_t>(p)],
                                        &removal_ms[static_cast<size_t>(p)]));
    update_ms[static_cast<size_t>(p)] = SteadyNowMs() - t0 - removal_ms[static_cast<size_t>(p)];
    return Status::OK();
  }));
  for (int p = 0; p < P; ++p) {
    progress->all_updates_time_ms += update_ms[static_cast<size_t>(p)];
    progress->all_removals_time_ms += removal_ms[static_cast<size_t>(p)];
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::Table>> HashAggregateExec::Aggregate(const std::vector<AggregateInputs>& parts,
                                                                    const AggregateSettings& settings, ExecContext* ctx,
                                                                    OperatorProgress* progress) const {
  const AggregateLayout& l = layout();
  AccumulatorSet accs(aggs());
  ARROW_RETURN_NOT_OK(accs.status());
  const int P = ctx->stores->num_partitions();
  std::vector<PartitionRows> emitted;
  emitted.reserve(static_cast<size_t>(P));
  for (int p = 0; p < P; ++p) emitted.emplace_back(l, accs, operator_id(), p);
  ARROW_ASSIGN_OR_RAISE(auto groups, FixedKeyGroups::Build(l, l.windowed ? &*window() : nullptr, aggs(), accs, parts,
                                                           settings.late_us, P));
  if (groups) {
    ARROW_RETURN_NOT_OK(AggregateFixedKeys(*groups, settings, ctx, &emitted, progress));
  } else {
    ARROW_ASSIGN_OR_RAISE(const AggregateInputs in, ConcatInputs(parts));
    ARROW_RETURN_NOT_OK(AggregateRows(in, settings, accs, ctx, &emitted, progress));
  }

  // (C) the output: the partitions' rows in partition order (one chunk each, not copied).
  std::vector<std::shared_ptr<arrow::Table>> tables;
  for (auto& part : emitted) {
    ARROW_ASSIGN_OR_RAISE(auto t, part.Finish());
    if (t) tables.push_back(std::move(t));
  }
  if (tables.size() == 1) return tables[0];
  if (!tables.empty()) return arrow::ConcatenateTables(tables);
  ARROW_ASSIGN_OR_RAISE(auto out, AggregateOutput::Make(*schema()));
  // A global aggregate (no grouping) always has its one row in complete mode, as in SQL; in
  // update mode the first batch emits it even without input rows (as Spark does for batch 0).
  if (global() &&
      (settings.mode == plan::OutputMode::kComplete || (settings.mode == plan::OutputMode::kUpdate && ctx->batch_id == 0))) {
    ARROW_RETURN_NOT_OK(accs.Finish(Accs(accs.size()), out.builders, 0));
  }
  return out.Finish(schema());
}

}  // namespace

Result<OperatorPtr> PlanHashAggregateExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children,
                                          PlannerContext* ctx) {
  return std::make_unique<HashAggregateExec>(node, ctx->next_stateful_id++, std::move(*children));
}

}  // namespace sluice::exec
