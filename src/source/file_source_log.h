// The file source's own log, <checkpoint>/sources/<i>/ (Spark's FileStreamSourceLog): entry K
// lists the files source-log batch K took, one JSON line per file after the "v1" line:
//   {"path":"file:///abs/in/a.json","timestamp":1718000000000,"batchId":K}
// Every `compact_interval`-th entry (K+1 divisible by it) is written as "K.compact" holding all
// entries so far; entries older than the newest compaction and more than min_batches_to_retain
// behind it are deleted. Entries are written create-only (a second writer fails).
//
// The whole log is held in memory after Load() (it is also the source's seen-set).
// Thread-compatible: one owner.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/compaction_writer.h"
#include "checkpoint/metadata_log.h"

namespace sluice::source {

struct FileEntry {
  std::string path;       // absolute local path
  int64_t timestamp = 0;  // mtime, ms since the epoch
  int64_t batch_id = 0;   // source-log entry id
};

class FileSourceLog {
 public:
  FileSourceLog(std::shared_ptr<io::FileSystem> fs, std::string dir, int min_batches_to_retain,
                int compact_interval = 10);

  /// Reads the newest compaction and every entry after it. Errors name the log and the entry.
  Status Load();
  std::optional<int64_t> latest_id() const;
  /// Writes entry `id` (= latest_id()+1, or 0) and records it in memory.
  Status Add(int64_t id, std::vector<FileEntry> files);
  /// The files of entries (start_exclusive, end_inclusive], in entry then log order.
  Result<std::vector<FileEntry>> FilesIn(int64_t start_exclusive, int64_t end_inclusive) const;
  const std::map<int64_t, std::vector<FileEntry>>& entries() const { return entries_; }
  const std::string& dir() const { return log_.dir(); }

 private:
  Status ParseBody(int64_t id, const std::string& body, bool compact);
  std::string Serialize(const std::vector<FileEntry>& files) const;

  checkpoint::MetadataLog log_;
  int min_batches_to_retain_;
  int compact_interval_;
  std::map<int64_t, std::vector<FileEntry>> entries_;
  int64_t compacted_through_ = -1;  // newest compaction id
  // entries_ as a compaction entry's text (version line, a line per file), and the next
  // compaction entry written ahead from it. After a Load that found entries it is made at the
  // first compaction (its through() is then behind).
  std::unique_ptr<checkpoint::CompactionWriter> compaction_;
};

}  // namespace sluice::source
