#include "source/file_listing.h"

#include <fnmatch.h>

#include <algorithm>
#include <chrono>

#include "checkpoint/file_sink_log.h"

namespace sluice::source {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Spark's (Hadoop's) glob alternatives: "*.{csv,txt}" -> "*.csv", "*.txt" (nested braces too;
// "\{" is a literal brace; an unbalanced brace stays literal).
std::vector<std::string> ExpandBraces(const std::string& glob) {
  size_t open = std::string::npos;
  int depth = 0;
  std::vector<size_t> commas;
  for (size_t i = 0; i < glob.size(); ++i) {
    const char c = glob[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    if (c == '{') {
      if (depth++ == 0) open = i;
    } else if (c == ',' && depth == 1) {
      commas.push_back(i);
    } else if (c == '}' && depth > 0 && --depth == 0) {
      std::vector<std::string> out;
      const std::string head = glob.substr(0, open);
      const std::string tail = glob.substr(i + 1);
      size_t from = open + 1;
      commas.push_back(i);
      for (size_t comma : commas) {
        for (auto& expanded : ExpandBraces(head + glob.substr(from, comma - from) + tail)) {
          out.push_back(std::move(expanded));
        }
        from = comma + 1;
      }
      return out;
    }
  }
  return {glob};
}

bool MatchesGlob(const std::string& glob, const std::string& name) {
  if (glob.empty()) return true;
  for (const auto& pattern : ExpandBraces(glob)) {
    if (::fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  }
  return false;
}

Status ListInto(io::FileSystem* fs, const std::string& dir, const FileListingOptions& options,
                std::vector<io::FileInfo>* out) {
  ARROW_ASSIGN_OR_RAISE(auto entries, fs->List(dir));
  for (auto& e : entries) {
    if (IsHiddenFileName(e.name)) continue;
    if (e.is_dir) {
      if (options.recursive) ARROW_RETURN_NOT_OK(ListInto(fs, e.path, options, out));
      continue;
    }
    if (MatchesGlob(options.glob, e.name)) out->push_back(std::move(e));
  }
  return Status::OK();
}

}  // namespace

bool IsHiddenFileName(const std::string& name) {
  return name.empty() || name[0] == '.' || name[0] == '_' || EndsWith(name, "._COPYING_");
}

Status PathDoesNotExist(const std::string& abs_path) {
  return Status::IOError("Path does not exist: ", io::PathToUri(abs_path));
}

namespace {

// How old a directory's modification time must be, when the directory is read, for an
// unchanged time to prove an unchanged directory later (filesystem times tick coarsely).
constexpr int64_t kTrustAfterNs = 1'000'000'000;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void IncrementalListing::Forget(const std::string& dir, std::vector<std::string>* removed) {
  auto it = dirs_.find(dir);
  if (it == dirs_.end()) return;
  DirState state = std::move(it->second);
  dirs_.erase(it);
  for (const auto& name : state.names) removed->push_back(io::JoinPath(dir, name));
  for (const auto& sub : state.subdirs) Forget(sub, removed);
}

Status IncrementalListing::UpdateDir(const std::string& dir, const SkipFn& skip, std::vector<io::FileInfo>* added,
                                     std::vector<std::string>* removed) {
  const int64_t started_ns = NowNs();
  ARROW_ASSIGN_OR_RAISE(auto info, fs_->Stat(dir));
  if (!info || !info->is_dir) {
    if (dir == dir_) return info ? Status::IOError("Input path ", io::PathToUri(dir), " is a file, not a directory")
                                 : PathDoesNotExist(dir);
    Forget(dir, removed);  // a sub-directory that went away
    return Status::OK();
  }
  DirState& state = dirs_[dir];
  const bool unchanged = state.trusted && state.mtime_ns == info->mtime_ns;
  if (!unchanged) {
    ARROW_ASSIGN_OR_RAISE(auto entries, fs_->ListNames(dir));
    ++directories_read_;
    std::unordered_set<std::string> names;
    names.reserve(entries.size());
    std::vector<std::string> subdirs;
    for (auto& e : entries) {
      const bool known = state.names.count(e.name) > 0;
      if (!IsHiddenFileName(e.name) && e.is_dir && options_.recursive) subdirs.push_back(io::JoinPath(dir, e.name));
      if (!known && !e.is_dir && !IsHiddenFileName(e.name) && MatchesGlob(options_.glob, e.name)) {
        std::string path = io::JoinPath(dir, e.name);
        if (!skip(path)) {
          ARROW_ASSIGN_OR_RAISE(auto f, fs_->Stat(path));
          ++files_statted_;
          if (!f) continue;  // gone since the directory was read: not seen, so a later one is read
          if (f->is_dir) continue;
          f->path = std::move(path);
          added->push_back(std::move(*f));
        }
      }
      names.insert(std::move(e.name));
    }
    for (const auto& name : state.names) {
      if (!names.count(name)) removed->push_back(io::JoinPath(dir, name));
    }
    for (const auto& sub : state.subdirs) {
      if (std::find(subdirs.begin(), subdirs.end(), sub) == subdirs.end()) Forget(sub, removed);
    }
    DirState& again = dirs_[dir];  // Forget may have rehashed the map
    again.names = std::move(names);
    again.subdirs = std::move(subdirs);
    again.mtime_ns = info->mtime_ns;
    again.trusted = info->mtime_ns < started_ns - kTrustAfterNs;
  }
  const std::vector<std::string> subdirs = dirs_[dir].subdirs;
  for (const auto& sub : subdirs) ARROW_RETURN_NOT_OK(UpdateDir(sub, skip, added, removed));
  return Status::OK();
}

Result<std::vector<io::FileInfo>> ListDataFiles(const std::shared_ptr<io::FileSystem>& fs, const std::string& dir,
                                                const FileListingOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(dir));
  if (!info) return PathDoesNotExist(dir);
  if (!info->is_dir) return Status::IOError("Input path ", io::PathToUri(dir), " is a file, not a directory");

  std::vector<io::FileInfo> out;
  ARROW_ASSIGN_OR_RAISE(auto committed, checkpoint::ReadCommittedFiles(fs, dir));
  if (committed) {
    for (const auto& path : *committed) {
      ARROW_ASSIGN_OR_RAISE(auto f, fs->Stat(path));
      if (!f || f->is_dir) continue;  // listed but gone: the sink's log is the truth, nothing to read
      f->path = path;
      if (MatchesGlob(options.glob, f->name)) out.push_back(std::move(*f));
    }
    return out;
  }
  ARROW_RETURN_NOT_OK(ListInto(fs.get(), dir, options, &out));
  return out;
}

}  // namespace sluice::source
