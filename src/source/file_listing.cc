#include "source/file_listing.h"

#include <fnmatch.h>

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
