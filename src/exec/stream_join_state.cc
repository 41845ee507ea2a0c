#include "exec/stream_join_state.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <limits>
#include <optional>

#include "exec/row_codec.h"

namespace sluice::exec::stream_join_state {
namespace {

constexpr uint64_t kSignBit = uint64_t{1} << 63;
const std::string kIndexedKey{'\x02', 'i'};

// <side> <time>: the first bytes of a side's time entries at `time_us`.
std::string TimePrefix(int side, int64_t time_us) {
  std::string k(1, static_cast<char>(side));
  PutFixed64(static_cast<uint64_t>(time_us) ^ kSignBit, &k);
  return k;
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> NormaliseFloatKey(const std::shared_ptr<arrow::Array>& a) {
  if (a->type_id() != arrow::Type::DOUBLE && a->type_id() != arrow::Type::FLOAT) return a;
  ARROW_ASSIGN_OR_RAISE(auto zero, arrow::MakeScalar(a->type(), 0.0));
  ARROW_ASSIGN_OR_RAISE(auto nan, arrow::MakeScalar(a->type(), std::numeric_limits<double>::quiet_NaN()));
  ARROW_ASSIGN_OR_RAISE(auto plus, arrow::compute::Add(a, zero));
  ARROW_ASSIGN_OR_RAISE(auto is_nan, arrow::compute::CallFunction("is_nan", {a}));
  ARROW_ASSIGN_OR_RAISE(auto out, arrow::compute::CallFunction("if_else", {is_nan, nan, plus}));
  return out.make_array();
}

bool Encodable(const arrow::DataType& t) {
  switch (t.id()) {
    case arrow::Type::BOOL: case arrow::Type::INT8: case arrow::Type::INT16: case arrow::Type::INT32:
    case arrow::Type::INT64: case arrow::Type::UINT8: case arrow::Type::UINT16: case arrow::Type::UINT32:
    case arrow::Type::UINT64: case arrow::Type::FLOAT: case arrow::Type::DOUBLE: case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING: case arrow::Type::BINARY: case arrow::Type::LARGE_BINARY:
    case arrow::Type::DATE32: case arrow::Type::DATE64: case arrow::Type::TIMESTAMP: case arrow::Type::DECIMAL128:
      return true;
    default:
      return false;
  }
}

std::string CountKey(int side, std::string_view key) {
  std::string k{kSideByte[side], '\x00'};
  k.append(key);
  return k;
}

std::string RowKey(int side, std::string_view key, uint64_t i) {
  std::string k{kSideByte[side], '\x01'};
  k.append(key);
  PutFixed64(i, &k);
  return k;
}

std::string TotalKey(int side) { return std::string{kSideByte[side], '\x02'}; }

void AddToTimeLists(int64_t time_us, std::string_view key, TimeLists* lists) {
  int64_t bucket = INT64_MIN;  // floor to the bucket (times within one bucket of the minimum: the first)
  if (time_us >= INT64_MIN + kTimeBucketUs) bucket = time_us - ((time_us % kTimeBucketUs) + kTimeBucketUs) % kTimeBucketUs;
  PutBytes(key, &(*lists)[bucket]);
}

Status PutTimeLists(state::StateStore* store, int side, const TimeLists& lists) {
  for (const auto& [bucket, keys] : lists) {
    ARROW_RETURN_NOT_OK(store->Update(TimePrefix(side, bucket), [&](std::optional<std::string_view> old, std::string* v) {
      if (old) v->assign(*old);
      v->append(keys);
      return Status::OK();
    }));
  }
  return Status::OK();
}

std::string_view JoinKeyOfRowKey(std::string_view row_key) { return row_key.substr(2, row_key.size() - 10); }

Result<int64_t> GetCount(const state::StateStore& store, const std::string& key) {
  ARROW_ASSIGN_OR_RAISE(auto v, store.Get(key));
  if (!v) return 0;
  size_t pos = 0;
  ARROW_ASSIGN_OR_RAISE(uint64_t n, GetFixed64(*v, &pos));
  return static_cast<int64_t>(n);
}

Status PutCount(state::StateStore* store, const std::string& key, int64_t n) {
  if (n <= 0) return store->Remove(key);
  std::string v;
  PutFixed64(static_cast<uint64_t>(n), &v);
  return store->Put(key, v);
}

Status GetIndexed(const state::StateStore& store, bool indexed[2]) {
  ARROW_ASSIGN_OR_RAISE(auto v, store.Get(kIndexedKey));
  for (int s = 0; s < 2; ++s) indexed[s] = v && v->size() == 2 && (*v)[static_cast<size_t>(s)] == '1';
  return Status::OK();
}

Status PutIndexed(state::StateStore* store, const bool before[2], const bool indexed[2]) {
  if (before[0] == indexed[0] && before[1] == indexed[1]) return Status::OK();
  return store->Put(kIndexedKey, std::string{indexed[0] ? '1' : '0', indexed[1] ? '1' : '0'});
}

Status TakeExpiredKeys(state::StateStore* store, int operator_id, int partition, int side, int64_t threshold_us,
                       std::set<std::string>* keys, int64_t* listed) {
  *listed = 0;
  return store->ForEachRemovingInRange(
      std::string(1, static_cast<char>(side)), TimePrefix(side, threshold_us),
      [&](std::string_view k, std::string_view v) -> Result<state::StateStore::KeyAction> {
        auto damaged = [&](const std::string& what) {
          return Status::Invalid("stream-stream join state of operator ", operator_id, " partition ", partition,
                                 " holds a malformed time entry on the ", side ? "right" : "left", " side (", what,
                                 "); the checkpoint's state is damaged: restore it or start from a new "
                                 "checkpointLocation");
        };
        if (k.size() != 9) return damaged(std::to_string(k.size()) + "-byte key");
        size_t pos = 1;
        ARROW_ASSIGN_OR_RAISE(uint64_t raw, GetFixed64(k, &pos));
        const int64_t bucket = static_cast<int64_t>(raw ^ kSignBit);
        for (size_t at = 0; at < v.size(); ++*listed) {
          auto key = GetBytes(v, &at);
          if (!key.ok()) return damaged(key.status().message());
          keys->emplace(*key);
        }
        // A bucket the threshold ends inside stays: its later rows keep it.
        const bool whole = bucket > INT64_MAX - kTimeBucketUs ? false : bucket + kTimeBucketUs - 1 <= threshold_us;
        return whole ? state::StateStore::KeyAction::kRemove : state::StateStore::KeyAction::kKeep;
      });
}

Status DropTimeEntries(state::StateStore* store, int side) {
  return store->ForEachRemovingInRange(std::string(1, static_cast<char>(side)), std::string(1, static_cast<char>(side)),
                                       [](std::string_view, std::string_view) -> Result<state::StateStore::KeyAction> {
                                         return state::StateStore::KeyAction::kRemove;
                                       });
}

Status MissingRow(int operator_id, int side, int64_t i) {
  return Status::Invalid("stream-stream join state of operator ", operator_id, " is missing row ", i, " of a key on the ",
                         side ? "right" : "left", " side; the checkpoint's state is damaged: restore it or start "
                         "from a new checkpointLocation");
}

Status GatherAllRows(const state::StateStore& store, int side, GatheredRows* out) {
  const std::string prefix{kSideByte[side], '\x01'};
  ARROW_RETURN_NOT_OK(store.ForEachWithPrefix(prefix, [&](std::string_view k, std::string_view v) {
    const std::string_view key = JoinKeyOfRowKey(k);
    if (out->keys.empty() || out->keys.back() != key) {
      out->keys.emplace_back(key);
      out->starts.push_back(out->values.size());
    }
    out->values.emplace_back(v);
    return Status::OK();
  }));
  out->starts.push_back(out->values.size());
  return Status::OK();
}

Status GatherKeyRows(const state::StateStore& store, int operator_id, int side, const std::set<std::string>& keys,
                     GatheredRows* out) {
  for (const auto& key : keys) {
    ARROW_ASSIGN_OR_RAISE(int64_t n, GetCount(store, CountKey(side, key)));
    if (n == 0) continue;  // a time entry outlives rows that left under another entry
    out->keys.push_back(key);
    out->starts.push_back(out->values.size());
    for (int64_t i = 0; i < n; ++i) {
      ARROW_ASSIGN_OR_RAISE(auto v, store.Get(RowKey(side, key, static_cast<uint64_t>(i))));
      if (!v || v->empty()) return MissingRow(operator_id, side, i);
      out->values.push_back(std::move(*v));
    }
  }
  out->starts.push_back(out->values.size());
  return Status::OK();
}

}  // namespace sluice::exec::stream_join_state
