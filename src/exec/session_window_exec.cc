// SessionWindowStateStoreSaveExec: aggregation over session windows (session_window / SQL
// session), per grouping key, over the state store.
//
// State per key (the grouping columns): its open sessions, ordered by start:
//   fixed64 n, then n x (fixed64 start, fixed64 end, partial aggregates).
// Per batch: rows go to their key's partition; per partition, in parallel, each key's events
// become one-gap sessions that merge with the stored ones (as Spark: a session [s, e) takes a
// session that starts at or before e).
//
// Eviction (append): a session whose end is at or before the batch's watermark is final: it is
// emitted and removed. A row whose session would end at or before the previous batch's
// watermark is dropped as late. Complete mode keeps (and emits) every session.
#include <arrow/api.h>

#include <algorithm>
#include <unordered_map>

#include "exec/aggregate_exec.h"
#include "exec/physical_planner.h"
#include "exec/row_codec.h"
#include "state/partitioning.h"

namespace sluice::exec {
namespace {

class SessionWindowAggregateExec : public AggregateExec {
 public:
  using AggregateExec::AggregateExec;

 protected:
  const char* exec_name() const override { return "SessionWindowStateStoreSaveExec"; }
  const char* state_operator_name() const override { return "sessionWindowStateStoreSave"; }
  Result<std::shared_ptr<arrow::Table>> Aggregate(const std::vector<AggregateInputs>& parts,
                                                  const AggregateSettings& settings, ExecContext* ctx,
                                                  OperatorProgress* progress) const override;
};

struct Session {
  int64_t start = 0;
  int64_t end = 0;
  Accs accs;
};

void EncodeSessions(const AccumulatorSet& accs, const std::vector<Session>& sessions, std::string* out) {
  PutFixed64(sessions.size(), out);
  for (const auto& s : sessions) {
    PutFixed64(static_cast<uint64_t>(s.start), out);
    PutFixed64(static_cast<uint64_t>(s.end), out);
    accs.Encode(s.accs, out);
  }
}

Result<std::vector<Session>> DecodeSessions(const AccumulatorSet& accs, std::string_view v) {
  size_t pos = 0;
  ARROW_ASSIGN_OR_RAISE(uint64_t n, GetFixed64(v, &pos));
  std::vector<Session> out(n);
  for (auto& s : out) {
    ARROW_ASSIGN_OR_RAISE(uint64_t a, GetFixed64(v, &pos));
    ARROW_ASSIGN_OR_RAISE(uint64_t b, GetFixed64(v, &pos));
    s.start = static_cast<int64_t>(a);
    s.end = static_cast<int64_t>(b);
    ARROW_RETURN_NOT_OK(accs.Decode(v, &pos, &s.accs));
  }
  return out;
}

// Sorts by start and merges sessions that overlap or touch: as in Spark, a session [s, e) takes
// a session that starts at or before e (an event exactly one gap after the last one joins it).
Result<std::vector<Session>> MergeSessions(const AccumulatorSet& accs, std::vector<Session> all) {
  std::stable_sort(all.begin(), all.end(), [](const Session& a, const Session& b) { return a.start < b.start; });
  std::vector<Session> out;
  for (auto& s : all) {
    if (!out.empty() && s.start <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
      ARROW_RETURN_NOT_OK(accs.Merge(&out.back().accs, s.accs));
    } else {
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> SessionWindowAggregateExec::Aggregate(const std::vector<AggregateInputs>& parts,
                                                                             const AggregateSettings& settings,
                                                                             ExecContext* ctx,
                                                                             OperatorProgress* progress) const {
  ARROW_ASSIGN_OR_RAISE(const AggregateInputs in, ConcatInputs(parts));
  const AggregateLayout& l = layout();
  const int op = operator_id();
  AccumulatorSet accs(aggs());
  ARROW_RETURN_NOT_OK(accs.status());
  const int P = ctx->stores->num_partitions();
  const int T = OperatorThreads(P);
  const plan::OutputMode mode = settings.mode;
  const int64_t late_us = settings.late_us, evict_us = settings.evict_us;
  const int64_t gap = window()->size_us;

  // (A) rows -> per partition: key -> events (time, row), in row order.
  std::vector<std::unordered_map<std::string, std::vector<std::pair<int64_t, int64_t>>>> events(static_cast<size_t>(P));
  std::string key;
  for (int64_t row = 0; row < in.num_rows; ++row) {
    if (in.time_us->IsNull(row)) continue;
    const int64_t ts = in.time_us->Value(row);
    if (ts + gap <= late_us) {
      ++progress->num_rows_dropped_by_watermark;
      continue;
    }
    key.clear();
    EncodeGroups(in, row, &key);
    events[static_cast<size_t>(state::PartitionOf(key, P))][key].emplace_back(ts, row);
  }

  // (B) per partition: fold events into sessions, merge with stored sessions, emit/evict.
  std::vector<std::vector<std::pair<std::string, Session>>> emitted(static_cast<size_t>(P));
  std::vector<int64_t> update_ms(static_cast<size_t>(P), 0);
  ARROW_RETURN_NOT_OK(ParallelFor(P, T, [&](int p) -> Status {
    const int64_t t0 = SteadyNowMs();
    ARROW_ASSIGN_OR_RAISE(state::StateStore * store, ctx->stores->Get(op, p));
    std::vector<std::pair<std::string, std::vector<std::pair<int64_t, int64_t>>>> keys(
        std::make_move_iterator(events[static_cast<size_t>(p)].begin()),
        std::make_move_iterator(events[static_cast<size_t>(p)].end()));
    std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string value;
    for (auto& [k, evs] : keys) {
      std::stable_sort(evs.begin(), evs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<Session> all;
      ARROW_ASSIGN_OR_RAISE(auto old, store->Get(k));
      if (old) {
        ARROW_ASSIGN_OR_RAISE(all, DecodeSessions(accs, *old));
      }
      for (const auto& [ts, row] : evs) {
        Session s{ts, ts + gap, Accs(accs.size())};
        ARROW_RETURN_NOT_OK(accs.Update(&s.accs, in.args, row));
        all.push_back(std::move(s));
      }
      value.clear();
      ARROW_ASSIGN_OR_RAISE(auto merged, MergeSessions(accs, std::move(all)));
      EncodeSessions(accs, merged, &value);
      ARROW_RETURN_NOT_OK(store->Put(k, value));
    }
    update_ms[static_cast<size_t>(p)] = SteadyNowMs() - t0;
    auto& out = emitted[static_cast<size_t>(p)];
    if (mode == plan::OutputMode::kComplete) {
      return store->ForEach([&](std::string_view k, std::string_view v) -> Status {
        ARROW_ASSIGN_OR_RAISE(auto sessions, DecodeSessions(accs, v));
        for (auto& s : sessions) out.emplace_back(std::string(k), std::move(s));
        return Status::OK();
      });
    }
    if (evict_us == kNoWatermark) return Status::OK();
    // Append: sessions whose end the watermark passed are final. A key whose sessions all
    // closed is removed during the walk; one that keeps some is rewritten after it.
    using Action = state::StateStore::KeyAction;
    std::vector<std::pair<std::string, std::vector<Session>>> rewrite;
    ARROW_RETURN_NOT_OK(store->ForEachRemoving([&](std::string_view k, std::string_view v) -> Result<Action> {
      ARROW_ASSIGN_OR_RAISE(auto sessions, DecodeSessions(accs, v));
      std::vector<Session> keep;
      bool closed = false;
      for (auto& s : sessions) {
        if (s.end <= evict_us) {
          out.emplace_back(std::string(k), std::move(s));
          closed = true;
        } else {
          keep.push_back(std::move(s));
        }
      }
      if (!closed) return Action::kKeep;
      if (keep.empty()) return Action::kRemove;
      rewrite.emplace_back(std::string(k), std::move(keep));
      return Action::kKeep;
    }));
    for (auto& [k, keep] : rewrite) {
      value.clear();
      EncodeSessions(accs, keep, &value);
      ARROW_RETURN_NOT_OK(store->Put(k, value));
    }
    return Status::OK();
  }));

  for (int64_t ms : update_ms) progress->all_updates_time_ms += ms;

  // (C) output.
  ARROW_ASSIGN_OR_RAISE(auto out, AggregateOutput::Make(*schema()));
  for (const auto& part : emitted) {
    for (const auto& [k, s] : part) {
      ARROW_RETURN_NOT_OK(out.AppendTimestamp(l.window_start_out, s.start));
      ARROW_RETURN_NOT_OK(out.AppendTimestamp(l.window_start_out + 1, s.end));
      size_t pos = 0;
      ARROW_RETURN_NOT_OK(out.AppendGroups(l, k, &pos));
      ARROW_RETURN_NOT_OK(accs.Finish(s.accs, out.builders, l.first_agg_out));
    }
  }
  return out.Finish(schema());
}


Result<OperatorPtr> PlanSessionWindowAggregateExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children,
                                                   PlannerContext* ctx) {
  if (!node.window || node.window->kind != plan::WindowSpec::Kind::kSession) return OperatorPtr();
  return std::make_unique<SessionWindowAggregateExec>(node, ctx->next_stateful_id++, std::move(*children));
}

}  // namespace sluice::exec
