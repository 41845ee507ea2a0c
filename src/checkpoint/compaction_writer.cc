#include "checkpoint/compaction_writer.h"

#include <arrow/io/interfaces.h>
#include <arrow/util/thread_pool.h>

namespace sluice::checkpoint {

CompactionWriter::CompactionWriter(std::shared_ptr<io::FileSystem> fs, std::string dir, int max_version)
    : log_(std::move(fs), std::move(dir), max_version) {}

CompactionWriter::~CompactionWriter() {
  WaitForBackground();
  DropAhead();
}

void CompactionWriter::Reset(std::string text, int64_t through) {
  WaitForBackground();
  DropAhead();
  text_.assign(text);
  through_ = through;
}

void CompactionWriter::Clear() {
  WaitForBackground();
  DropAhead();
  io::BlockAlignedText().swap(text_);  // tens of MB in a long run: given back
  through_.reset();
}

void CompactionWriter::Append(int64_t id, std::string lines) {
  if (!through_ || *through_ != id - 1) {  // an entry was skipped: the text is not known any more
    Clear();
    return;
  }
  through_ = id;
  if (lines.empty()) return;
  Post([this, lines = std::move(lines)] {
    const size_t from = text_.size();
    log_.AppendToText(&text_, lines);
    if (ahead_ && ahead_status_.ok()) ahead_status_ = ahead_->Write(text_.data() + from, text_.size() - from);
  });
}

Status CompactionWriter::WriteCompaction(int64_t id, std::string_view lines, io::EntrySync sync, int64_t next_id) {
  WaitForBackground();
  if (!through_ || *through_ != id - 1) {
    const int64_t through = through_.value_or(-1);
    Clear();
    return Status::Invalid("Compaction entry ", id, " of the log '", log_.dir(), "' needs the text through entry ", id - 1,
                           ", which is known through entry ", through);
  }
  const size_t from = text_.size();
  log_.AppendToText(&text_, lines);
  Status st;
  if (WrittenAhead(id) && ahead_sync_ == sync) {
    st = ahead_->Write(text_.data() + from, text_.size() - from);
    if (st.ok()) {
      st = log_.NameEntry(id, ahead_.get());
    } else {
      (void)ahead_->Abort();
    }
    ahead_.reset();
  } else {
    DropAhead();  // none, one that failed (the entry is written whole instead), or another sync
    st = log_.AddText(id, std::string(text_.data(), text_.size()), /*compact=*/true,
                      sync);  // a copy, on this rare path
  }
  if (!st.ok()) {
    Clear();
    return st;
  }
  through_ = id;
  StartAhead(next_id, sync);
  return Status::OK();
}

void CompactionWriter::StartAhead(int64_t id, io::EntrySync sync) {
  Post([this, id, sync] {
    ahead_id_ = id;
    ahead_sync_ = sync;
    auto opened = log_.OpenEntry(id, /*compact=*/true, sync);
    if (!opened.ok()) {
      ahead_status_ = opened.status();
      return;
    }
    ahead_ = std::move(*opened);
    ahead_status_ = ahead_->Write(text_.data(), static_cast<int64_t>(text_.size()));
    if (ahead_status_.ok()) ahead_status_ = ahead_->Flush();  // its write-back starts now, not at the sync
  });
}

void CompactionWriter::DropAhead() {
  if (ahead_) (void)ahead_->Abort();  // never named: an unnamed file vanishes
  ahead_.reset();
  ahead_id_ = -1;
  ahead_status_ = Status::OK();
}

void CompactionWriter::Post(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(task));
    if (running_) return;
    running_ = true;
  }
  if (!arrow::io::default_io_context().executor()->Spawn([this] { Drain(); }).ok()) {
    Drain();  // the pool refused (it is shutting down): run here
  }
}

void CompactionWriter::Drain() {
  for (;;) {
    std::function<void()> task;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (queue_.empty()) {
        running_ = false;
        idle_.notify_all();
        return;
      }
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void CompactionWriter::WaitForBackground() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return !running_; });
}

}  // namespace sluice::checkpoint
