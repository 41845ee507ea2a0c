// The binary format of a state store's <V>.delta and <V>.snapshot files (docs/state-store.md):
// a fixed header (magic, format version, kind, store version), length-framed records, and a
// trailer with the record count, the records' length, a CRC-32C and an end magic. A torn,
// truncated or corrupt file is always detected and reported with its path; it is never
// partially applied by the reader's callers, which load into a fresh map.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sluice/status.h"

namespace sluice::state {

enum class StateFileKind : uint8_t { kDelta = 1, kSnapshot = 2 };

/// The highest format version this sluice writes and reads.
inline constexpr uint16_t kStateFileFormatVersion = 1;

/// Builds one file in memory. Snapshots hold only puts; deltas hold puts and removals.
class StateFileWriter {
 public:
  StateFileWriter(StateFileKind kind, int64_t store_version);
  void Put(std::string_view key, std::string_view value);
  void Remove(std::string_view key);
  /// The complete file content (header, records, trailer). Call once.
  std::string Finish();

 private:
  std::string buf_;
  uint64_t records_ = 0;
};

/// Called per record in file order; `value` is null for a removal.
using StateRecordFn = std::function<void(std::string_view key, const std::string_view* value)>;

/// Checks `data` (read from `path`) completely — framing, checksum, kind and that its header
/// names `store_version` — before calling `fn` for each record. Errors name `path`.
Status ReadStateFile(const std::string& path, const std::string& data, StateFileKind kind,
                     int64_t store_version, const StateRecordFn& fn);

/// CRC-32C (Castagnoli, reflected, init and final xor 0xFFFFFFFF) — fixed forever by the format.
uint32_t Crc32c(std::string_view data);

}  // namespace sluice::state
