// Finding the data files of a file source's directory, through the filesystem seam.
//
// Convention (Spark's): names starting with '.' or '_' are hidden (in-progress files, _spark_metadata,
// _SUCCESS), so producers write a hidden name and rename it into place when complete.
#pragma once

#include <string>
#include <vector>

#include "io/file_system.h"

namespace sluice::source {

struct FileListingOptions {
  std::string glob;        // fnmatch pattern on the file name; empty = every file
  bool recursive = false;  // descend into (non-hidden) sub-directories
};

/// True for names a file source never reads ('.'/'_' prefix, "._COPYING_" suffix).
bool IsHiddenFileName(const std::string& name);

/// The data files under `dir` (absolute paths; order unspecified). When `dir` holds a file
/// sink's _spark_metadata log, only the files it lists. Errors name `dir` when it is missing.
Result<std::vector<io::FileInfo>> ListDataFiles(const std::shared_ptr<io::FileSystem>& fs, const std::string& dir,
                                                const FileListingOptions& options);

/// "Path does not exist: file:///abs" — the missing-input error of sources and batch reads.
Status PathDoesNotExist(const std::string& abs_path);

}  // namespace sluice::source
