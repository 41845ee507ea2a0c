#include "checkpoint/file_sink_log.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>

#include "util/strings.h"

namespace sluice::checkpoint {

std::string SinkFileStatus::ToJson() const {
  // ordered_json keeps Spark's field order; paths are URIs (percent-encoded ASCII), so dump()
  // cannot meet invalid UTF-8.
  nlohmann::ordered_json j;
  j["path"] = path;
  j["size"] = size;
  j["isDir"] = is_dir;
  j["modificationTime"] = modification_time;
  j["blockReplication"] = block_replication;
  j["blockSize"] = block_size;
  j["action"] = action;
  return j.dump();
}

Result<SinkFileStatus> SinkFileStatus::FromJson(const std::string& line, const std::string& where) {
  auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Invalid("Corrupt file sink log entry ", where, ": not a JSON object: ", util::DescribeBytes(line, 80));
  }
  SinkFileStatus s;
  auto path = j.find("path");
  if (path == j.end() || !path->is_string()) {
    return Status::Invalid("Corrupt file sink log entry ", where, ": missing string field 'path'");
  }
  s.path = path->get<std::string>();
  auto action = j.find("action");
  if (action != j.end()) {
    if (!action->is_string()) return Status::Invalid("Corrupt file sink log entry ", where, ": 'action' is not a string");
    s.action = action->get<std::string>();
    if (s.action != "add" && s.action != "delete") {
      return Status::Invalid("Corrupt file sink log entry ", where, ": unknown action ", util::DescribeBytes(s.action));
    }
  }
  auto number = [&](const char* key, auto* out) -> Status {
    auto it = j.find(key);
    if (it == j.end()) return Status::OK();
    if (!it->is_number_integer()) return Status::Invalid("Corrupt file sink log entry ", where, ": '", key, "' is not an integer");
    *out = it->get<std::remove_pointer_t<decltype(out)>>();
    return Status::OK();
  };
  ARROW_RETURN_NOT_OK(number("size", &s.size));
  ARROW_RETURN_NOT_OK(number("modificationTime", &s.modification_time));
  ARROW_RETURN_NOT_OK(number("blockReplication", &s.block_replication));
  ARROW_RETURN_NOT_OK(number("blockSize", &s.block_size));
  auto is_dir = j.find("isDir");
  if (is_dir != j.end()) {
    if (!is_dir->is_boolean()) return Status::Invalid("Corrupt file sink log entry ", where, ": 'isDir' is not a boolean");
    s.is_dir = is_dir->get<bool>();
  }
  return s;
}

FileSinkLog::FileSinkLog(std::shared_ptr<io::FileSystem> fs, const std::string& output_dir)
    : owner_path_(io::JoinPath(output_dir, kSinkOwnerFile)),
      log_(std::move(fs), io::JoinPath(output_dir, kSparkMetadataDir), /*max_version=*/1),
      compaction_(std::make_unique<CompactionWriter>(log_.fs_shared(), log_.dir(), /*max_version=*/1)) {}

Result<std::optional<SinkOwner>> FileSinkLog::Owner() const {
  ARROW_ASSIGN_OR_RAISE(auto info, log_.fs()->Stat(owner_path_));
  if (!info) return std::optional<SinkOwner>{};
  ARROW_ASSIGN_OR_RAISE(std::string text, log_.fs()->ReadFile(owner_path_));
  auto lines = checkpoint::SplitLines(text);
  nlohmann::json j;
  if (lines.size() == 2 && lines[0] == "v1") j = nlohmann::json::parse(lines[1], nullptr, /*allow_exceptions=*/false);
  auto id = j.is_object() ? j.find("queryId") : j.end();
  auto offset = j.is_object() ? j.find("batchIdOffset") : j.end();
  auto previous = j.is_object() ? j.find("previousQueryId") : j.end();
  if (!j.is_object() || id == j.end() || !id->is_string() ||
      (offset != j.end() && (!offset->is_number_integer() || offset->get<int64_t>() < 0)) ||
      (previous != j.end() && !previous->is_string())) {
    return Status::Invalid("Sink owner file '", owner_path_, "' is corrupt: expected v1 and {\"queryId\":...} "
                           "(with an optional non-negative batchIdOffset)");
  }
  SinkOwner owner{id->get<std::string>()};
  if (offset != j.end()) owner.batch_id_offset = offset->get<int64_t>();
  if (previous != j.end()) owner.previous_query_id = previous->get<std::string>();
  return std::optional<SinkOwner>(std::move(owner));
}

Status FileSinkLog::SetOwner(const SinkOwner& owner, bool overwrite) {
  nlohmann::json j = {{"queryId", owner.query_id}};
  if (owner.batch_id_offset != 0 || owner.released()) j["batchIdOffset"] = owner.batch_id_offset;
  if (!owner.previous_query_id.empty()) j["previousQueryId"] = owner.previous_query_id;
  return log_.fs()->WriteAtomic(owner_path_, "v1\n" + j.dump(), overwrite);
}

Result<bool> FileSinkLog::Exists() const {
  ARROW_ASSIGN_OR_RAISE(auto info, log_.fs()->Stat(log_.dir()));
  return info.has_value() && info->is_dir;
}

Status FileSinkLog::Create() { return log_.fs()->MakeDirs(log_.dir()); }

Result<std::optional<int64_t>> FileSinkLog::LatestBatchId() const { return log_.LatestId(); }

Result<std::optional<std::vector<SinkFileStatus>>> FileSinkLog::ReadEntry(const checkpoint::LogEntryId& id) const {
  ARROW_ASSIGN_OR_RAISE(auto body, log_.Get(id.id));
  if (!body) return std::optional<std::vector<SinkFileStatus>>{};  // purged after a compaction
  std::string path = log_.PathOf(id.id, id.compact);
  std::vector<SinkFileStatus> out;
  auto lines = checkpoint::SplitLines(*body);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;  // an empty batch's entry is just the version line
    ARROW_ASSIGN_OR_RAISE(auto s, SinkFileStatus::FromJson(lines[i], "'" + path + "' line " + std::to_string(i + 2)));
    out.push_back(std::move(s));
  }
  return std::optional<std::vector<SinkFileStatus>>(std::move(out));
}

namespace {

// Milliseconds since the epoch, the clock of SinkFileStatus::modification_time (file mtimes).
int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The first entry the log is missing between its first needed entry and its latest one, or
// nullopt when the ids (from the latest compaction entry, or from 0) have no gap.
std::optional<int64_t> FirstMissingEntry(const std::vector<LogEntryId>& ids, size_t start) {
  if (ids.empty()) return std::nullopt;
  if (!ids[start].compact && ids[start].id != 0) return ids[start].id - 1;
  for (size_t i = start + 1; i < ids.size(); ++i) {
    if (ids[i].id > ids[i - 1].id + 1) return ids[i - 1].id + 1;
  }
  return std::nullopt;
}

}  // namespace

std::string FileSinkLog::Lines(const std::vector<SinkFileStatus>& files) {
  std::string lines;
  for (const auto& f : files) {
    if (!lines.empty()) lines += '\n';
    lines += f.ToJson();
  }
  return lines;
}

std::string FileSinkLog::EntryText(const std::vector<SinkFileStatus>& files) const {
  return log_.Header() + Lines(files);
}

void FileSinkLog::ExtendCache(int64_t batch_id, const std::vector<SinkFileStatus>& files) {
  if (compaction_->through() != batch_id - 1) return;
  ApplyEntry(files, &cached_files_);
  const bool deletes = std::any_of(files.begin(), files.end(), [](const SinkFileStatus& f) { return f.action == "delete"; });
  if (deletes) {  // lines leave the text: made again
    compaction_->Reset(EntryText(cached_files_), batch_id);
  } else {
    compaction_->Append(batch_id, Lines(files));
  }
}

void FileSinkLog::ApplyEntry(const std::vector<SinkFileStatus>& entry, std::vector<SinkFileStatus>* files) {
  for (const auto& s : entry) {
    if (s.action == "delete") {
      files->erase(std::remove_if(files->begin(), files->end(), [&](const SinkFileStatus& f) { return f.path == s.path; }),
                   files->end());
    } else {
      files->push_back(s);
    }
  }
}

Result<std::vector<SinkFileStatus>> FileSinkLog::AllFiles() const {
  // A writer compacting meanwhile may purge entries we listed (or a listing may miss the new
  // compaction entry while seeing the purge); then list again.
  constexpr int kAttempts = 3;
  std::optional<int64_t> missing;
  int64_t latest = 0;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    ARROW_ASSIGN_OR_RAISE(auto ids, log_.List());
    // A compaction entry holds everything up to its id; older entries are redundant.
    size_t start = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i].compact) start = i;
    }
    missing = FirstMissingEntry(ids, start);
    if (missing) {
      latest = ids.back().id;
      continue;
    }
    std::vector<SinkFileStatus> files;
    bool vanished = false;
    for (size_t i = start; i < ids.size() && !vanished; ++i) {
      if (i > start && ids[i].id == ids[i - 1].id) continue;  // "<id>" and "<id>.compact" both present
      ARROW_ASSIGN_OR_RAISE(auto entry, ReadEntry(ids[i]));
      if (!entry) {
        vanished = true;
        break;
      }
      ApplyEntry(*entry, &files);
    }
    if (!vanished) {
      cached_files_ = files;
      compaction_->Reset(EntryText(files), ids.empty() ? -1 : ids.back().id);
      return files;
    }
  }
  if (missing) {
    return Status::Invalid("File sink log '", log_.dir(), "' is missing entry ", EntryName(*missing),
                           " (its latest entry is ", EntryName(latest), "): the data files it listed can no longer be "
                           "told from uncommitted ones. Restore '", log_.PathOf(*missing, IsCompactionBatch(*missing)),
                           "' from a backup, or write to a new path; nothing was deleted.");
  }
  return Status::IOError("File sink log '", log_.dir(), "' kept changing while being read (", kAttempts, " attempts)");
}

Status FileSinkLog::Add(int64_t batch_id, const std::vector<SinkFileStatus>& files, io::EntrySync sync) {
  if (!IsCompactionBatch(batch_id)) {
    Status st = log_.AddText(batch_id, EntryText(files), /*compact=*/false, sync);
    if (!st.ok()) {
      compaction_->Clear();  // whether the entry exists is unknown: read the log again if needed
      return st;
    }
    ExtendCache(batch_id, files);
    return Status::OK();
  }
  // The file set through the previous entry: kept in memory by this writer, read once otherwise.
  if (compaction_->through() != batch_id - 1) ARROW_RETURN_NOT_OK(AllFiles().status());
  if (compaction_->through() != batch_id - 1) {
    return Status::Invalid("File sink log '", log_.dir(), "' ends at entry ", compaction_->through().value_or(-1),
                           ", not ", batch_id - 1, ", while writing entry ", EntryName(batch_id));
  }
  const int64_t oldest = retention_ms_ ? NowMs() - *retention_ms_ : std::numeric_limits<int64_t>::min();
  const auto expired = [oldest](const SinkFileStatus& f) { return f.action == "add" && f.modification_time < oldest; };
  const auto deletes = [](const SinkFileStatus& f) { return f.action == "delete"; };
  const bool expiring = retention_ms_ && (std::any_of(files.begin(), files.end(), expired) ||
                                          std::any_of(cached_files_.begin(), cached_files_.end(), expired));
  Status st;
  if (expiring || std::any_of(files.begin(), files.end(), deletes)) {
    // Lines leave the file set (a delete, or files retention leaves out): joined again.
    std::vector<SinkFileStatus> rebuilt = cached_files_;
    ApplyEntry(files, &rebuilt);
    rebuilt.erase(std::remove_if(rebuilt.begin(), rebuilt.end(), expired), rebuilt.end());
    compaction_->Reset(EntryText(rebuilt), batch_id - 1);
    st = compaction_->WriteCompaction(batch_id, "", sync, batch_id + kCompactInterval);
    if (st.ok()) cached_files_ = std::move(rebuilt);
  } else {
    // The text so far is already in the entry written ahead (at 10^5 files it is ~20 MB): this
    // batch appends its own lines, syncs and names it.
    st = compaction_->WriteCompaction(batch_id, Lines(files), sync, batch_id + kCompactInterval);
    if (st.ok()) ApplyEntry(files, &cached_files_);
  }
  if (!st.ok()) {
    cached_files_.clear();  // whether the entry exists is unknown (WriteCompaction forgot its text too)
    return st;
  }
  // Entries before a compaction are redundant; dropping them keeps readers that simply union
  // every entry correct. Best effort, off the batch's path: AllFiles() ignores them anyway.
  log_.PurgeBeforeInBackground(batch_id);
  return Status::OK();
}

Result<std::optional<std::vector<std::string>>> ReadCommittedFiles(const std::shared_ptr<io::FileSystem>& fs,
                                                                   const std::string& dir) {
  FileSinkLog log(fs, dir);
  ARROW_ASSIGN_OR_RAISE(bool exists, log.Exists());
  if (!exists) return std::optional<std::vector<std::string>>{};
  ARROW_ASSIGN_OR_RAISE(auto files, log.AllFiles());
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& f : files) {
    if (f.is_dir) continue;
    std::string path = io::UriToPath(f.path);
    if (seen.insert(path).second) out.push_back(std::move(path));
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

}  // namespace sluice::checkpoint
