// The state layout of a stream-stream join (exec/stream_join_exec.cc), one store per partition
// (partition = PartitionOf(<key>)). Keys:
//   <side> 0x00 <key>              -> fixed64 number of rows buffered under the key
//   <side> 0x01 <key> <fixed64 i>  -> 1 byte matched flag, then the row's columns (row_codec)
//   <side> 0x02                    -> fixed64 rows buffered on the side in this partition
//   <0x00 left | 0x01 right> <bucket> -> the join keys (each as row_codec's PutBytes) of
//                                        rows on the side whose event time falls in the bucket
//   0x02 'i'                       -> one byte per side ('1' = that side's time entries are complete)
// side = 'l' | 'r', <key> = the encoded join key values (row_codec, floats normalised). A row's
// event time is the value its side's eviction rule compares with the watermark, in micros; its
// <bucket> = the start of the kTimeBucketUs it falls in, as fixed64 with the sign bit flipped, so
// that a side's time entries sort by time. They let eviction go straight to the keys the
// watermark expired instead of decoding every buffered row; a side whose rule never evicts has
// none. A row with a NULL event time never expires and has no entry. A key may be listed twice,
// or after its rows are gone: eviction reads each listed key's rows and decides by their times.
// docs/state-store.md.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

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
/// The span of event time one time entry covers.
inline constexpr int64_t kTimeBucketUs = 100000;
/// Join keys to list in time entries, per bucket start (each key as PutBytes writes it).
using TimeLists = std::map<int64_t, std::string>;
void AddToTimeLists(int64_t time_us, std::string_view key, TimeLists* lists);
/// Appends each bucket's keys to the side's time entry of that bucket.
Status PutTimeLists(state::StateStore* store, int side, const TimeLists& lists);
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

/// Adds the keys listed by the time entries of `side` whose bucket starts at or before
/// threshold_us to `keys` (sorted), and removes the entries whose bucket ends by then; walks
/// only those entries. `*listed` = the listings read (rows, a key once per row).
Status TakeExpiredKeys(state::StateStore* store, int operator_id, int partition, int side, int64_t threshold_us,
                       std::set<std::string>* keys, int64_t* listed);
/// Removes every time entry of `side` (its rule no longer evicts).
Status DropTimeEntries(state::StateStore* store, int side);

/// The error for a row missing under a key (damaged state).
Status MissingRow(int operator_id, int side, int64_t i);

/// Some of a side's buffered rows, grouped by join key in key order: the rows of keys[k]
/// (indexes 0..n-1) are values[starts[k] .. starts[k + 1]) (starts ends with values.size()).
struct GatheredRows {
  std::vector<std::string> keys;
  std::vector<std::string> values;
  std::vector<size_t> starts;
};
/// Every row of `side`, in one ordered walk.
Status GatherAllRows(const state::StateStore& store, int side, GatheredRows* out);
/// The rows of `keys` on `side`, looked up (a key without rows is left out).
Status GatherKeyRows(const state::StateStore& store, int operator_id, int side, const std::set<std::string>& keys,
                     GatheredRows* out);

}  // namespace sluice::exec::stream_join_state
