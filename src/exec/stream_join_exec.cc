// StreamingSymmetricHashJoinExec: a join of two streams (Spark's operator of that name). Both
// inputs are buffered in the state store; each micro-batch:
//   1. left rows (minus rows late by the previous watermark) are joined with the right state,
//      then added to the left state;
//   2. right rows are joined with the left state, which now holds this batch's left rows too,
//      so a pair arriving in one batch is produced exactly once; then added to the right state;
//   3. each side's state is evicted by its rule (plan/stream_join_eviction.h) at the batch's
//      watermark; an evicted row never matched on a side whose unmatched rows are kept (left
//      for left outer, right for right outer, both for full outer) is emitted null-extended:
//      its match can no longer arrive. A batch without data whose watermark moved runs step 3.
// A left semi join emits a left row once: at once if the right state matches it (it is then
// not stored), else when the first right row matching it arrives. A conjunct of the condition
// reading one side only is applied to that side's rows before the join (a row failing it is
// not stored and, on a kept side, is emitted null-extended at once). A row with a NULL join key
// matches nothing; it is stored only on a kept side.
//
// State: one store per partition (partition = hash of the encoded join key); its layout, and the
// time entries eviction finds expired rows by, in exec/stream_join_state.h.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <map>
#include <set>

#include "exec/expr_eval.h"
#include "exec/physical_planner.h"
#include "exec/row_codec.h"
#include "exec/stateful_util.h"
#include "exec/stream_join_state.h"
#include "plan/stream_join_eviction.h"
#include "state/partitioning.h"
#include "util/compute_init.h"

namespace sluice::exec {
namespace {

using plan::JoinOutputColumn;
using plan::JoinSideEviction;
using plan::JoinSpec;
using plan::JoinType;

using stream_join_state::CountKey;
using stream_join_state::GetCount;
using stream_join_state::PutCount;
using stream_join_state::RowKey;
using stream_join_state::TotalKey;

struct Buffered : OperatorState {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches[2];
};

// What one batch did to the state, per side.
struct SideCounts {
  int64_t added = 0;
  int64_t evicted = 0;
  int64_t dropped_late = 0;
};

bool ReadsOnly(const plan::Expr& e, const arrow::Schema& schema) {
  if (e.kind == plan::Expr::Kind::kColumn) return schema.GetFieldIndex(e.name) >= 0;
  for (const auto& a : e.args) {
    if (!ReadsOnly(*a, schema)) return false;
  }
  return true;
}

class StreamingSymmetricHashJoinExec : public StatefulOperator {
 public:
  StreamingSymmetricHashJoinExec(const plan::LogicalPlan& node, int operator_id, std::vector<OperatorPtr> children,
                                 std::string late_columns[2])
      : StatefulOperator(node.schema, std::move(children), operator_id), spec_(node.join),
        eviction_(plan::AnalyzeStreamJoinEviction(node)) {
    late_column_[0] = late_columns[0];
    late_column_[1] = late_columns[1];
    // Conjuncts of the condition beyond the keys: those of one side filter that side's rows
    // before the join (Spark's preJoinFilter); the rest filter the pairs.
    if (spec_->residual) {
      std::vector<plan::ExprPtr> parts, pre[2], post;
      plan::SplitConjuncts(spec_->residual, &parts);
      for (const auto& p : parts) {
        if (ReadsOnly(*p, *side_schema(0))) {
          pre[0].push_back(p);
        } else if (ReadsOnly(*p, *side_schema(1))) {
          pre[1].push_back(p);
        } else {
          post.push_back(p);
        }
      }
      pre_filter_[0] = pre[0].empty() ? nullptr : plan::AllOf(pre[0]);
      pre_filter_[1] = pre[1].empty() ? nullptr : plan::AllOf(pre[1]);
      post_filter_ = post.empty() ? nullptr : plan::AllOf(post);
    }
  }

  std::string Describe() const override {
    std::string keys;
    for (size_t i = 0; i < spec_->left_keys.size(); ++i) {
      keys += (i ? ", " : "") + spec_->left_keys[i]->ToString() + " = " + spec_->right_keys[i]->ToString();
    }
    std::string line = std::string("StreamingSymmetricHashJoinExec ") + plan::JoinTypeName(spec_->type) + " [" + keys + "]";
    if (spec_->residual) line += " condition " + spec_->residual->ToString();
    return line + " (both inputs buffered in the state store; left state evicted when " +
           eviction_.left.ToString(*spec_, true) + ", right state when " + eviction_.right.ToString(*spec_, false) + ")";
  }

  state::StateOperatorMetadata StateMetadata(int num_partitions) const override {
    state::StateOperatorMetadata md;
    md.operator_id = operator_id();
    md.num_partitions = num_partitions;
    md.operator_name = "symmetricHashJoin";
    std::string key = "side string";
    for (const auto& k : spec_->left_keys) key += ", " + k->ToString();
    md.key_schema = "[" + key + ", index bigint]";
    std::string value;
    for (int s = 0; s < 2; ++s) {
      value += std::string(s ? " | " : "") + (s ? "right" : "left") + ": matched boolean";
      for (const auto& f : side_schema(s)->fields()) value += ", " + f->name() + " " + plan::TypeName(*f->type());
    }
    md.value_schema = "[" + value + "]";
    return md;
  }

  bool RunsNoDataBatch(plan::OutputMode) const override { return eviction_.left.evicts() || eviction_.right.evicts(); }

  Result<std::unique_ptr<OperatorState>> MakeState(ExecContext*) const override {
    ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
    return std::unique_ptr<OperatorState>(std::make_unique<Buffered>());
  }

  Status Push(ExecContext*, OperatorState* state, int child_index, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer&) const override {
    static_cast<Buffered*>(state)->batches[child_index == 0 ? 0 : 1].push_back(batch);
    return Status::OK();
  }

  Status Finish(ExecContext* ctx, OperatorState* state, const BatchConsumer& out) const override {
    auto* buffered = static_cast<Buffered*>(state);
    OperatorProgress progress;
    progress.operator_name = "symmetricHashJoin";
    SideCounts counts[2];
    const int64_t t0 = SteadyNowMs();
    for (int side = 0; side < 2; ++side) {
      ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(side_schema(side), buffered->batches[side]));
      buffered->batches[side].clear();
      ARROW_ASSIGN_OR_RAISE(auto batch, table->CombineChunksToBatch());
      ARROW_RETURN_NOT_OK(JoinSide(ctx, side, batch, &counts[side], out));
    }
    const int64_t t1 = SteadyNowMs();
    ARROW_RETURN_NOT_OK(Evict(ctx, counts, out));
    progress.all_updates_time_ms = t1 - t0;
    progress.all_removals_time_ms = SteadyNowMs() - t1;

    int64_t totals[2] = {0, 0};
    for (int p = 0; p < ctx->stores->num_partitions(); ++p) {
      ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(operator_id(), p));
      for (int side = 0; side < 2; ++side) {
        ARROW_ASSIGN_OR_RAISE(int64_t n, GetCount(*store, TotalKey(side)));
        totals[side] += n;
      }
    }
    progress.num_rows_total = totals[0] + totals[1];
    progress.num_rows_updated = counts[0].added + counts[1].added;
    progress.num_rows_removed = counts[0].evicted + counts[1].evicted;
    progress.num_rows_dropped_by_watermark = counts[0].dropped_late + counts[1].dropped_late;
    progress.custom_metrics = {{"numLeftStateRows", totals[0]},
                               {"numRightStateRows", totals[1]},
                               {"numLeftRowsEvicted", counts[0].evicted},
                               {"numRightRowsEvicted", counts[1].evicted}};
    return ReportProgress(ctx, std::move(progress), /*count_store_rows=*/false);
  }

 private:
  const std::shared_ptr<arrow::Schema>& side_schema(int side) const { return children()[static_cast<size_t>(side)]->schema(); }
  const std::vector<plan::ExprPtr>& keys(int side) const { return side == 0 ? spec_->left_keys : spec_->right_keys; }
  // Whether a side's rows that never matched are emitted (null-extended).
  bool KeepsUnmatched(int side) const { return side == 0 ? spec_->KeepsUnmatchedLeft() : spec_->KeepsUnmatchedRight(); }
  bool semi() const { return spec_->type == JoinType::kLeftSemi; }

  // The event time of each row of `rows` (this side's columns) that its eviction rule compares
  // with the watermark: the watermarked join key or event-time column, in micros.
  Result<std::shared_ptr<arrow::Int64Array>> EventTimes(int side, const arrow::RecordBatch& rows) const {
    const JoinSideEviction& rule = side == 0 ? eviction_.left : eviction_.right;
    std::shared_ptr<arrow::Array> time;
    if (rule.rule == JoinSideEviction::Rule::kKey) {
      ARROW_ASSIGN_OR_RAISE(time, EvaluateToArray(*keys(side)[static_cast<size_t>(rule.key_index)], rows));
    } else {
      time = rows.GetColumnByName(rule.column);
    }
    return TimestampMicros(time);
  }

  // The encoded join key of each row ("" for a row with a NULL key: it matches nothing).
  Result<std::vector<std::string>> EncodeKeys(int side, const arrow::RecordBatch& batch, std::vector<bool>* null_key) const {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& k : keys(side)) {
      ARROW_ASSIGN_OR_RAISE(auto a, EvaluateToArray(*k, batch));
      ARROW_ASSIGN_OR_RAISE(a, stream_join_state::NormaliseFloatKey(a));
      columns.push_back(std::move(a));
    }
    std::vector<std::string> out(static_cast<size_t>(batch.num_rows()));
    null_key->assign(out.size(), false);
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      for (const auto& c : columns) {
        if (c->IsNull(r)) (*null_key)[static_cast<size_t>(r)] = true;
        EncodeValue(*c, r, &out[static_cast<size_t>(r)]);
      }
    }
    return out;
  }

  Status DecodeRow(int side, std::string_view value, std::vector<std::unique_ptr<arrow::ArrayBuilder>>* builders) const {
    size_t pos = 1;  // after the matched flag
    const auto& schema = *side_schema(side);
    for (int c = 0; c < schema.num_fields(); ++c) {
      ARROW_RETURN_NOT_OK(DecodeValue(value, &pos, *schema.field(c)->type(), (*builders)[static_cast<size_t>(c)].get()));
    }
    return Status::OK();
  }

  Result<std::vector<std::unique_ptr<arrow::ArrayBuilder>>> Builders(int side) const {
    std::vector<std::unique_ptr<arrow::ArrayBuilder>> b;
    for (const auto& f : side_schema(side)->fields()) {
      ARROW_ASSIGN_OR_RAISE(auto builder, arrow::MakeBuilder(f->type()));
      b.push_back(std::move(builder));
    }
    return b;
  }

  Result<std::shared_ptr<arrow::RecordBatch>> FinishBuilders(int side,
                                                             std::vector<std::unique_ptr<arrow::ArrayBuilder>>* b) const {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    int64_t n = 0;
    for (auto& builder : *b) {
      ARROW_ASSIGN_OR_RAISE(auto a, builder->Finish());
      n = a->length();
      columns.push_back(std::move(a));
    }
    return arrow::RecordBatch::Make(side_schema(side), n, std::move(columns));
  }

  static Result<std::shared_ptr<arrow::RecordBatch>> TakeRows(const std::shared_ptr<arrow::RecordBatch>& batch,
                                                              const std::vector<int64_t>& rows) {
    arrow::Int64Builder idx;
    ARROW_RETURN_NOT_OK(idx.AppendValues(rows));
    ARROW_ASSIGN_OR_RAISE(auto indices, idx.Finish());
    ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, indices));
    return taken.record_batch();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> NullRows(int side, int64_t n) const {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& f : side_schema(side)->fields()) {
      ARROW_ASSIGN_OR_RAISE(auto a, arrow::MakeArrayOfNull(f->type(), n));
      columns.push_back(std::move(a));
    }
    return arrow::RecordBatch::Make(side_schema(side), n, std::move(columns));
  }

  // The output rows of aligned left and right rows (either may be all NULL).
  Result<std::shared_ptr<arrow::RecordBatch>> Assemble(const arrow::RecordBatch& left, const arrow::RecordBatch& right) const {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const JoinOutputColumn& c : spec_->output) {
      if (c.from == JoinOutputColumn::From::kLeft) {
        columns.push_back(left.column(c.left));
      } else if (c.from == JoinOutputColumn::From::kRight) {
        columns.push_back(right.column(c.right));
      } else {
        const auto& type = schema()->field(static_cast<int>(columns.size()))->type();
        ARROW_ASSIGN_OR_RAISE(auto l, arrow::compute::Cast(left.column(c.left), type));
        ARROW_ASSIGN_OR_RAISE(auto r, arrow::compute::Cast(right.column(c.right), type));
        ARROW_ASSIGN_OR_RAISE(auto v, arrow::compute::CallFunction("coalesce", {l, r}));
        columns.push_back(v.make_array());
      }
    }
    return arrow::RecordBatch::Make(schema(), left.num_rows(), std::move(columns));
  }

  // Pairs (left rows, right rows, aligned) for which the post-join conjuncts hold.
  Result<std::vector<bool>> PostFilter(const arrow::RecordBatch& left, const arrow::RecordBatch& right) const {
    std::vector<bool> keep(static_cast<size_t>(left.num_rows()), true);
    if (!post_filter_ || left.num_rows() == 0) return keep;
    std::vector<std::shared_ptr<arrow::Array>> columns = left.columns();
    for (const auto& c : right.columns()) columns.push_back(c);
    auto pairs = arrow::RecordBatch::Make(spec_->pair_schema, left.num_rows(), std::move(columns));
    ARROW_ASSIGN_OR_RAISE(auto mask, EvaluateToArray(*post_filter_, *pairs));
    const auto& m = static_cast<const arrow::BooleanArray&>(*mask);
    for (int64_t i = 0; i < m.length(); ++i) keep[static_cast<size_t>(i)] = m.IsValid(i) && m.Value(i);
    return keep;
  }

  // Steps 1 and 2 for one side: joins `batch` (this side's new rows) with the other side's
  // state, then buffers the rows in this side's state.
  Status JoinSide(ExecContext* ctx, int side, const std::shared_ptr<arrow::RecordBatch>& batch, SideCounts* counts,
                  const BatchConsumer& out) const {
    const int other = 1 - side;
    const int64_t n = batch->num_rows();
    if (n == 0) return Status::OK();
    std::vector<bool> usable(static_cast<size_t>(n), true);
    if (ctx->streaming && !late_column_[side].empty() && ctx->late_watermark_ms != kNoWatermark) {
      ARROW_ASSIGN_OR_RAISE(auto ts, TimestampMicros(batch->GetColumnByName(late_column_[side])));
      const int64_t late_us = WatermarkUs(ctx->late_watermark_ms);
      for (int64_t r = 0; r < n; ++r) {
        if (!ts->IsNull(r) && ts->Value(r) <= late_us) {
          usable[static_cast<size_t>(r)] = false;
          ++counts->dropped_late;
        }
      }
    }
    std::vector<bool> pre(static_cast<size_t>(n), true);
    if (pre_filter_[side]) {
      ARROW_ASSIGN_OR_RAISE(auto mask, EvaluateToArray(*pre_filter_[side], *batch));
      const auto& m = static_cast<const arrow::BooleanArray&>(*mask);
      for (int64_t r = 0; r < n; ++r) pre[static_cast<size_t>(r)] = m.IsValid(r) && m.Value(r);
    }
    std::vector<bool> null_key;
    ARROW_ASSIGN_OR_RAISE(auto encoded, EncodeKeys(side, *batch, &null_key));
    const int P = ctx->stores->num_partitions();

    // Candidates: (this row, the other side's state row key, its value).
    std::vector<int64_t> cand_rows;
    std::vector<std::string> cand_keys;
    ARROW_ASSIGN_OR_RAISE(auto other_builders, Builders(other));
    std::vector<bool> cand_matched_before;
    for (int64_t r = 0; r < n; ++r) {
      const size_t ri = static_cast<size_t>(r);
      if (!usable[ri] || !pre[ri] || null_key[ri]) continue;
      ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(operator_id(), state::PartitionOf(encoded[ri], P)));
      ARROW_ASSIGN_OR_RAISE(int64_t count, GetCount(*store, CountKey(other, encoded[ri])));
      for (int64_t i = 0; i < count; ++i) {
        std::string key = RowKey(other, encoded[ri], static_cast<uint64_t>(i));
        ARROW_ASSIGN_OR_RAISE(auto value, store->Get(key));
        if (!value || value->empty()) return stream_join_state::MissingRow(operator_id(), other, i);
        ARROW_RETURN_NOT_OK(DecodeRow(other, *value, &other_builders));
        cand_rows.push_back(r);
        cand_keys.push_back(std::move(key));
        cand_matched_before.push_back((*value)[0] != 0);
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto other_rows, FinishBuilders(other, &other_builders));
    ARROW_ASSIGN_OR_RAISE(auto this_rows, TakeRows(batch, cand_rows));
    const std::shared_ptr<arrow::RecordBatch>& left = side == 0 ? this_rows : other_rows;
    const std::shared_ptr<arrow::RecordBatch>& right = side == 0 ? other_rows : this_rows;
    ARROW_ASSIGN_OR_RAISE(auto keep, PostFilter(*left, *right));

    // Matched flags of the other side's rows, and the pairs to emit.
    std::vector<bool> this_matched(static_cast<size_t>(n), false);
    std::vector<int64_t> emit;  // candidate indexes
    std::set<std::string> newly_matched;
    for (size_t c = 0; c < keep.size(); ++c) {
      if (!keep[c]) continue;
      this_matched[static_cast<size_t>(cand_rows[c])] = true;
      const bool first_match = !cand_matched_before[c] && newly_matched.insert(cand_keys[c]).second;
      if (semi()) {
        // Right side: a left state row is emitted the first time a right row matches it.
        if (side == 1 && first_match) emit.push_back(static_cast<int64_t>(c));
      } else {
        emit.push_back(static_cast<int64_t>(c));
      }
    }
    for (const auto& key : newly_matched) {
      // key = <other side> 0x01 <join key> <index>: the join key decides the partition.
      const std::string join_key(stream_join_state::JoinKeyOfRowKey(key));
      ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(operator_id(), state::PartitionOf(join_key, P)));
      ARROW_ASSIGN_OR_RAISE(auto value, store->Get(key));
      std::string v = *value;
      v[0] = 1;
      ARROW_RETURN_NOT_OK(store->Put(key, v));
    }
    if (!emit.empty()) {
      ARROW_ASSIGN_OR_RAISE(auto l, TakeRows(left, emit));
      if (semi()) {
        ARROW_ASSIGN_OR_RAISE(auto rows, Assemble(*l, *l));
        ARROW_RETURN_NOT_OK(out(rows));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto r, TakeRows(right, emit));
        ARROW_ASSIGN_OR_RAISE(auto rows, Assemble(*l, *r));
        ARROW_RETURN_NOT_OK(out(rows));
      }
    }

    // This side's rows: emitted now (semi left rows with a match; rows failing this side's own
    // conjuncts on a kept side), else buffered.
    std::vector<int64_t> now;
    std::vector<int64_t> added_per_partition(static_cast<size_t>(P), 0);
    std::shared_ptr<arrow::Int64Array> times;  // for the time entries of a side that evicts
    std::vector<stream_join_state::TimeLists> time_lists(static_cast<size_t>(P));
    if (ctx->streaming && (side == 0 ? eviction_.left : eviction_.right).evicts()) {
      ARROW_ASSIGN_OR_RAISE(times, EventTimes(side, *batch));
    }
    for (int64_t r = 0; r < n; ++r) {
      const size_t ri = static_cast<size_t>(r);
      if (!usable[ri]) continue;
      if (!pre[ri]) {
        if (KeepsUnmatched(side)) now.push_back(r);
        continue;
      }
      if (semi() && side == 0 && this_matched[ri]) {
        now.push_back(r);
        continue;
      }
      // A NULL key never matches: such a row is buffered only on a kept side, to be emitted
      // null-extended at eviction as Spark does (Spark's inferred IsNotNull drops it elsewhere).
      if (null_key[ri] && !KeepsUnmatched(side)) continue;
      const int p = state::PartitionOf(encoded[ri], P);
      ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(operator_id(), p));
      const std::string count_key = CountKey(side, encoded[ri]);
      ARROW_ASSIGN_OR_RAISE(int64_t count, GetCount(*store, count_key));
      std::string value(1, this_matched[ri] ? '\x01' : '\x00');
      for (int c = 0; c < batch->num_columns(); ++c) EncodeValue(*batch->column(c), r, &value);
      ARROW_RETURN_NOT_OK(store->Put(RowKey(side, encoded[ri], static_cast<uint64_t>(count)), value));
      ARROW_RETURN_NOT_OK(PutCount(store, count_key, count + 1));
      if (times && times->IsValid(r)) {
        stream_join_state::AddToTimeLists(times->Value(r), encoded[ri], &time_lists[static_cast<size_t>(p)]);
      }
      ++added_per_partition[static_cast<size_t>(p)];
      ++counts->added;
    }
    for (int p = 0; p < P; ++p) {
      if (added_per_partition[static_cast<size_t>(p)] == 0) continue;
      ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(operator_id(), p));
      ARROW_ASSIGN_OR_RAISE(int64_t total, GetCount(*store, TotalKey(side)));
      ARROW_RETURN_NOT_OK(PutCount(store, TotalKey(side), total + added_per_partition[static_cast<size_t>(p)]));
      ARROW_RETURN_NOT_OK(stream_join_state::PutTimeLists(store, side, time_lists[static_cast<size_t>(p)]));
    }
    if (now.empty()) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto mine, TakeRows(batch, now));
    if (semi()) {
      ARROW_ASSIGN_OR_RAISE(auto rows, Assemble(*mine, *mine));
      return out(rows);
    }
    ARROW_ASSIGN_OR_RAISE(auto nulls, NullRows(other, mine->num_rows()));
    ARROW_ASSIGN_OR_RAISE(auto rows, side == 0 ? Assemble(*mine, *nulls) : Assemble(*nulls, *mine));
    return out(rows);
  }

  // Step 3: removes the rows the watermark expired (every row in a batch query, where the inputs
  // are complete) and emits those of a kept side that never matched, the left side's first. A
  // streaming query finds the expired rows' keys through the time entries
  // (exec/stream_join_state.h); a store without them (written before they existed) is read
  // whole once, and its rows get them.
  Status Evict(ExecContext* ctx, SideCounts counts[2], const BatchConsumer& out) const {
    const JoinSideEviction* rules[2] = {&eviction_.left, &eviction_.right};
    const bool all = !ctx->streaming;
    bool evicts[2] = {all, all};
    int64_t threshold_us[2] = {0, 0};
    if (!all) {
      if (ctx->eviction_watermark_ms == kNoWatermark) return Status::OK();
      const int64_t wm_us = WatermarkUs(ctx->eviction_watermark_ms);
      for (int s = 0; s < 2; ++s) {
        evicts[s] = rules[s]->evicts();
        // Spark computes the range bound in whole ms (truncated), then compares micros.
        threshold_us[s] =
            rules[s]->rule == JoinSideEviction::Rule::kKey ? wm_us : (wm_us + rules[s]->offset_us) / 1000 * 1000;
      }
      if (!evicts[0] && !evicts[1]) return Status::OK();
    }
    std::vector<std::shared_ptr<arrow::RecordBatch>> unmatched[2];
    for (int p = 0; p < ctx->stores->num_partitions(); ++p) {
      ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(operator_id(), p));
      std::set<std::string> keys[2];
      bool indexed[2] = {false, false};
      bool reindex[2] = {false, false};
      bool scan[2] = {all, all};  // every row read in one walk, not the expired keys' rows alone
      if (!all) {
        ARROW_RETURN_NOT_OK(stream_join_state::GetIndexed(*store, indexed));
        for (int s = 0; s < 2; ++s) {
          if (!evicts[s] && indexed[s]) ARROW_RETURN_NOT_OK(stream_join_state::DropTimeEntries(store, s));
          if (!evicts[s]) continue;
          int64_t listed = 0;
          ARROW_RETURN_NOT_OK(
              stream_join_state::TakeExpiredKeys(store, operator_id(), p, s, threshold_us[s], &keys[s], &listed));
          reindex[s] = !indexed[s];
          // When a third of the side's rows or more may go, one walk over them all is cheaper than
          // looking each key's rows up.
          ARROW_ASSIGN_OR_RAISE(int64_t total, GetCount(*store, TotalKey(s)));
          scan[s] = total > 0 && (reindex[s] || listed * 3 >= total);
        }
        ARROW_RETURN_NOT_OK(stream_join_state::PutIndexed(store, indexed, evicts));
      }
      for (int s = 0; s < 2; ++s) {
        if (!scan[s] && keys[s].empty()) continue;
        stream_join_state::GatheredRows rows;
        ARROW_RETURN_NOT_OK(scan[s] ? stream_join_state::GatherAllRows(*store, s, &rows)
                                    : stream_join_state::GatherKeyRows(*store, operator_id(), s, keys[s], &rows));
        ARROW_RETURN_NOT_OK(
            EvictRows(store, s, rows, all, threshold_us[s], reindex[s], &counts[s], &unmatched[s]));
      }
    }
    for (int side = 0; side < 2; ++side) {
      for (const auto& mine : unmatched[side]) {
        ARROW_ASSIGN_OR_RAISE(auto nulls, NullRows(1 - side, mine->num_rows()));
        ARROW_ASSIGN_OR_RAISE(auto rows, side == 0 ? Assemble(*mine, *nulls) : Assemble(*nulls, *mine));
        ARROW_RETURN_NOT_OK(out(rows));
      }
    }
    return Status::OK();
  }

  // Rewrites the gathered rows of each key densely without the expired ones (every row with
  // `all`, else those whose event time is at or before threshold_us), counts them, and adds
  // those of a kept side that never matched to `unmatched`. With `reindex`, the rows kept get
  // their time entries.
  Status EvictRows(state::StateStore* store, int side, const stream_join_state::GatheredRows& g, bool all,
                   int64_t threshold_us, bool reindex, SideCounts* counts,
                   std::vector<std::shared_ptr<arrow::RecordBatch>>* unmatched) const {
    if (g.values.empty()) return Status::OK();
    const std::vector<std::string>& values = g.values;
    ARROW_ASSIGN_OR_RAISE(auto builders, Builders(side));
    for (const auto& v : values) ARROW_RETURN_NOT_OK(DecodeRow(side, v, &builders));
    ARROW_ASSIGN_OR_RAISE(auto rows, FinishBuilders(side, &builders));
    std::shared_ptr<arrow::Int64Array> times;
    if (!all) {
      ARROW_ASSIGN_OR_RAISE(times, EventTimes(side, *rows));
    }
    std::vector<int64_t> emit;
    stream_join_state::TimeLists time_lists;  // with `reindex`
    int64_t removed = 0;
    for (size_t k = 0; k < g.keys.size(); ++k) {
      const std::string& key = g.keys[k];
      const size_t begin = g.starts[k], n = g.starts[k + 1] - begin;
      size_t kept = 0;
      for (size_t j = 0; j < n; ++j) {
        const auto r = static_cast<int64_t>(begin + j);
        const std::string& value = values[begin + j];
        if (all || (times->IsValid(r) && times->Value(r) <= threshold_us)) {
          if (value[0] == 0 && KeepsUnmatched(side)) emit.push_back(r);
          continue;
        }
        if (kept != j) ARROW_RETURN_NOT_OK(store->Put(RowKey(side, key, kept), value));
        if (reindex && times->IsValid(r)) stream_join_state::AddToTimeLists(times->Value(r), key, &time_lists);
        ++kept;
      }
      if (kept == n) continue;
      for (size_t j = kept; j < n; ++j) ARROW_RETURN_NOT_OK(store->Remove(RowKey(side, key, j)));
      ARROW_RETURN_NOT_OK(PutCount(store, CountKey(side, key), static_cast<int64_t>(kept)));
      removed += static_cast<int64_t>(n - kept);
    }
    ARROW_RETURN_NOT_OK(stream_join_state::PutTimeLists(store, side, time_lists));
    if (removed > 0) {
      ARROW_ASSIGN_OR_RAISE(int64_t total, GetCount(*store, TotalKey(side)));
      ARROW_RETURN_NOT_OK(PutCount(store, TotalKey(side), total - removed));
      counts->evicted += removed;
    }
    if (!emit.empty()) {
      ARROW_ASSIGN_OR_RAISE(auto mine, TakeRows(rows, emit));
      unmatched->push_back(std::move(mine));
    }
    return Status::OK();
  }

  std::shared_ptr<const JoinSpec> spec_;
  plan::StreamJoinEviction eviction_;
  std::string late_column_[2];
  plan::ExprPtr pre_filter_[2];
  plan::ExprPtr post_filter_;
};

// The column whose event time drops a side's late rows: its first watermarked timestamp column.
std::string LateColumn(const plan::LogicalPlan& input) {
  const auto marked = input.WatermarkedColumns();
  for (const auto& f : input.schema->fields()) {
    if (marked.count(f->name()) && f->type()->id() == arrow::Type::TIMESTAMP) return f->name();
  }
  return "";
}

}  // namespace

Result<OperatorPtr> PlanStreamingSymmetricHashJoinExec(const plan::LogicalPlan& node,
                                                       std::vector<OperatorPtr>* children, PlannerContext* ctx) {
  if (!plan::IsStreamStreamJoin(node)) return OperatorPtr();
  if (children->size() != 2) return Status::Invalid("a join takes two inputs");
  for (const auto* input : {node.input.get(), node.right.get()}) {
    for (const auto& f : input->schema->fields()) {
      if (!stream_join_state::Encodable(*f->type())) {
        return Status::NotImplemented("stream-stream join: column '", f->name(), "' of type ",
                                      plan::TypeName(*f->type()), " cannot be buffered in the join state; select "
                                      "only columns of scalar types (numbers, strings, booleans, dates, timestamps, "
                                      "decimals) on both sides before the join");
      }
    }
  }
  std::string late[2] = {LateColumn(*node.input), LateColumn(*node.right)};
  return std::make_unique<StreamingSymmetricHashJoinExec>(node, ctx->next_stateful_id++, std::move(*children), late);
}

}  // namespace sluice::exec
