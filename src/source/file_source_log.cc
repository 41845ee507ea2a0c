#include "source/file_source_log.h"

#include <nlohmann/json.hpp>

#include "util/strings.h"

namespace sluice::source {

FileSourceLog::FileSourceLog(std::shared_ptr<io::FileSystem> fs, std::string dir, int min_batches_to_retain,
                             int compact_interval)
    : log_(std::move(fs), std::move(dir)),
      min_batches_to_retain_(min_batches_to_retain),
      compact_interval_(compact_interval),
      compaction_(std::make_unique<checkpoint::CompactionWriter>(log_.fs_shared(), log_.dir())) {
  compaction_->Reset(log_.Header(), -1);  // an empty log's (Load() reads the log's own)
}

Status FileSourceLog::ParseBody(int64_t id, const std::string& body, bool compact) {
  for (const auto& line : checkpoint::SplitLines(body)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("path") || !j["path"].is_string() || !j.contains("timestamp") ||
        !j["timestamp"].is_number_integer() || !j.contains("batchId") || !j["batchId"].is_number_integer()) {
      return Status::Invalid("Source log entry '", log_.PathOf(id, compact), "' is corrupt: cannot read line ",
                             util::DescribeBytes(line));
    }
    FileEntry e;
    e.path = io::UriToPath(j["path"].get<std::string>());
    e.timestamp = j["timestamp"].get<int64_t>();
    e.batch_id = j["batchId"].get<int64_t>();
    if (e.batch_id > id || (!compact && e.batch_id != id)) {
      return Status::Invalid("Source log entry '", log_.PathOf(id, compact), "' lists batchId ", e.batch_id,
                             " which does not belong to it");
    }
    entries_[e.batch_id].push_back(std::move(e));
  }
  if (!compact) entries_[id];  // an entry exists even if it were empty
  return Status::OK();
}

Status FileSourceLog::Load() {
  entries_.clear();
  compacted_through_ = -1;
  compaction_->Clear();
  ARROW_ASSIGN_OR_RAISE(auto ids, log_.List());
  if (ids.empty()) {
    compaction_->Reset(log_.Header(), -1);
    return Status::OK();
  }
  int64_t first = ids.front().id;
  bool has_compact = false;
  for (const auto& e : ids) {
    if (e.compact) first = e.id, has_compact = true;
  }
  if (!has_compact && first != 0) {
    return Status::Invalid("Source log '", log_.dir(), "' starts at entry ", first, " without a compaction covering 0..",
                           first - 1);
  }
  int64_t expected = first;
  for (const auto& e : ids) {
    if (e.id < first) continue;
    if (e.id != expected) {
      return Status::Invalid("Source log '", log_.dir(), "' is missing entry ", expected, " (next entry is ", e.id, ")");
    }
    ++expected;
    ARROW_ASSIGN_OR_RAISE(auto body, log_.Get(e.id));
    if (!body) return Status::Invalid("Source log entry ", e.id, " of '", log_.dir(), "' vanished while loading");
    ARROW_RETURN_NOT_OK(ParseBody(e.id, *body, e.compact));
    if (e.compact) {
      entries_[e.id];
      compacted_through_ = e.id;
    }
  }
  return Status::OK();
}

std::optional<int64_t> FileSourceLog::latest_id() const {
  if (entries_.empty()) return std::nullopt;
  return entries_.rbegin()->first;
}

std::string FileSourceLog::Serialize(const std::vector<FileEntry>& files) const {
  std::string body;
  for (const auto& f : files) {
    if (!body.empty()) body += '\n';
    nlohmann::ordered_json j = {{"path", io::PathToUri(f.path)}, {"timestamp", f.timestamp}, {"batchId", f.batch_id}};
    body += j.dump();
  }
  return body;
}

Status FileSourceLog::Add(int64_t id, std::vector<FileEntry> files) {
  for (auto& f : files) f.batch_id = id;
  bool compact = compact_interval_ > 0 && (id + 1) % compact_interval_ == 0;
  const std::string own = Serialize(files);
  // Deferred: the offsets entry that refers to this one is written next, and the filesystem makes
  // this entry durable before that one exists (io::EntrySync).
  constexpr auto kSync = io::EntrySync::kDeferred;
  if (compact) {
    // Every entry so far, serialized once (after a Load, at the first compaction) and extended
    // with each entry added since, and written ahead in the background: a compaction batch
    // costs its own entry, not the whole history (a failed write forgets the text: made again).
    if (compaction_->through() != id - 1) {
      std::vector<FileEntry> all;
      for (const auto& [k, v] : entries_) all.insert(all.end(), v.begin(), v.end());
      compaction_->Reset(log_.Header() + Serialize(all), id - 1);
    }
    ARROW_RETURN_NOT_OK(compaction_->WriteCompaction(id, own, kSync, id + compact_interval_));
  } else {
    Status st = log_.Add(id, own, /*compact=*/false, kSync);
    if (!st.ok()) {
      compaction_->Clear();
      return st;
    }
    compaction_->Append(id, own);
  }
  entries_[id] = std::move(files);
  if (compact) {
    compacted_through_ = id;
    // Everything below `id` is in id.compact; keep the last min_batches_to_retain entries readable
    // as plain files anyway (a person inspecting recent batches). Best effort, off the batch's path.
    log_.PurgeBeforeInBackground(id - min_batches_to_retain_);
  }
  return Status::OK();
}

Result<std::vector<FileEntry>> FileSourceLog::FilesIn(int64_t start_exclusive, int64_t end_inclusive) const {
  std::vector<FileEntry> out;
  for (int64_t id = start_exclusive + 1; id <= end_inclusive; ++id) {
    auto it = entries_.find(id);
    if (it == entries_.end()) {
      if (id <= compacted_through_) continue;  // an entry without files leaves no line in a compaction
      return Status::Invalid("Source log '", log_.dir(), "' has no entry ", id, " (needed for the batch of entries ",
                             start_exclusive + 1, "..", end_inclusive, ")");
    }
    out.insert(out.end(), it->second.begin(), it->second.end());
  }
  return out;
}

}  // namespace sluice::source
