#include "exec/aggregate_exec.h"

#include <arrow/compute/api.h>

#include "exec/expr_eval.h"
#include "exec/row_codec.h"

namespace sluice::exec {

namespace {

AggregateLayout MakeLayout(const plan::LogicalPlan& node) {
  AggregateLayout l;
  l.schema = node.schema;
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
    l.session = node.window->kind == plan::WindowSpec::Kind::kSession;
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

// The batch's input, held back until every row is in.
struct BufferedInput : OperatorState {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  // count(*)'s argument (a non-null literal) for every row: one array, sliced to each batch's
  // length, instead of a new array of ones per batch.
  std::shared_ptr<arrow::Array> count_ones;
};

// count(<non-null literal>), as count(*) is planned: its argument only says every row counts.
bool CountsEveryRow(const plan::AggCall& agg) {
  return agg.fn == "count" && agg.arg && agg.arg->kind == plan::Expr::Kind::kLiteral && agg.arg->value &&
         agg.arg->value->is_valid;
}

}  // namespace

Result<int64_t> KeyTime(const AggregateLayout& l, std::string_view key) {
  size_t pos = 0;
  if (l.windowed) return DecodeInt64(key, &pos);
  if (EncodedIsNull(key, 0)) return kNoWatermark;
  ARROW_ASSIGN_OR_RAISE(int64_t v, DecodeInt64(key, &pos));
  return ScaleToMicros(v, l.time_first_factor);
}

void EncodeGroups(const AggregateInputs& in, int64_t row, std::string* key) {
  for (const auto& g : in.groups) EncodeValue(*g, row, key);
}

Result<AggregateOutput> AggregateOutput::Make(const arrow::Schema& schema) {
  AggregateOutput o;
  for (const auto& f : schema.fields()) {
    std::unique_ptr<arrow::ArrayBuilder> b;
    ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), f->type(), &b));
    o.builders.push_back(std::move(b));
  }
  return o;
}

Status AggregateOutput::Reserve(int64_t rows) {
  for (auto& b : builders) ARROW_RETURN_NOT_OK(b->Reserve(rows));
  return Status::OK();
}

Status AggregateOutput::AppendTimestamp(int col, int64_t us) {
  return static_cast<arrow::TimestampBuilder*>(builders[static_cast<size_t>(col)].get())->Append(us);
}

Status AggregateOutput::AppendGroups(const AggregateLayout& l, std::string_view key, size_t* pos) {
  for (const int col : l.group_out) {
    ARROW_RETURN_NOT_OK(DecodeValue(key, pos, *l.schema->field(col)->type(), builders[static_cast<size_t>(col)].get()));
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::Table>> AggregateOutput::Finish(const std::shared_ptr<arrow::Schema>& schema) {
  arrow::ArrayVector arrays;
  for (auto& b : builders) {
    std::shared_ptr<arrow::Array> a;
    ARROW_RETURN_NOT_OK(b->Finish(&a));
    arrays.push_back(std::move(a));
  }
  const int64_t n = arrays.empty() ? 0 : arrays[0]->length();
  return arrow::Table::Make(schema, arrays, n);
}

AggregateExec::AggregateExec(const plan::LogicalPlan& node, int operator_id, std::vector<OperatorPtr> children)
    : StatefulOperator(node.schema, std::move(children), operator_id),
      group_exprs_(node.group_exprs),
      aggs_(node.aggs),
      window_(node.window),
      layout_(MakeLayout(node)) {
  for (size_t i = 0; i < group_exprs_.size(); ++i) {
    keys_text_ += (i ? ", " : "");
    keys_text_ += window_ && window_->group_index == static_cast<int>(i) ? window_->ToString() : group_exprs_[i]->ToString();
  }
  for (const auto& [c, d] : node.input->WatermarkedColumns()) watermarked_text_ += (watermarked_text_.empty() ? "" : ", ") + c;
  const int first_agg = node.schema->num_fields() - static_cast<int>(aggs_.size());
  for (size_t i = 0; i < aggs_.size(); ++i) {
    const auto& field = node.schema->field(first_agg + static_cast<int>(i));
    value_text_ += (i ? ", " : "") + aggs_[i].ToString() + " : " + field->name() + " " + plan::TypeName(*field->type());
  }
}

std::string AggregateExec::Describe() const {
  return std::string(exec_name()) + " [" + keys_text_ +
         "] (hash aggregate per state partition; partials merged into the state store)";
}

state::StateOperatorMetadata AggregateExec::StateMetadata(int num_partitions) const {
  state::StateOperatorMetadata md;
  md.operator_id = operator_id();
  md.num_partitions = num_partitions;
  md.operator_name = state_operator_name();
  md.key_schema = "[" + keys_text_ + "] watermarked [" + watermarked_text_ + "]";
  md.value_schema = "[" + value_text_ + "]";
  return md;
}

Result<std::unique_ptr<OperatorState>> AggregateExec::MakeState(ExecContext*) const {
  return std::make_unique<BufferedInput>();
}

Status AggregateExec::Push(ExecContext*, OperatorState* state, int, const std::shared_ptr<arrow::RecordBatch>& batch,
                           const BatchConsumer&) const {
  static_cast<BufferedInput*>(state)->batches.push_back(batch);
  return Status::OK();
}

Result<AggregateInputs> AggregateExec::Evaluate(const arrow::RecordBatch& batch, OperatorState* state) const {
  AggregateInputs in;
  in.num_rows = batch.num_rows();
  for (int g : layout_.group_expr) {
    ARROW_ASSIGN_OR_RAISE(auto a, EvaluateToArray(*group_exprs_[static_cast<size_t>(g)], batch));
    in.groups.push_back(std::move(a));
  }
  for (const auto& agg : aggs_) {
    if (CountsEveryRow(agg)) {
      auto& ones = static_cast<BufferedInput*>(state)->count_ones;
      if (!ones || ones->length() < batch.num_rows()) {
        ARROW_ASSIGN_OR_RAISE(ones, EvaluateToArray(*agg.arg, batch));
      }
      in.args.push_back(ones->Slice(0, batch.num_rows()));
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto a, EvaluateToArray(*agg.arg, batch));
    in.args.push_back(std::move(a));
  }
  for (const auto& agg : aggs_) {  // max_by/min_by orderings, after every argument (AccumulatorSet::Update)
    if (!agg.ordering) continue;
    ARROW_ASSIGN_OR_RAISE(auto o, EvaluateToArray(*agg.ordering, batch));
    in.args.push_back(std::move(o));
  }
  if (window_) {
    ARROW_ASSIGN_OR_RAISE(auto t, EvaluateToArray(*window_->time, batch));
    ARROW_ASSIGN_OR_RAISE(in.time_us, TimestampMicros(t));
  }
  return in;
}

AggregateSettings AggregateExec::Settings(const ExecContext& ctx) const {
  AggregateSettings s;
  s.mode = ctx.streaming ? ctx.output_mode : plan::OutputMode::kComplete;
  // Complete mode keeps every group, so a watermark neither drops rows nor evicts (Spark: it
  // "has no effect in complete mode"); its result then equals the batch query's.
  if (ctx.streaming && layout_.evictable && s.mode != plan::OutputMode::kComplete) {
    s.late_us = WatermarkUs(ctx.late_watermark_ms);
    s.evict_us = WatermarkUs(ctx.eviction_watermark_ms);
  }
  return s;
}

Result<AggregateInputs> ConcatInputs(const std::vector<AggregateInputs>& parts) {
  if (parts.size() == 1) return parts[0];
  auto concat = [&](auto column) -> Result<std::shared_ptr<arrow::Array>> {
    arrow::ArrayVector pieces;
    for (const auto& part : parts) pieces.push_back(column(part));
    return arrow::Concatenate(pieces);
  };
  AggregateInputs in;
  for (const auto& part : parts) in.num_rows += part.num_rows;
  for (size_t i = 0; i < parts[0].groups.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto a, concat([i](const AggregateInputs& p) { return p.groups[i]; }));
    in.groups.push_back(std::move(a));
  }
  for (size_t i = 0; i < parts[0].args.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto a, concat([i](const AggregateInputs& p) { return p.args[i]; }));
    in.args.push_back(std::move(a));
  }
  if (parts[0].time_us) {
    ARROW_ASSIGN_OR_RAISE(auto t, concat([](const AggregateInputs& p) -> std::shared_ptr<arrow::Array> { return p.time_us; }));
    in.time_us = std::static_pointer_cast<arrow::Int64Array>(t);
  }
  return in;
}

Status AggregateExec::Finish(ExecContext* ctx, OperatorState* state, const BatchConsumer& out) const {
  auto& batches = static_cast<BufferedInput*>(state)->batches;
  const CpuTimer cpu;
  // Each input batch's columns are evaluated apart: the vectorised path reads them in place.
  std::vector<AggregateInputs> parts;
  int64_t num_rows = 0;
  if (batches.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto empty, arrow::RecordBatch::MakeEmpty(children().at(0)->schema()));
    batches.push_back(std::move(empty));
  }
  for (const auto& b : batches) {
    ARROW_ASSIGN_OR_RAISE(auto part, Evaluate(*b, state));
    num_rows += part.num_rows;
    parts.push_back(std::move(part));
  }
  batches.clear();
  OperatorProgress progress;
  progress.operator_name = "stateStoreSave";
  ARROW_ASSIGN_OR_RAISE(auto result, Aggregate(parts, Settings(*ctx), ctx, &progress));
  parts.clear();
  // CPU time of the aggregation proper (evaluating its inputs, grouping, state updates and
  // eviction, building its output), on its own thread and its partition workers.
  progress.custom_metrics["aggregationCpuNanos"] = cpu.ElapsedNs();
  progress.custom_metrics["aggregationInputRows"] = num_rows;
  ARROW_RETURN_NOT_OK(ReportProgress(ctx, std::move(progress)));
  return EmitTable(*result, out);
}

}  // namespace sluice::exec
