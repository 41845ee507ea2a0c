// Streaming (and batch) aggregation over the state store.
//
// Per batch: (A) rows are split into ranges, one per thread; each thread evaluates the keys
// (window bounds first, so state iterates in window-end order), drops late rows and folds the
// rest into per-partition hash maps of partial aggregates. (B) per partition, in parallel: the
// threads' partials are merged in row order, then merged into the stored partials of the same
// keys (state first: it holds earlier rows), written back, and the output mode decides what is
// emitted and evicted. (C) the emitted keys and partials become the output columns.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <unordered_map>

#include "exec/accumulators.h"
#include "exec/compute_init.h"
#include "exec/expr_eval.h"
#include "exec/row_codec.h"
#include "exec/stateful_ops.h"
#include "exec/stateful_util.h"
#include "state/partitioning.h"

namespace sluice::exec {
namespace {

using plan::LogicalPlan;
using plan::WindowSpec;
using Accs = std::vector<Acc>;

constexpr int64_t kMin = kNoWatermark;

int64_t NowMs() { return SteadyNowMs(); }

int64_t FloorMod(int64_t a, int64_t b) {
  int64_t m = a % b;
  return m < 0 ? m + b : m;
}

Result<std::shared_ptr<arrow::Array>> EvalToArray(const plan::Expr& e, const arrow::RecordBatch& batch) {
  ARROW_ASSIGN_OR_RAISE(auto d, Evaluate(e, batch));
  if (d.is_array()) return d.make_array();
  if (d.is_scalar()) return arrow::MakeArrayFromScalar(*d.scalar(), batch.num_rows());
  if (d.is_chunked_array()) return arrow::Concatenate(d.chunked_array()->chunks());
  return Status::Invalid("expression ", e.ToString(), " did not evaluate to a column");
}

// Where each part of a key goes in the output.
struct Layout {
  const LogicalPlan* node = nullptr;
  bool session = false;
  bool windowed = false;             // tumbling/sliding: key = end, start, groups
  int window_start_out = -1;         // output column of window_start (window_end = +1)
  std::vector<int> group_expr;       // non-window grouping expressions, in key order
  std::vector<int> group_out;        // their output columns
  bool time_first = false;           // !windowed: the first key part is a watermarked column
  int64_t time_first_factor = 1;     // its unit -> micros
  bool evictable = false;            // keys carry an event time the watermark can close
  size_t first_agg_out = 0;
};

Layout MakeLayout(const LogicalPlan& node) {
  Layout l;
  l.node = &node;
  const auto marked = node.input->WatermarkedColumns();
  int out = 0;
  std::vector<int> plain, plain_out;
  for (size_t i = 0; i < node.group_exprs.size(); ++i) {
    if (node.window && node.window->group_index == static_cast<int>(i)) {
      l.window_start_out = out;
      out += 2;
      continue;
    }
    plain.push_back(static_cast<int>(i));
    plain_out.push_back(out++);
  }
  l.first_agg_out = static_cast<size_t>(out);
  if (node.window) {
    l.session = node.window->kind == WindowSpec::Kind::kSession;
    l.windowed = !l.session;
    l.evictable = node.window->time->kind == plan::Expr::Kind::kColumn && marked.count(node.window->time->name);
    l.group_expr = plain;
    l.group_out = plain_out;
    return l;
  }
  // Without a window, a watermarked grouping column goes first in the key.
  int first = -1;
  for (size_t k = 0; k < plain.size(); ++k) {
    const plan::Expr* g = node.group_exprs[static_cast<size_t>(plain[k])].get();
    if (g->kind == plan::Expr::Kind::kAlias && !g->args.empty()) g = g->args[0].get();
    if (g->kind == plan::Expr::Kind::kColumn && marked.count(g->name)) {
      first = static_cast<int>(k);
      break;
    }
  }
  if (first >= 0) {
    l.time_first = true;
    l.evictable = true;
    l.time_first_factor = UnitToMicros(*node.schema->field(plain_out[static_cast<size_t>(first)])->type());
    l.group_expr.push_back(plain[static_cast<size_t>(first)]);
    l.group_out.push_back(plain_out[static_cast<size_t>(first)]);
  }
  for (size_t k = 0; k < plain.size(); ++k) {
    if (static_cast<int>(k) == first) continue;
    l.group_expr.push_back(plain[k]);
    l.group_out.push_back(plain_out[k]);
  }
  return l;
}

// The event time (micros) a key can be closed by, or kMin when it has none (null).
Result<int64_t> KeyTime(const Layout& l, std::string_view key) {
  size_t pos = 0;
  if (l.windowed) return DecodeInt64(key, &pos);
  if (EncodedIsNull(key, 0)) return kMin;
  ARROW_ASSIGN_OR_RAISE(int64_t v, DecodeInt64(key, &pos));
  return ScaleToMicros(v, l.time_first_factor);
}

// What this batch emits and which watermarks apply to it.
struct BatchSettings {
  std::string mode;  // a batch query behaves as complete mode
  int64_t late_us = kMin;
  int64_t evict_us = kMin;
};

BatchSettings Settings(const Layout& l, const ExecContext& ctx) {
  BatchSettings s;
  s.mode = ctx.streaming ? ctx.output_mode : "complete";
  // Complete mode keeps every group, so a watermark neither drops rows nor evicts (Spark: it
  // "has no effect in complete mode"); its result then equals the batch query's.
  if (ctx.streaming && l.evictable && s.mode != "complete") {
    s.late_us = WatermarkUs(ctx.late_watermark_ms);
    s.evict_us = WatermarkUs(ctx.eviction_watermark_ms);
  }
  return s;
}

// Evaluated input columns of one batch.
struct Inputs {
  int64_t num_rows = 0;
  std::vector<std::shared_ptr<arrow::Array>> groups;  // per Layout::group_expr entry
  std::vector<std::shared_ptr<arrow::Array>> args;    // per aggregate call
  std::shared_ptr<arrow::Int64Array> time_us;         // window/session time
};

Result<Inputs> Evaluate(const LogicalPlan& node, const Layout& l, const std::shared_ptr<arrow::Table>& input) {
  Inputs in;
  ARROW_ASSIGN_OR_RAISE(auto batch, input->CombineChunksToBatch());
  in.num_rows = batch->num_rows();
  for (int g : l.group_expr) {
    ARROW_ASSIGN_OR_RAISE(auto a, EvalToArray(*node.group_exprs[static_cast<size_t>(g)], *batch));
    in.groups.push_back(std::move(a));
  }
  for (const auto& agg : node.aggs) {
    ARROW_ASSIGN_OR_RAISE(auto a, EvalToArray(*agg.arg, *batch));
    in.args.push_back(std::move(a));
  }
  if (node.window) {
    ARROW_ASSIGN_OR_RAISE(auto t, EvalToArray(*node.window->time, *batch));
    ARROW_ASSIGN_OR_RAISE(in.time_us, TimestampMicros(t));
  }
  return in;
}

void EncodeGroups(const Inputs& in, int64_t row, std::string* key) {
  for (const auto& g : in.groups) EncodeValue(*g, row, key);
}

struct Emitted {
  std::string key;
  std::string value;
};

// Output builders for node.schema.
struct Output {
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;

  static Result<Output> Make(const arrow::Schema& schema) {
    Output o;
    for (const auto& f : schema.fields()) {
      std::unique_ptr<arrow::ArrayBuilder> b;
      ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), f->type(), &b));
      o.builders.push_back(std::move(b));
    }
    return o;
  }
  Status AppendTimestamp(int col, int64_t us) {
    return static_cast<arrow::TimestampBuilder*>(builders[static_cast<size_t>(col)].get())->Append(us);
  }
  Result<std::shared_ptr<arrow::Table>> Finish(const std::shared_ptr<arrow::Schema>& schema) {
    arrow::ArrayVector arrays;
    for (auto& b : builders) {
      std::shared_ptr<arrow::Array> a;
      ARROW_RETURN_NOT_OK(b->Finish(&a));
      arrays.push_back(std::move(a));
    }
    int64_t n = arrays.empty() ? 0 : arrays[0]->length();
    return arrow::Table::Make(schema, arrays, n);
  }
};

// Decodes the grouping part of `key` (after any window bounds) into the output.
Status AppendGroups(const Layout& l, std::string_view key, size_t* pos, Output* out) {
  for (size_t k = 0; k < l.group_out.size(); ++k) {
    const int col = l.group_out[k];
    ARROW_RETURN_NOT_OK(DecodeValue(key, pos, *l.node->schema->field(col)->type(), out->builders[static_cast<size_t>(col)].get()));
  }
  return Status::OK();
}

const Status kStop = Status::Cancelled("stop iteration");

// Appends the aggregate columns of an encoded partial to the output.
Status AppendAggs(const Layout& l, const AccumulatorSet& accs, std::string_view value, size_t* pos, Output* out) {
  Accs a;
  ARROW_RETURN_NOT_OK(accs.Decode(value, pos, &a));
  return accs.Finish(a, out->builders, l.first_agg_out);
}

// ---------------------------------------------------------------------------------------------
// Plain groups and tumbling/sliding windows.

using PartialMap = std::unordered_map<std::string, Accs>;

Result<std::shared_ptr<arrow::Table>> RunGrouped(const LogicalPlan& node, int op, const Layout& l, const Inputs& in,
                                                 ExecContext* ctx, OperatorProgress* progress) {
  AccumulatorSet accs(node.aggs);
  const int P = ctx->stores->num_partitions();
  const int T = OperatorThreads(P);
  const BatchSettings settings = Settings(l, *ctx);
  const std::string& mode = settings.mode;
  const int64_t late_us = settings.late_us, evict_us = settings.evict_us;

  // (A) rows -> per-thread, per-partition partial aggregates.
  const int ranges = in.num_rows >= 4096 ? T : 1;
  std::vector<std::vector<PartialMap>> partials(static_cast<size_t>(ranges), std::vector<PartialMap>(static_cast<size_t>(P)));
  std::vector<int64_t> dropped(static_cast<size_t>(ranges), 0);
  const WindowSpec* w = l.windowed ? &*node.window : nullptr;
  ARROW_RETURN_NOT_OK(ParallelFor(ranges, T, [&](int r) -> Status {
    const int64_t begin = in.num_rows * r / ranges, end = in.num_rows * (r + 1) / ranges;
    auto& maps = partials[static_cast<size_t>(r)];
    for (auto& m : maps) m.reserve(static_cast<size_t>((end - begin) / P / 4 + 16));
    std::string key;
    auto fold = [&](int64_t row) {
      auto& slot = maps[static_cast<size_t>(state::PartitionOf(key, P))][key];
      if (slot.empty()) slot.resize(accs.size());
      accs.Update(&slot, in.args, row);
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
          fold(row);
        }
        continue;
      }
      key.clear();
      EncodeGroups(in, row, &key);
      if (l.time_first && late_us != kMin && !in.groups[0]->IsNull(row)) {
        size_t pos = 0;
        auto t = DecodeInt64(key, &pos);
        if (t.ok() && ScaleToMicros(*t, l.time_first_factor) <= late_us) {
          ++dropped[static_cast<size_t>(r)];
          continue;
        }
      }
      fold(row);
    }
    return Status::OK();
  }));
  for (int64_t d : dropped) progress->num_rows_dropped_by_watermark += d;

  // (B) per partition: merge into state, decide what to emit and evict.
  std::vector<std::vector<Emitted>> emitted(static_cast<size_t>(P));
  std::vector<int64_t> update_ms(static_cast<size_t>(P), 0), removal_ms(static_cast<size_t>(P), 0);
  ARROW_RETURN_NOT_OK(ParallelFor(P, T, [&](int p) -> Status {
    const int64_t t0 = NowMs();
    ARROW_ASSIGN_OR_RAISE(state::StateStore * store, ctx->stores->Get(op, p));
    PartialMap merged = std::move(partials[0][static_cast<size_t>(p)]);
    for (int r = 1; r < ranges; ++r) {
      for (auto& [k, v] : partials[static_cast<size_t>(r)][static_cast<size_t>(p)]) {
        auto it = merged.find(k);
        if (it == merged.end()) {
          merged.emplace(k, std::move(v));
        } else {
          accs.Merge(&it->second, v);
        }
      }
    }
    std::vector<std::pair<std::string, Accs>> keys(std::make_move_iterator(merged.begin()),
                                                   std::make_move_iterator(merged.end()));
    std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    auto& out = emitted[static_cast<size_t>(p)];
    std::string value;
    for (auto& [k, batch_accs] : keys) {
      ARROW_ASSIGN_OR_RAISE(auto old, store->Get(k));
      Accs total;
      if (old) {
        size_t pos = 0;
        Status st = accs.Decode(*old, &pos, &total);
        if (!st.ok()) return Status::IOError("State of operator ", op, " partition ", p, " is unreadable: ", st.message());
        accs.Merge(&total, batch_accs);
      } else {
        total = std::move(batch_accs);
      }
      value.clear();
      accs.Encode(total, &value);
      ARROW_RETURN_NOT_OK(store->Put(k, value));
      if (mode == "update") out.push_back({k, value});
    }
    const int64_t t1 = NowMs();
    update_ms[static_cast<size_t>(p)] = t1 - t0;
    if (mode == "complete") {
      ARROW_RETURN_NOT_OK(store->ForEach([&](std::string_view k, std::string_view v) {
        out.push_back({std::string(k), std::string(v)});
        return Status::OK();
      }));
    } else if (l.evictable && evict_us != kMin) {
      // Keys iterate in event-time order (window end / watermarked column first): stop at the
      // first one the watermark has not passed.
      std::vector<std::string> expired;
      Status st = store->ForEach([&](std::string_view k, std::string_view v) -> Status {
        ARROW_ASSIGN_OR_RAISE(int64_t t, KeyTime(l, k));
        if (t == kMin) return Status::OK();
        if (t > evict_us) return kStop;
        expired.emplace_back(k);
        if (mode == "append") out.push_back({std::string(k), std::string(v)});
        return Status::OK();
      });
      if (!st.ok() && !st.IsCancelled()) return st;
      for (const auto& k : expired) ARROW_RETURN_NOT_OK(store->Remove(k));
    }
    removal_ms[static_cast<size_t>(p)] = NowMs() - t1;
    return Status::OK();
  }));
  for (int p = 0; p < P; ++p) {
    progress->all_updates_time_ms += update_ms[static_cast<size_t>(p)];
    progress->all_removals_time_ms += removal_ms[static_cast<size_t>(p)];
  }

  // (C) build the output.
  ARROW_ASSIGN_OR_RAISE(auto out, Output::Make(*node.schema));
  int64_t rows = 0;
  for (const auto& part : emitted) {
    for (const auto& e : part) {
      size_t pos = 0;
      if (l.windowed) {
        ARROW_ASSIGN_OR_RAISE(int64_t wend, DecodeInt64(e.key, &pos));
        ARROW_ASSIGN_OR_RAISE(int64_t wstart, DecodeInt64(e.key, &pos));
        ARROW_RETURN_NOT_OK(out.AppendTimestamp(l.window_start_out, wstart));
        ARROW_RETURN_NOT_OK(out.AppendTimestamp(l.window_start_out + 1, wend));
      }
      ARROW_RETURN_NOT_OK(AppendGroups(l, e.key, &pos, &out));
      size_t vpos = 0;
      ARROW_RETURN_NOT_OK(AppendAggs(l, accs, e.value, &vpos, &out));
      ++rows;
    }
  }
  // A global aggregate (no grouping) always has its one row in complete mode, as in SQL.
  if (rows == 0 && node.group_exprs.empty() && mode == "complete") {
    ARROW_RETURN_NOT_OK(accs.Finish(Accs(accs.size()), out.builders, 0));
  }
  return out.Finish(node.schema);
}

// ---------------------------------------------------------------------------------------------
// Session windows. State per key (the grouping columns): its open sessions, ordered by start:
//   fixed64 n, then n x (fixed64 start, fixed64 end, partial aggregates).

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
std::vector<Session> MergeSessions(const AccumulatorSet& accs, std::vector<Session> all) {
  std::stable_sort(all.begin(), all.end(), [](const Session& a, const Session& b) { return a.start < b.start; });
  std::vector<Session> out;
  for (auto& s : all) {
    if (!out.empty() && s.start <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
      accs.Merge(&out.back().accs, s.accs);
    } else {
      out.push_back(std::move(s));
    }
  }
  return out;
}

Result<std::shared_ptr<arrow::Table>> RunSession(const LogicalPlan& node, int op, const Layout& l, const Inputs& in,
                                                 ExecContext* ctx, OperatorProgress* progress) {
  AccumulatorSet accs(node.aggs);
  const int P = ctx->stores->num_partitions();
  const int T = OperatorThreads(P);
  const BatchSettings settings = Settings(l, *ctx);
  const std::string& mode = settings.mode;
  const int64_t late_us = settings.late_us, evict_us = settings.evict_us;
  const int64_t gap = node.window->size_us;

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
    const int64_t t0 = NowMs();
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
        accs.Update(&s.accs, in.args, row);
        all.push_back(std::move(s));
      }
      value.clear();
      EncodeSessions(accs, MergeSessions(accs, std::move(all)), &value);
      ARROW_RETURN_NOT_OK(store->Put(k, value));
    }
    update_ms[static_cast<size_t>(p)] = NowMs() - t0;
    auto& out = emitted[static_cast<size_t>(p)];
    if (mode == "complete") {
      return store->ForEach([&](std::string_view k, std::string_view v) -> Status {
        ARROW_ASSIGN_OR_RAISE(auto sessions, DecodeSessions(accs, v));
        for (auto& s : sessions) out.emplace_back(std::string(k), std::move(s));
        return Status::OK();
      });
    }
    if (evict_us == kMin) return Status::OK();
    // Append: sessions whose end the watermark passed are final.
    std::vector<std::pair<std::string, std::vector<Session>>> rewrite;
    ARROW_RETURN_NOT_OK(store->ForEach([&](std::string_view k, std::string_view v) -> Status {
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
      if (closed) rewrite.emplace_back(std::string(k), std::move(keep));
      return Status::OK();
    }));
    for (auto& [k, keep] : rewrite) {
      if (keep.empty()) {
        ARROW_RETURN_NOT_OK(store->Remove(k));
      } else {
        value.clear();
        EncodeSessions(accs, keep, &value);
        ARROW_RETURN_NOT_OK(store->Put(k, value));
      }
    }
    return Status::OK();
  }));

  for (int64_t ms : update_ms) progress->all_updates_time_ms += ms;

  // (C) output.
  ARROW_ASSIGN_OR_RAISE(auto out, Output::Make(*node.schema));
  for (const auto& part : emitted) {
    for (const auto& [k, s] : part) {
      ARROW_RETURN_NOT_OK(out.AppendTimestamp(l.window_start_out, s.start));
      ARROW_RETURN_NOT_OK(out.AppendTimestamp(l.window_start_out + 1, s.end));
      size_t pos = 0;
      ARROW_RETURN_NOT_OK(AppendGroups(l, k, &pos, &out));
      ARROW_RETURN_NOT_OK(accs.Finish(s.accs, out.builders, l.first_agg_out));
    }
  }
  return out.Finish(node.schema);
}

}  // namespace

int OperatorThreads(int num_partitions) {
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(num_partitions, hw > 0 ? hw : 1));
}

Result<std::shared_ptr<arrow::Table>> RunAggregate(const LogicalPlan& node, int operator_id,
                                                   const std::shared_ptr<arrow::Table>& input, ExecContext* ctx) {
  const Layout l = MakeLayout(node);
  ARROW_ASSIGN_OR_RAISE(Inputs in, Evaluate(node, l, input));
  OperatorProgress progress;
  progress.operator_name = "stateStoreSave";
  progress.num_shuffle_partitions = ctx->stores->num_partitions();
  progress.num_state_store_instances = ctx->stores->num_partitions();
  std::shared_ptr<arrow::Table> out;
  if (l.session) {
    ARROW_ASSIGN_OR_RAISE(out, RunSession(node, operator_id, l, in, ctx, &progress));
  } else {
    ARROW_ASSIGN_OR_RAISE(out, RunGrouped(node, operator_id, l, in, ctx, &progress));
  }
  for (int p = 0; p < ctx->stores->num_partitions(); ++p) {
    ARROW_ASSIGN_OR_RAISE(auto* store, ctx->stores->Get(operator_id, p));
    const auto m = store->metrics();
    progress.num_rows_total += m.num_keys;
    progress.num_rows_updated += m.num_rows_updated;
    progress.num_rows_removed += m.num_rows_removed;
    progress.memory_used_bytes += m.memory_used_bytes;
  }
  if (ctx->operators.size() <= static_cast<size_t>(operator_id)) ctx->operators.resize(static_cast<size_t>(operator_id) + 1);
  ctx->operators[static_cast<size_t>(operator_id)] = progress;
  return out;
}

}  // namespace sluice::exec
