#include "checkpoint/metadata_log.h"

#include <algorithm>
#include <charconv>

#include <arrow/io/interfaces.h>
#include <arrow/util/thread_pool.h>

#include "util/log.h"
#include "util/strings.h"

namespace sluice::checkpoint {

std::vector<std::string> SplitLines(const std::string& body) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= body.size()) {
    size_t nl = body.find('\n', start);
    if (nl == std::string::npos) {
      out.push_back(body.substr(start));
      break;
    }
    out.push_back(body.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

std::string MetadataLog::PathOf(int64_t id, bool compact) const {
  return io::JoinPath(dir_, std::to_string(id) + (compact ? ".compact" : ""));
}

Status MetadataLog::EnsureDir() {
  if (dir_ready_) return Status::OK();
  ARROW_RETURN_NOT_OK(fs_->MakeDirs(dir_));
  dir_ready_ = true;
  return Status::OK();
}

Status MetadataLog::Add(int64_t id, const std::string& body, bool compact, io::EntrySync sync) {
  return AddText(id, Header() + body, compact, sync);
}

Status MetadataLog::AddText(int64_t id, const std::string& text, bool compact, io::EntrySync sync) {
  ARROW_RETURN_NOT_OK(EnsureDir());
  std::string path = PathOf(id, compact);
  return CreateOnly(id, fs_->WriteAtomic(path, text, /*overwrite=*/false, sync));
}

Status MetadataLog::CreateOnly(int64_t id, Status st) const {
  if (st.IsAlreadyExists()) {
    return Status::AlreadyExists("Concurrent update to the log '", dir_, "': entry ", id,
                                 " already exists. Is another query running on this checkpoint?");
  }
  return st;
}

Result<std::shared_ptr<arrow::io::OutputStream>> MetadataLog::OpenEntry(int64_t id, bool compact, io::EntrySync sync) {
  ARROW_RETURN_NOT_OK(EnsureDir());
  return fs_->OpenNewFileUncached(PathOf(id, compact), sync);
}

Status MetadataLog::NameEntry(int64_t id, arrow::io::OutputStream* entry) {
  Status st = fs_->FaultPoint("before_log_entry_naming");
  if (st.ok()) st = entry->Close();
  if (!st.ok()) (void)entry->Abort();  // not named: a stream destroyed unclosed would name it
  return CreateOnly(id, std::move(st));
}

Status MetadataLog::Put(int64_t id, const std::string& body) {
  ARROW_RETURN_NOT_OK(EnsureDir());
  return fs_->WriteAtomic(PathOf(id), Header() + body, /*overwrite=*/true);
}

Result<std::optional<std::string>> MetadataLog::Get(int64_t id) const {
  for (bool compact : {false, true}) {
    std::string path = PathOf(id, compact);
    ARROW_ASSIGN_OR_RAISE(auto info, fs_->Stat(path));
    if (!info) continue;
    ARROW_ASSIGN_OR_RAISE(std::string text, fs_->ReadFile(path));
    auto nl = text.find('\n');
    std::string version = text.substr(0, nl);
    int v = 0;
    if (version.size() < 2 || version[0] != 'v' ||
        std::from_chars(version.data() + 1, version.data() + version.size(), v).ec != std::errc() || v < 1) {
      return Status::Invalid("Log file '", path, "' is damaged: expected a version line like 'v1', found ",
                             util::DescribeBytes(text), ". Restore it from a backup; if it is the newest entry of "
                             "the log, deleting it lets the query re-run that batch");
    }
    if (v > max_version_) {
      return Status::Invalid("Log file '", path, "' has version v", v, " but this sluice reads up to v",
                             max_version_, "; it was written by a newer sluice");
    }
    return std::optional<std::string>(nl == std::string::npos ? std::string() : text.substr(nl + 1));
  }
  return std::optional<std::string>{};
}

Result<std::vector<LogEntryId>> MetadataLog::List() const {
  ARROW_ASSIGN_OR_RAISE(auto dir_info, fs_->Stat(dir_));
  std::vector<LogEntryId> ids;
  if (!dir_info) return ids;
  ARROW_ASSIGN_OR_RAISE(auto entries, fs_->ListNames(dir_));  // names only: no stat per entry
  for (const auto& e : entries) {
    if (e.is_dir || e.name.empty() || e.name[0] == '.') continue;
    std::string name = e.name;
    bool compact = false;
    if (name.size() > 8 && name.compare(name.size() - 8, 8, ".compact") == 0) {
      compact = true;
      name.resize(name.size() - 8);
    }
    int64_t id = 0;
    auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), id);
    if (ec != std::errc() || p != name.data() + name.size() || id < 0) continue;
    ids.push_back({id, compact});
  }
  std::sort(ids.begin(), ids.end(), [](const LogEntryId& a, const LogEntryId& b) { return a.id < b.id; });
  return ids;
}

Result<std::optional<int64_t>> MetadataLog::LatestId() const {
  ARROW_ASSIGN_OR_RAISE(auto ids, List());
  if (ids.empty()) return std::optional<int64_t>{};
  return std::optional<int64_t>(ids.back().id);
}

void MetadataLog::PurgeBeforeInBackground(int64_t threshold) {
  WaitForPurge();
  // The task owns what it uses: this log may be destroyed (after waiting) or copied meanwhile.
  auto purge = [log = MetadataLog(fs_, dir_, max_version_), threshold]() mutable {
    Status st = log.PurgeBefore(threshold);
    if (!st.ok()) util::LogWarning("could not delete the old entries of the log ", log.dir(), ": ", st.ToString());
  };
  auto submitted = arrow::io::default_io_context().executor()->Submit(purge);
  if (submitted.ok()) {
    purge_ = std::move(*submitted);
  } else {
    purge();  // the pool refused (it is shutting down): purge here
  }
}

void MetadataLog::WaitForPurge() {
  if (purge_.is_valid()) purge_.Wait();
}

Status MetadataLog::PurgeBefore(int64_t threshold) {
  ARROW_ASSIGN_OR_RAISE(auto ids, List());
  for (const auto& e : ids) {
    if (e.id >= threshold) break;
    ARROW_RETURN_NOT_OK(fs_->Delete(PathOf(e.id, e.compact)));
  }
  return Status::OK();
}

}  // namespace sluice::checkpoint
