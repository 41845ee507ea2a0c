// HashJoinExec: a broadcast-style hash join. The build input (the static side of a
// stream-static join) is gathered, checked against the size limit and indexed by its join keys
// (exec/join_keys.h); each batch of the probe input (the stream) is then joined as it arrives.
// Children are {build, probe}, so the executor runs the build side first. A batch query (two
// static inputs) may also keep unmatched build rows (right/full outer): they are emitted in
// Finish.
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/byte_size.h>

#include "exec/expr_eval.h"
#include "exec/join_keys.h"
#include "exec/physical_planner.h"
#include "util/compute_init.h"

namespace sluice::exec {
namespace {

using plan::JoinOutputColumn;
using plan::JoinSpec;

struct JoinState : OperatorState {
  std::vector<std::shared_ptr<arrow::RecordBatch>> build_batches;
  int64_t build_bytes = 0;
  std::shared_ptr<arrow::RecordBatch> build;  // set once the build side is complete
  std::unique_ptr<JoinHashTable> table;
  std::vector<bool> build_matched;  // only when unmatched build rows are kept
};

class HashJoinExec : public PhysicalOperator {
 public:
  HashJoinExec(std::shared_ptr<const JoinSpec> spec, std::shared_ptr<arrow::Schema> schema,
               std::vector<OperatorPtr> children, std::string build_text)
      : PhysicalOperator(std::move(schema), std::move(children)), spec_(std::move(spec)),
        build_text_(std::move(build_text)) {}

  std::string Describe() const override {
    std::string keys;
    for (size_t i = 0; i < spec_->left_keys.size(); ++i) {
      keys += (i ? ", " : "") + spec_->left_keys[i]->ToString() + " = " + spec_->right_keys[i]->ToString();
    }
    std::string line = std::string("HashJoinExec ") + plan::JoinTypeName(spec_->type) + " [" + keys + "]";
    if (spec_->residual) line += " residual " + spec_->residual->ToString();
    return line + " (hash table on the " + (build_is_left() ? "left" : "right") + " input" + build_text_ +
           ", probed with each batch of the other)";
  }

  Result<std::unique_ptr<OperatorState>> MakeState(ExecContext*) const override {
    ARROW_RETURN_NOT_OK(util::EnsureComputeInitialized());
    return std::unique_ptr<OperatorState>(std::make_unique<JoinState>());
  }

  Status Push(ExecContext*, OperatorState* state, int child_index, const std::shared_ptr<arrow::RecordBatch>& batch,
              const BatchConsumer& out) const override {
    auto* st = static_cast<JoinState*>(state);
    if (child_index == 0) {
      for (const auto& column : batch->columns()) {
        st->build_bytes += static_cast<int64_t>(arrow::util::TotalBufferSize(*column->data()));
      }
      if (spec_->max_build_bytes > 0 && st->build_bytes > spec_->max_build_bytes) {
        return Status::Invalid("The static side of the join (", build_is_left() ? "left" : "right", " input) holds more than ",
                               spec_->max_build_bytes, " bytes, the limit set by sluice.sql.join.maxBuildSideBytes. "
                               "Filter or project the static side to what the join needs, or raise the setting.");
      }
      st->build_batches.push_back(batch);
      return Status::OK();
    }
    ARROW_RETURN_NOT_OK(FinishBuild(st));
    return Probe(st, *batch, out);
  }

  Status Finish(ExecContext*, OperatorState* state, const BatchConsumer& out) const override {
    auto* st = static_cast<JoinState*>(state);
    ARROW_RETURN_NOT_OK(FinishBuild(st));
    if (!KeepsUnmatchedBuild()) return Status::OK();
    arrow::Int64Builder build_rows;
    for (size_t r = 0; r < st->build_matched.size(); ++r) {
      if (!st->build_matched[r]) ARROW_RETURN_NOT_OK(build_rows.Append(static_cast<int64_t>(r)));
    }
    if (build_rows.length() == 0) return Status::OK();
    arrow::Int64Builder probe_rows;
    ARROW_RETURN_NOT_OK(probe_rows.AppendNulls(build_rows.length()));
    ARROW_ASSIGN_OR_RAISE(auto probe_idx, probe_rows.Finish());
    ARROW_ASSIGN_OR_RAISE(auto build_idx, build_rows.Finish());
    ARROW_ASSIGN_OR_RAISE(auto empty_probe, arrow::RecordBatch::MakeEmpty(children()[1]->schema()));
    ARROW_ASSIGN_OR_RAISE(auto rows, Assemble(*empty_probe, *st->build, *probe_idx, *build_idx));
    return out(std::move(rows));
  }

 private:
  bool build_is_left() const { return spec_->build_side == 0; }
  bool KeepsUnmatchedProbe() const {
    return build_is_left() ? spec_->KeepsUnmatchedRight() : spec_->KeepsUnmatchedLeft();
  }
  bool KeepsUnmatchedBuild() const {
    return build_is_left() ? spec_->KeepsUnmatchedLeft() : spec_->KeepsUnmatchedRight();
  }
  const std::vector<plan::ExprPtr>& BuildKeys() const { return build_is_left() ? spec_->left_keys : spec_->right_keys; }
  const std::vector<plan::ExprPtr>& ProbeKeys() const { return build_is_left() ? spec_->right_keys : spec_->left_keys; }

  static Result<JoinKeys> KeysOf(const std::vector<plan::ExprPtr>& exprs, const arrow::RecordBatch& batch) {
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& e : exprs) {
      ARROW_ASSIGN_OR_RAISE(auto a, EvaluateToArray(*e, batch));
      columns.push_back(std::move(a));
    }
    return JoinKeys::Make(std::move(columns), batch.num_rows());
  }

  Status FinishBuild(JoinState* st) const {
    if (st->build) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(children()[0]->schema(), st->build_batches));
    ARROW_ASSIGN_OR_RAISE(st->build, table->CombineChunksToBatch());
    st->build_batches.clear();
    ARROW_ASSIGN_OR_RAISE(auto keys, KeysOf(BuildKeys(), *st->build));
    st->table = std::make_unique<JoinHashTable>(std::move(keys));
    if (KeepsUnmatchedBuild()) st->build_matched.assign(static_cast<size_t>(st->build->num_rows()), false);
    return Status::OK();
  }

  // The output rows for pairs (probe row, build row); a null index stands for a missing row.
  Result<std::shared_ptr<arrow::RecordBatch>> Assemble(const arrow::RecordBatch& probe, const arrow::RecordBatch& build,
                                                       const arrow::Array& probe_idx, const arrow::Array& build_idx) const {
    const arrow::RecordBatch& left = build_is_left() ? build : probe;
    const arrow::RecordBatch& right = build_is_left() ? probe : build;
    const arrow::Array& left_idx = build_is_left() ? build_idx : probe_idx;
    const arrow::Array& right_idx = build_is_left() ? probe_idx : build_idx;
    auto take = [](const std::shared_ptr<arrow::Array>& column, const arrow::Array& idx) -> Result<arrow::Datum> {
      return arrow::compute::Take(column, idx);
    };
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const JoinOutputColumn& c : spec_->output) {
      arrow::Datum value;
      if (c.from == JoinOutputColumn::From::kLeft) {
        ARROW_ASSIGN_OR_RAISE(value, take(left.column(c.left), left_idx));
      } else if (c.from == JoinOutputColumn::From::kRight) {
        ARROW_ASSIGN_OR_RAISE(value, take(right.column(c.right), right_idx));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto l, take(left.column(c.left), left_idx));
        ARROW_ASSIGN_OR_RAISE(auto r, take(right.column(c.right), right_idx));
        const auto& type = schema()->field(static_cast<int>(columns.size()))->type();
        ARROW_ASSIGN_OR_RAISE(l, arrow::compute::Cast(l, type));
        ARROW_ASSIGN_OR_RAISE(r, arrow::compute::Cast(r, type));
        ARROW_ASSIGN_OR_RAISE(value, arrow::compute::CallFunction("coalesce", {l, r}));
      }
      columns.push_back(value.make_array());
    }
    return arrow::RecordBatch::Make(schema(), probe_idx.length(), std::move(columns));
  }

  // Keeps the candidate pairs for which the residual condition is true.
  Status ApplyResidual(const arrow::RecordBatch& probe, const arrow::RecordBatch& build, std::vector<int64_t>* probe_rows,
                       std::vector<int64_t>* build_rows) const {
    if (!spec_->residual || probe_rows->empty()) return Status::OK();
    arrow::Int64Builder pb, bb;
    ARROW_RETURN_NOT_OK(pb.AppendValues(*probe_rows));
    ARROW_RETURN_NOT_OK(bb.AppendValues(*build_rows));
    ARROW_ASSIGN_OR_RAISE(auto pi, pb.Finish());
    ARROW_ASSIGN_OR_RAISE(auto bi, bb.Finish());
    const arrow::RecordBatch& left = build_is_left() ? build : probe;
    const arrow::RecordBatch& right = build_is_left() ? probe : build;
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (const auto& [side, idx] : {std::pair{&left, build_is_left() ? bi : pi}, std::pair{&right, build_is_left() ? pi : bi}}) {
      for (const auto& column : side->columns()) {
        ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(column, idx));
        columns.push_back(taken.make_array());
      }
    }
    auto pairs = arrow::RecordBatch::Make(spec_->pair_schema, pi->length(), std::move(columns));
    ARROW_ASSIGN_OR_RAISE(auto keep, EvaluateToArray(*spec_->residual, *pairs));
    const auto& mask = static_cast<const arrow::BooleanArray&>(*keep);
    size_t n = 0;
    for (size_t i = 0; i < probe_rows->size(); ++i) {
      if (mask.IsValid(static_cast<int64_t>(i)) && mask.Value(static_cast<int64_t>(i))) {
        (*probe_rows)[n] = (*probe_rows)[i];
        (*build_rows)[n] = (*build_rows)[i];
        ++n;
      }
    }
    probe_rows->resize(n);
    build_rows->resize(n);
    return Status::OK();
  }

  Status Probe(JoinState* st, const arrow::RecordBatch& probe, const BatchConsumer& out) const {
    ARROW_ASSIGN_OR_RAISE(auto keys, KeysOf(ProbeKeys(), probe));
    std::vector<int64_t> probe_rows, build_rows;
    for (int64_t r = 0; r < probe.num_rows(); ++r) {
      st->table->ForEachMatch(keys, r, [&](int64_t b) {
        probe_rows.push_back(r);
        build_rows.push_back(b);
      });
    }
    ARROW_RETURN_NOT_OK(ApplyResidual(probe, *st->build, &probe_rows, &build_rows));
    std::vector<bool> matched(static_cast<size_t>(probe.num_rows()), false);
    for (int64_t r : probe_rows) matched[static_cast<size_t>(r)] = true;
    if (!st->build_matched.empty()) {
      for (int64_t b : build_rows) st->build_matched[static_cast<size_t>(b)] = true;
    }
    arrow::Int64Builder pb, bb;
    if (spec_->LeftOnly()) {  // semi: rows with a match, anti: rows without, each once
      const bool want = spec_->type == plan::JoinType::kLeftSemi;
      for (int64_t r = 0; r < probe.num_rows(); ++r) {
        if (matched[static_cast<size_t>(r)] == want) ARROW_RETURN_NOT_OK(pb.Append(r));
      }
      ARROW_RETURN_NOT_OK(bb.AppendNulls(pb.length()));
    } else {
      ARROW_RETURN_NOT_OK(pb.AppendValues(probe_rows));
      ARROW_RETURN_NOT_OK(bb.AppendValues(build_rows));
      if (KeepsUnmatchedProbe()) {
        for (int64_t r = 0; r < probe.num_rows(); ++r) {
          if (matched[static_cast<size_t>(r)]) continue;
          ARROW_RETURN_NOT_OK(pb.Append(r));
          ARROW_RETURN_NOT_OK(bb.AppendNull());
        }
      }
    }
    if (pb.length() == 0) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(auto pi, pb.Finish());
    ARROW_ASSIGN_OR_RAISE(auto bi, bb.Finish());
    ARROW_ASSIGN_OR_RAISE(auto rows, Assemble(probe, *st->build, *pi, *bi));
    return out(std::move(rows));
  }

  std::shared_ptr<const JoinSpec> spec_;
  std::string build_text_;
};

}  // namespace

Result<OperatorPtr> PlanHashJoinExec(const plan::LogicalPlan& node, std::vector<OperatorPtr>* children,
                                     PlannerContext*) {
  if (children->size() != 2) return Status::Invalid("a join takes two inputs");
  const plan::LogicalPlan& build = node.join->build_side == 0 ? *node.input : *node.right;
  std::string build_text = build.IsStreaming() ? "" : ", the static one, rebuilt each batch";
  std::vector<OperatorPtr> ordered;
  if (node.join->build_side == 0) {
    ordered.push_back(std::move((*children)[0]));
    ordered.push_back(std::move((*children)[1]));
  } else {
    ordered.push_back(std::move((*children)[1]));
    ordered.push_back(std::move((*children)[0]));
  }
  return std::make_unique<HashJoinExec>(node.join, node.schema, std::move(ordered), std::move(build_text));
}

}  // namespace sluice::exec
