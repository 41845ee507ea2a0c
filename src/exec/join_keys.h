// Join keys as Arrow arrays: hashing and equality of key rows read straight from the arrays'
// buffers (no per-row strings), with Spark's join-key rules: a NULL key matches nothing, and
// floating-point keys are normalised (-0.0 equals 0.0, every NaN equals every NaN).
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "sluice/status.h"

namespace sluice::exec {

/// The key columns of one batch (the build side's, or one probe batch's). Both sides of a join
/// hold keys of the same types, in the same order.
class JoinKeys {
 public:
  /// `columns` each hold `num_rows` values (none: a cross join, every row equal). Refuses key
  /// types it cannot hash (nested types), naming the type.
  static Result<JoinKeys> Make(std::vector<std::shared_ptr<arrow::Array>> columns, int64_t num_rows);

  int64_t num_rows() const { return num_rows_; }
  /// True when any key column of `row` is NULL (the row matches nothing).
  bool HasNull(int64_t row) const;
  uint64_t Hash(int64_t row) const;
  /// Whether key row `row` equals `other`'s row `other_row` (neither has a NULL).
  bool Equal(int64_t row, const JoinKeys& other, int64_t other_row) const;

 private:
  struct Column;
  std::vector<std::shared_ptr<const Column>> columns_;
  int64_t num_rows_ = 0;
};

/// A hash table over the rows of build-side keys: chained buckets, two int32-sized vectors
/// plus the hashes, so its memory is a few bytes per build row on top of the rows themselves.
class JoinHashTable {
 public:
  explicit JoinHashTable(JoinKeys keys);
  /// Calls `match(build_row)` for every build row whose key equals probe row `row` of `probe`.
  template <typename Fn>
  void ForEachMatch(const JoinKeys& probe, int64_t row, Fn&& match) const {
    if (probe.HasNull(row) || heads_.empty()) return;
    const uint64_t h = probe.Hash(row);
    for (int64_t b = heads_[h & mask_]; b >= 0; b = next_[static_cast<size_t>(b)]) {
      if (hashes_[static_cast<size_t>(b)] == h && keys_.Equal(b, probe, row)) match(b);
    }
  }
  int64_t MemoryBytes() const;

 private:
  JoinKeys keys_;
  std::vector<int64_t> heads_;
  std::vector<int64_t> next_;
  std::vector<uint64_t> hashes_;
  uint64_t mask_ = 0;
};

}  // namespace sluice::exec
