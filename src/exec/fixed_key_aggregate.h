// The vectorised path of StateStoreSaveExec for fixed-width grouping keys: the window bounds
// plus grouping columns of integer, date or timestamp types.
//
// Per batch, instead of a byte-string key and a hash-map lookup per row: a few thousand rows at
// a time, the key columns are gathered and hashed column by column, the rows are grouped by a
// small open-addressing table over the key tuples (which stays in cache), each of those groups
// is found once in the batch's table, and count/sum/avg/min/max fold column by column into
// per-group arrays (other aggregates fold row by row into each group's partials, still without
// a key string per row).
// Only then is each distinct group's state key encoded (row_codec's encoding, from the group's
// key values, so it is byte for byte the key the generic path builds) and its partition chosen.
//
// The result is the same as the generic path's: the same keys, and the same partials in the
// same row order, so state values stay byte-identical (checkpoint compatibility).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exec/aggregate_exec.h"

namespace sluice::exec {

/// Process-wide switch of the vectorised path: on unless the environment variable
/// SLUICE_AGGREGATION is "generic" at start. Tests and benchmarks turn it off to compare the
/// two paths on the same input.
void SetFixedKeyAggregationEnabled(bool enabled);
bool FixedKeyAggregationEnabled();
/// Batches aggregated on this path since the process started (tests check it was taken).
int64_t FixedKeyAggregationBatches();

/// The value to store for a key: `batch` (the partials of this batch's rows) folded after the
/// stored partials `old` (absent for a new key). A stored value that does not decode fails
/// naming the operator and partition.
Status MergeIntoStored(const AccumulatorSet& accs, int op, int partition, std::optional<std::string_view> old,
                       Accs batch, std::string* value);

/// One batch's rows grouped by fixed-width keys, with each group's partial aggregates.
class FixedKeyGroups {
 public:
  /// Groups the batch's rows, dropping late ones (windows ending at or before `late_us`, or
  /// rows whose watermarked first grouping column is at or before it). Nullopt when this path
  /// does not apply (a grouping key of another type, session windows, the switch off) or gives
  /// the batch up (a BIGINT sum overflows: the generic path then fails or wraps as it always
  /// has). Touches no state.
  /// `parts`: the batch's input batches, read in place (rows are numbered across them, in order).
  static Result<std::optional<FixedKeyGroups>> Build(const AggregateLayout& l, const plan::WindowSpec* w,
                                                     const std::vector<plan::AggCall>& aggs,
                                                     const AccumulatorSet& accs,
                                                     const std::vector<AggregateInputs>& parts, int64_t late_us,
                                                     int num_partitions);

  size_t size() const { return ghash_.size(); }
  /// Rows (or row windows) dropped as late.
  int64_t dropped() const { return dropped_; }
  /// Group g's encoded state key and its state partition.
  std::string_view key(size_t g) const {
    return std::string_view(keys_).substr(key_begin_[g], key_begin_[g + 1] - key_begin_[g]);
  }
  int partition(size_t g) const { return partitions_[g]; }
  /// The value to store for group g (MergeIntoStored with its partials).
  Status Merge(size_t g, int op, int partition, std::optional<std::string_view> old, std::string* value) const;

 private:
  enum class Kind { kCount, kSumInt, kSumDouble, kAvg, kMin, kMax };
  // Per-group partials of one count/sum/avg/min/max call, folded column by column.
  struct Native {
    Kind kind;
    size_t arg = 0;                 // index of its argument in AggregateInputs::args
    std::vector<int64_t> n;         // count, avg's count; min/max: the best value
    std::vector<double> d;          // floating sum, avg's sum
    std::vector<uint8_t> has;       // sum/min/max: a value was seen
    std::vector<int64_t> best_row;  // min/max: the row holding the best value
  };

  // One chunk of a part's rows at a time (a few thousand), so that the per-row work runs on
  // buffers that stay in cache and no per-row array of the whole batch is ever allocated.
  struct Chunk {
    size_t part = 0;
    std::vector<int64_t> rows;               // expanded rows, numbered across the parts
    std::vector<std::vector<int64_t>> cols;  // key columns over rows: [window start], groups...
    std::vector<uint64_t> nulls;             // per row: bit c set when key column c is null (has_nulls_)
    std::vector<uint64_t> hash;
    std::vector<uint32_t> gid;               // per row: its group in the chunk, then in the batch
    std::vector<uint64_t> slots;             // the chunk's own grouping table
    std::vector<uint32_t> first;             // per chunk group: its first row in the chunk
    std::vector<uint32_t> global;            // per chunk group: its group in the batch
    std::vector<int64_t> iv;                 // an argument gathered over rows
    std::vector<double> dv;
  };

  FixedKeyGroups(const AggregateLayout& l, const plan::WindowSpec* w, const std::vector<plan::AggCall>& aggs,
                 const AccumulatorSet& accs, const std::vector<AggregateInputs>& parts);
  // The part holding row `row` (numbered across the parts) and the row's index in it.
  std::pair<size_t, int64_t> Locate(int64_t row) const;
  bool PlanNatives();
  // Rows [begin, end) of part c->part as expanded rows (windows), late ones dropped, with their
  // key columns.
  void Expand(int64_t begin, int64_t end, int64_t late_us, Chunk* c);
  // Groups the chunk's rows among themselves, then each chunk group among the batch's groups
  // (one probe of the batch's table per chunk group, not per row): c->gid becomes batch ids.
  void Group(Chunk* c);
  // Group's work; kWidth: the number of key columns when fixed at compile time (then none is
  // null), 0 for any number.
  template <size_t kWidth>
  void GroupChunk(Chunk* c);
  uint32_t GlobalGroup(const Chunk& c, uint32_t row);
  void GrowGlobal();
  Status FoldRows(const Chunk& c);
  bool FoldNative(Native* a, Chunk* c);
  void EncodeKeys(int num_partitions);
  Accs Partial(size_t g) const;

  const AggregateLayout& l_;
  const plan::WindowSpec* w_;
  const std::vector<plan::AggCall>& aggs_;
  const AccumulatorSet& accs_;
  const std::vector<AggregateInputs>& parts_;
  std::vector<int64_t> offsets_;  // the first row of each part, then the number of rows
  int64_t dropped_ = 0;
  size_t width_ = 0;        // key columns: the window start (windows), then the grouping columns
  bool has_nulls_ = false;  // a key column has nulls somewhere: every row's hash mixes in its null bits
  // Groups, in order of first appearance, and the batch's grouping table over them: open
  // addressing, linear probing, at most half full; a slot holds the upper 32 bits of the group's
  // hash and its id + 1 (0: empty), so a probe reads the group's key values only on a hash match.
  std::vector<uint64_t> slots_;
  std::vector<uint64_t> ghash_;
  std::vector<int64_t> gkeys_;    // width_ values per group
  std::vector<uint64_t> gnulls_;  // has_nulls_ only
  std::vector<Native> natives_;   // when every call is count/sum/avg/min/max
  std::vector<Accs> generic_;     // otherwise: per-group partials folded row by row
  bool counts_only_ = false;
  std::string keys_;               // the groups' encoded keys, one after the other
  std::vector<size_t> key_begin_;  // group g's key is keys_[key_begin_[g], key_begin_[g + 1])
  std::vector<int> partitions_;
};

}  // namespace sluice::exec
