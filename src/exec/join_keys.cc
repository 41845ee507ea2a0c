#include "exec/join_keys.h"

#include <arrow/api.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string_view>

namespace sluice::exec {
namespace {

uint64_t Mix(uint64_t h) {  // splitmix64's finaliser
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

}  // namespace

// One key column, with what hashing it needs resolved once: the kind of values and where they are.
struct JoinKeys::Column {
  enum class Kind { kBool, kFixed, kFloat, kDouble, kBinary, kLargeBinary };
  std::shared_ptr<arrow::Array> array;
  Kind kind = Kind::kFixed;
  const uint8_t* values = nullptr;  // kFixed/kFloat/kDouble: the first value of the array
  int width = 0;

  std::string_view Bytes(int64_t i, uint64_t* scratch) const {
    switch (kind) {
      case Kind::kBool:
        *scratch = static_cast<const arrow::BooleanArray&>(*array).Value(i) ? 1 : 0;
        return {reinterpret_cast<const char*>(scratch), sizeof(*scratch)};
      case Kind::kFloat: {
        float v;
        std::memcpy(&v, values + i * 4, 4);
        double d = std::isnan(v) ? std::nan("") : (v == 0.0f ? 0.0 : static_cast<double>(v));
        std::memcpy(scratch, &d, 8);
        return {reinterpret_cast<const char*>(scratch), 8};
      }
      case Kind::kDouble: {
        double v;
        std::memcpy(&v, values + i * 8, 8);
        double d = std::isnan(v) ? std::nan("") : (v == 0.0 ? 0.0 : v);
        std::memcpy(scratch, &d, 8);
        return {reinterpret_cast<const char*>(scratch), 8};
      }
      case Kind::kBinary:
        return static_cast<const arrow::BinaryArray&>(*array).GetView(i);
      case Kind::kLargeBinary:
        return static_cast<const arrow::LargeBinaryArray&>(*array).GetView(i);
      case Kind::kFixed:
        return {reinterpret_cast<const char*>(values + i * width), static_cast<size_t>(width)};
    }
    return {};
  }
};

Result<JoinKeys> JoinKeys::Make(std::vector<std::shared_ptr<arrow::Array>> columns, int64_t num_rows) {
  JoinKeys keys;
  keys.num_rows_ = num_rows;
  for (auto& array : columns) {
    auto c = std::make_shared<Column>();
    const arrow::DataType& type = *array->type();
    using K = Column::Kind;
    if (type.id() == arrow::Type::BOOL) {
      c->kind = K::kBool;
    } else if (type.id() == arrow::Type::FLOAT || type.id() == arrow::Type::DOUBLE) {
      c->kind = type.id() == arrow::Type::FLOAT ? K::kFloat : K::kDouble;
      c->values = array->data()->buffers[1]->data() + array->offset() * (type.id() == arrow::Type::FLOAT ? 4 : 8);
    } else if (arrow::is_binary_like(type.id())) {
      c->kind = K::kBinary;
    } else if (arrow::is_large_binary_like(type.id())) {
      c->kind = K::kLargeBinary;
    } else if (arrow::is_fixed_width(type.id()) && type.id() != arrow::Type::NA) {
      c->kind = K::kFixed;
      c->width = type.byte_width();
      c->values = array->data()->buffers[1] ? array->data()->buffers[1]->data() + array->offset() * c->width : nullptr;
    } else if (type.id() != arrow::Type::NA) {
      return Status::NotImplemented("join keys of type ", type.ToString(), " are not supported");
    }
    c->array = std::move(array);
    keys.columns_.push_back(std::move(c));
  }
  return keys;
}

bool JoinKeys::HasNull(int64_t row) const {
  for (const auto& c : columns_) {
    if (c->array->IsNull(row)) return true;
  }
  return false;
}

uint64_t JoinKeys::Hash(int64_t row) const {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (const auto& c : columns_) {
    uint64_t scratch = 0;
    h = Mix(h ^ std::hash<std::string_view>{}(c->Bytes(row, &scratch)));
  }
  return h;
}

bool JoinKeys::Equal(int64_t row, const JoinKeys& other, int64_t other_row) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    uint64_t a = 0, b = 0;
    if (columns_[i]->Bytes(row, &a) != other.columns_[i]->Bytes(other_row, &b)) return false;
  }
  return true;
}

JoinHashTable::JoinHashTable(JoinKeys keys) : keys_(std::move(keys)) {
  const int64_t n = keys_.num_rows();
  if (n == 0) return;
  uint64_t buckets = 1;
  while (buckets < static_cast<uint64_t>(n) * 2) buckets <<= 1;
  mask_ = buckets - 1;
  heads_.assign(buckets, -1);
  next_.assign(static_cast<size_t>(n), -1);
  hashes_.assign(static_cast<size_t>(n), 0);
  // Rows are chained in reverse so a lookup meets them in build order.
  for (int64_t r = n - 1; r >= 0; --r) {
    if (keys_.HasNull(r)) continue;
    const uint64_t h = keys_.Hash(r);
    hashes_[static_cast<size_t>(r)] = h;
    next_[static_cast<size_t>(r)] = heads_[h & mask_];
    heads_[h & mask_] = r;
  }
}

int64_t JoinHashTable::MemoryBytes() const {
  return static_cast<int64_t>((heads_.size() + next_.size() + hashes_.size()) * sizeof(int64_t));
}

}  // namespace sluice::exec
