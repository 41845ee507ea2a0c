// MicroBatchExecution::CheckRestart: what Open() would decide about a checkpoint, told in
// advance. It calls the same checks Open() calls, in the same order (state layout, then the
// sources and sink, then the stateful operators of a changed plan), so the verdict it prints
// cannot drift from what a restart does; the kept/changed lines only describe the comparison.
// Nothing is locked or written.
#include <arrow/api.h>

#include "runtime/micro_batch_execution.h"
#include "state/operator_metadata.h"

namespace sluice::runtime {

namespace {

std::string OperatorText(const state::StateOperatorMetadata& md) {
  return md.operator_name + " (state key " + md.key_schema + ", value " + md.value_schema + ", " +
         std::to_string(md.num_partitions) + " partition(s))";
}

// `text`'s lines, each indented by four spaces.
std::string Indent(const std::string& text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out;
}

}  // namespace

Result<RestartCheck> MicroBatchExecution::CheckRestart(const QueryConfig& config) {
  RestartCheck out;
  std::unique_ptr<MicroBatchExecution> ex(new MicroBatchExecution(config, "explain"));
  ex->checkpoint_ = std::make_unique<checkpoint::Checkpoint>(config.fs, config.checkpoint_dir);
  ARROW_ASSIGN_OR_RAISE(auto existing, ex->checkpoint_->ReadMetadata());
  if (!existing) {
    out.new_checkpoint = true;
    return out;
  }
  out.query_id = existing->id;
  ARROW_ASSIGN_OR_RAISE(out.last_committed_batch, ex->checkpoint_->commits().LatestId());
  const checkpoint::QueryFingerprint fp = ex->Fingerprint();
  const auto& old = existing->fingerprint;

  // What differs, part by part (descriptive only; the verdict below comes from Open()'s checks).
  for (size_t i = 0; i < std::max(old.sources.size(), fp.sources.size()); ++i) {
    const std::string label = "source " + std::to_string(i) + ": ";
    if (i >= old.sources.size()) {
      out.changed.push_back(label + "added: " + fp.sources[i]);
    } else if (i >= fp.sources.size()) {
      out.changed.push_back(label + "removed: " + old.sources[i]);
    } else if (old.sources[i] == fp.sources[i]) {
      out.kept.push_back(label + fp.sources[i]);
    } else {
      out.changed.push_back(label + "was " + old.sources[i] + ", now " + fp.sources[i]);
    }
  }
  if (old.sink == fp.sink) {
    out.kept.push_back("sink: " + fp.sink);
  } else {
    out.changed.push_back("sink: was " + old.sink + ", now " + fp.sink);
  }
  if (old.plan == fp.plan) {
    out.kept.push_back("plan: unchanged");
  } else {
    out.changed.push_back("plan (stateless parts may change, as in Spark): was\n" + Indent(old.plan) + "\n  now\n" +
                          Indent(fp.plan));
  }

  // Open()'s checks, in Open()'s order; the first failure is the refusal.
  Status st = ex->OpenState();
  if (st.ok()) {
    for (size_t i = 0; i < ex->physical_->stateful().size(); ++i) {
      const auto wanted = ex->physical_->stateful()[i]->StateMetadata(ex->num_partitions_);
      ARROW_ASSIGN_OR_RAISE(auto stored, state::ReadOperatorMetadata(config.fs.get(), config.checkpoint_dir,
                                                                     static_cast<int64_t>(i)));
      const std::string label = "stateful operator " + std::to_string(i) + ": ";
      if (!stored) {
        out.changed.push_back(label + "new: " + OperatorText(wanted));
      } else if (state::CheckCompatible(*stored, wanted).ok()) {
        out.kept.push_back(label + OperatorText(*stored));
      } else {
        out.changed.push_back(label + "was " + OperatorText(*stored) + ", now " + OperatorText(wanted));
      }
    }
    ARROW_ASSIGN_OR_RAISE(const int64_t stored_count, ex->StoredOperatorCount());
    for (int64_t i = static_cast<int64_t>(ex->physical_->stateful().size()); i < stored_count; ++i) {
      out.changed.push_back("stateful operator " + std::to_string(i) + ": removed (its state is in the checkpoint)");
    }
    st = ex->CheckStateMetadata(/*write=*/false);
  }
  if (st.ok()) {
    auto md = checkpoint::MatchFingerprint(config.checkpoint_dir, *existing, fp);
    st = md.status();
    if (md.ok() && !md->previous_plan.empty()) st = ex->CheckPlanChange(*md);
  }
  out.refusal = st;
  return out;
}

}  // namespace sluice::runtime
