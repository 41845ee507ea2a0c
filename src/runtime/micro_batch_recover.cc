// MicroBatchExecution::Recover: where a restarted query resumes, by the recovery rule at the top
// of micro_batch_execution.cc (offsets/N against commits/N).
#include <algorithm>
#include <string>

#include "runtime/micro_batch_execution.h"
#include "util/log.h"

namespace sluice::runtime {

Status MicroBatchExecution::Recover() {
  committed_.assign(sources_.size(), std::nullopt);
  ARROW_ASSIGN_OR_RAISE(auto latest_offsets, checkpoint_->offsets().LatestId());
  ARROW_ASSIGN_OR_RAISE(auto latest_commit, checkpoint_->commits().LatestId());
  // Each batch writes offsets/N before commits/N, so a commit past the offsets log means the
  // offsets entry was deleted (not another query running).
  if (latest_commit && (!latest_offsets || *latest_commit > *latest_offsets)) {
    return Status::Invalid("Checkpoint '", checkpoint_->dir(), "' has commits/", *latest_commit, " but not offsets/",
                           *latest_commit, " (the offsets log ",
                           latest_offsets ? "ends at offsets/" + std::to_string(*latest_offsets) : std::string("is empty"),
                           "): that entry was deleted, and without it the query cannot tell where batch ",
                           *latest_commit, " ended in its sources. Restore offsets/", *latest_commit,
                           " from a backup, or start over with a new checkpoint location.");
  }
  if (!latest_offsets) return Status::OK();  // a new query: batch 0 from nothing
  const int64_t n = *latest_offsets;
  ARROW_ASSIGN_OR_RAISE(auto seq, checkpoint_->GetOffsets(n));
  if (seq->offsets.size() != sources_.size()) {
    return Status::Invalid("Checkpoint '", checkpoint_->dir(), "' records ", seq->offsets.size(),
                           " sources in offsets/", n, " but this query has ", sources_.size());
  }
  if (latest_commit && *latest_commit == n) {
    ARROW_ASSIGN_OR_RAISE(bool whole, checkpoint_->CommitIsWhole(n));
    if (whole) {
      committed_ = seq->offsets;
      next_batch_id_ = n + 1;
      ARROW_ASSIGN_OR_RAISE(auto commit, checkpoint_->GetCommit(n));
      watermark_ms_ = std::max(seq->batch_watermark_ms, commit ? commit->next_batch_watermark_ms : 0);
      last_batch_watermark_ms_ = seq->batch_watermark_ms;
      return Status::OK();
    }
    // commits/N is written without a sync (see Commit): a power failure can leave it empty or
    // cut short. Batch N is then not known to be done: it runs again, and its sink recognises it.
    const std::string path = checkpoint_->commits().PathOf(n);
    util::LogWarning("Checkpoint '", checkpoint_->dir(), "': the newest commit entry '", path,
                     "' was cut short (a power failure after it was written); removing it and running batch ", n,
                     " again");
    ARROW_RETURN_NOT_OK(config_.fs->Delete(path));
  }
  watermark_ms_ = seq->batch_watermark_ms;
  // offsets/N without commits/N: the crash came before the commit. Re-run N exactly.
  if (n > 0) {
    ARROW_ASSIGN_OR_RAISE(auto prev, checkpoint_->GetOffsets(n - 1));
    if (!prev) {
      return Status::Invalid("Checkpoint '", checkpoint_->dir(), "' has offsets/", n, " but not offsets/", n - 1,
                             ", so batch ", n, " cannot be re-run");
    }
    committed_ = prev->offsets;
    last_batch_watermark_ms_ = prev->batch_watermark_ms;
  }
  next_batch_id_ = n;
  pending_redo_ = std::move(seq);
  return Status::OK();
}

}  // namespace sluice::runtime
