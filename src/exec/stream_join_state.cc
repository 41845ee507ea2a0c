#include "exec/stream_join_state.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <limits>

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

std::string TimeKey(int64_t time_us, int side, std::string_view key) {
  std::string k = TimePrefix(side, time_us);
  k.append(key);
  return k;
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

Status TakeExpiredKeys(state::StateStore* store, int side, int64_t threshold_us, std::set<std::string>* keys) {
  return store->ForEachRemovingInRange(
      std::string(1, static_cast<char>(side)), TimePrefix(side, threshold_us),
      [&](std::string_view k, std::string_view) -> Result<state::StateStore::KeyAction> {
        if (k.size() < 9) {
          return Status::Invalid("stream-stream join state holds a malformed time entry (", k.size(),
                                 " bytes); the checkpoint's state is damaged: restore it or start from a new "
                                 "checkpointLocation");
        }
        keys->emplace(k.substr(9));
        return state::StateStore::KeyAction::kRemove;
      });
}

Status DropTimeEntries(state::StateStore* store, int side) {
  return store->ForEachRemovingInRange(std::string(1, static_cast<char>(side)), std::string(1, static_cast<char>(side)),
                                       [](std::string_view, std::string_view) -> Result<state::StateStore::KeyAction> {
                                         return state::StateStore::KeyAction::kRemove;
                                       });
}

Status AllKeys(const state::StateStore& store, int side, std::set<std::string>* keys) {
  const std::string prefix{kSideByte[side], '\x00'};
  return store.ForEachWithPrefix(prefix, [&](std::string_view k, std::string_view) {
    keys->emplace(k.substr(2));
    return Status::OK();
  });
}

}  // namespace sluice::exec::stream_join_state
