// The binary format of a state store's <V>.delta and <V>.snapshot files (docs/state-store.md):
// a fixed header (magic, format version, kind, store version), length-framed records, and a
// trailer with the record count, the records' length, a CRC-32C and an end magic. A torn,
// truncated or corrupt file is always detected and reported with its path, before any of its
// records reaches the caller. Both directions can stream, so a snapshot may be larger than
// memory (the RocksDB provider's).
#pragma once

#include <arrow/io/interfaces.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/status.h"
#include "util/crc32c.h"

namespace sluice::state {

enum class StateFileKind : uint8_t { kDelta = 1, kSnapshot = 2 };

/// The highest format version this sluice writes and reads.
inline constexpr uint16_t kStateFileFormatVersion = 1;

/// Builds one file. Snapshots hold only puts; deltas hold puts and removals.
class StateFileWriter {
 public:
  StateFileWriter(StateFileKind kind, int64_t store_version);
  void Put(std::string_view key, std::string_view value);
  void Remove(std::string_view key);
  /// Bytes added since the start or the last TakeBuffered().
  size_t buffered_bytes() const { return buf_.size(); }
  /// Hands out the file's next bytes (everything added since the last call), so a large
  /// file can be written out piece by piece; Finish() then returns only the rest.
  std::string TakeBuffered();
  /// The rest of the file content (the whole file when nothing was taken), trailer included.
  /// Call once.
  std::string Finish();

 private:
  std::string buf_;
  uint64_t records_ = 0;
  uint64_t taken_ = 0;   // bytes handed out by TakeBuffered()
  uint32_t crc_ = 0;     // CRC-32C of those bytes
};

/// Called per record in file order; `value` is null for a removal.
using StateRecordFn = std::function<void(std::string_view key, const std::string_view* value)>;

/// Checks `data` (read from `path`) completely — framing, checksum, kind and that its header
/// names `store_version` — before calling `fn` for each record. Errors name `path`.
Status ReadStateFile(const std::string& path, const std::string& data, StateFileKind kind,
                     int64_t store_version, const StateRecordFn& fn);
/// The same checks and calls, reading `file` in bounded chunks (memory does not grow with the
/// file): one pass verifies the checksum, a second one calls `fn`. The views passed to `fn`
/// are valid during the call only. `on_count`, when given, gets the file's record count after
/// the checks and before the first record (a reader sizes its table once).
Status ReadStateFile(const std::string& path, arrow::io::RandomAccessFile* file, StateFileKind kind,
                     int64_t store_version, const StateRecordFn& fn,
                     const std::function<void(uint64_t records)>& on_count = {});

/// The pull form of ReadStateFile, for merging several files record by record: Open makes the
/// same whole-file checks first; Next() then reads the records in file order, a chunk at a time.
/// `file` must outlive the cursor.
class StateFileCursor {
 public:
  static Result<std::unique_ptr<StateFileCursor>> Open(const std::string& path, arrow::io::RandomAccessFile* file,
                                                       StateFileKind kind, int64_t store_version);
  ~StateFileCursor();

  /// Moves to the next record; false after the last one.
  Result<bool> Next();
  /// The current record; the views are valid until the next Next().
  std::string_view key() const;
  /// Null for a removal.
  const std::string_view* value() const;
  /// The number of records the (checked) file holds, as its trailer gives it: at most as many
  /// as its size allows, so a caller can size a table by it.
  uint64_t records() const;

 private:
  struct Impl;
  explicit StateFileCursor(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The files' checksum: CRC-32C (util/crc32c.h) — fixed forever by the format.
using util::Crc32c;
using util::Crc32cExtend;

}  // namespace sluice::state
