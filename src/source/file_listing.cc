#include "source/file_listing.h"

#include <fnmatch.h>

#include "checkpoint/file_sink_log.h"

namespace sluice::source {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool MatchesGlob(const std::string& glob, const std::string& name) {
  return glob.empty() || ::fnmatch(glob.c_str(), name.c_str(), 0) == 0;
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
