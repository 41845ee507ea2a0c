// The state layout of a stream-stream join (exec/stream_join_exec.cc), one store per partition
// (partition = PartitionOf(<key>)). Keys:
//   <side> 0x00 <key>              -> fixed64 number of rows buffered under the key
//   <side> 0x01 <key> <fixed64 i>  -> 1 byte matched flag, then the row's columns (row_codec)
//   <side> 0x02                    -> fixed64 rows buffered on the side in this partition
//   <0x00 left | 0x01 right> <time> <key> -> "": some row under <key> on the side has event time <time>
//   0x02 'i'                       -> one byte per side ('1' = that side's time entries are complete)
// side = 'l' | 'r', <key> = the encoded join key values (row_codec, floats normalised), <time> =
// the row's event time in micros (the value the side's eviction rule compares with the
// watermark) as fixed64 with the sign bit flipped, so that a side's entries sort by time. They
// let eviction go straight to the keys the watermark expired instead of decoding every buffered
// row; a side whose rule never evicts has none. A row with a NULL event time never expires and
// has no entry. docs/state-store.md.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "state/state_store.h"
#include "sluice/status.h"

namespace sluice::exec::stream_join_state {

inline constexpr char kSideByte[2] = {'l', 'r'};

/// Whether a column of this type can be buffered (row_codec encodes it).
bool Encodable(const arrow::DataType& t);
/// A join key column as Spark compares it: -0.0 equals 0.0 and every NaN equals every NaN.
Result<std::shared_ptr<arrow::Array>> NormaliseFloatKey(const std::shared_ptr<arrow::Array>& a);

std::string CountKey(int side, std::string_view key);
std::string RowKey(int side, std::string_view key, uint64_t i);
std::string TotalKey(int side);
/// The time entry of (time, side, key).
std::string TimeKey(int64_t time_us, int side, std::string_view key);
/// The join key of a row key (<side> 0x01 <key> <fixed64 i>).
std::string_view JoinKeyOfRowKey(std::string_view row_key);

Result<int64_t> GetCount(const state::StateStore& store, const std::string& key);
/// Puts n, or removes the key when n <= 0.
Status PutCount(state::StateStore* store, const std::string& key, int64_t n);

/// Which sides' time entries are complete in this store (the marker key; none when absent:
/// state written before the entries existed, or a side whose rule did not evict then).
Status GetIndexed(const state::StateStore& store, bool indexed[2]);
/// Records which sides' time entries are complete (no write when unchanged from `before`).
Status PutIndexed(state::StateStore* store, const bool before[2], const bool indexed[2]);

/// Removes the time entries of `side` at or before threshold_us and adds their join keys to
/// `keys` (sorted); walks only those entries.
Status TakeExpiredKeys(state::StateStore* store, int side, int64_t threshold_us, std::set<std::string>* keys);
/// Removes every time entry of `side` (its rule no longer evicts).
Status DropTimeEntries(state::StateStore* store, int side);

/// Adds the join key of every key buffered on `side` (its count keys) to `keys`.
Status AllKeys(const state::StateStore& store, int side, std::set<std::string>* keys);

}  // namespace sluice::exec::stream_join_state
