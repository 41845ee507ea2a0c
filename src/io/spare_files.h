// Unnamed files made ahead of the WriteAtomic calls that fill and name them, for the local
// filesystem's PrepareEntries (io::FileSystem::PrepareEntries): at most one per directory, at
// most kMaxSpares in all (beyond that the least recently prepared is closed, which frees it: an
// unnamed file has no name to leave behind). Thread-safe.
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace sluice::io {

class SpareFiles {
 public:
  static constexpr size_t kMaxSpares = 32;

  SpareFiles() = default;
  SpareFiles(const SpareFiles&) = delete;
  SpareFiles& operator=(const SpareFiles&) = delete;
  ~SpareFiles();
  /// The spare made in `dir`, now the caller's to fill or close; -1 when there is none, or when
  /// `dir` is now on another filesystem than its spare (replaced since: a link would fail).
  int Take(const std::string& dir);
  /// An entry was made in `dir` (see Prepare).
  void Used(const std::string& dir);
  /// One spare in each directory used since the last call and in the interval before it (a
  /// log's directory, used by every batch; not a partition directory a batch uses once) that
  /// has none. Best effort: a directory where no unnamed file can be made gets none
  /// (WriteAtomic then reports why).
  void Prepare();

 private:
  std::mutex mu_;
  std::set<std::string> used_;         // since the last Prepare
  std::set<std::string> used_before_;  // in the interval before that
  std::list<std::pair<std::string, int>> spares_;  // most recently prepared first
};

}  // namespace sluice::io
