#include "exec/fixed_key_aggregate.h"

#include <arrow/api.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string_view>

#include "exec/row_codec.h"
#include "state/partitioning.h"

namespace sluice::exec {
namespace {

// SLUICE_AGGREGATION=generic starts the process with the vectorised path off (to compare).
bool EnabledAtStart() {
  const char* v = std::getenv("SLUICE_AGGREGATION");
  return v == nullptr || std::string_view(v) != "generic";
}

std::atomic<bool> g_enabled{EnabledAtStart()};
std::atomic<int64_t> g_batches{0};

// A key of one of these types is a fixed-width integer (row_codec.h).
bool IsFixedWidthKey(arrow::Type::type id) { return IsIntegerLike(id); }

bool IsSignedInteger(arrow::Type::type id) {
  return id == arrow::Type::INT8 || id == arrow::Type::INT16 || id == arrow::Type::INT32 || id == arrow::Type::INT64;
}

bool IsFloating(arrow::Type::type id) { return id == arrow::Type::FLOAT || id == arrow::Type::DOUBLE; }

template <typename T, typename Out>
void GatherAs(const arrow::Array& a, const int64_t* rows, size_t n, int64_t base, Out* out) {
  const T* v = a.data()->GetValues<T>(1);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<Out>(v[rows[i] - base]);
}

// a[rows[i] - base] for i in [0, n) as Out, for the fixed-width types IsFixedWidthKey accepts,
// and FLOAT/DOUBLE (`base`: the first row of a's part). Nulls read whatever the value buffer
// holds: callers check validity.
template <typename Out>
void Gather(const arrow::Array& a, const int64_t* rows, size_t n, int64_t base, Out* out) {
  switch (a.type_id()) {
    case arrow::Type::INT8: return GatherAs<int8_t>(a, rows, n, base, out);
    case arrow::Type::INT16: return GatherAs<int16_t>(a, rows, n, base, out);
    case arrow::Type::INT32: case arrow::Type::DATE32: return GatherAs<int32_t>(a, rows, n, base, out);
    case arrow::Type::UINT8: return GatherAs<uint8_t>(a, rows, n, base, out);
    case arrow::Type::UINT16: return GatherAs<uint16_t>(a, rows, n, base, out);
    case arrow::Type::UINT32: return GatherAs<uint32_t>(a, rows, n, base, out);
    case arrow::Type::UINT64: return GatherAs<uint64_t>(a, rows, n, base, out);
    case arrow::Type::FLOAT: return GatherAs<float>(a, rows, n, base, out);
    case arrow::Type::DOUBLE: return GatherAs<double>(a, rows, n, base, out);
    default: return GatherAs<int64_t>(a, rows, n, base, out);  // INT64, DATE64, TIMESTAMP
  }
}

inline uint64_t HashStep(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
  return h ^ (h >> 32);
}

inline uint64_t HashFinish(uint64_t h) {
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 32);
}

}  // namespace

void SetFixedKeyAggregationEnabled(bool enabled) { g_enabled.store(enabled); }
bool FixedKeyAggregationEnabled() { return g_enabled.load(); }
int64_t FixedKeyAggregationBatches() { return g_batches.load(); }

Status MergeIntoStored(const AccumulatorSet& accs, int op, int partition, const std::optional<std::string>& old,
                       Accs batch, std::string* value) {
  value->clear();
  if (!old) {
    accs.Encode(batch, value);
    return Status::OK();
  }
  Accs total;
  size_t pos = 0;
  Status st = accs.Decode(*old, &pos, &total);
  if (!st.ok()) return Status::IOError("State of operator ", op, " partition ", partition, " is unreadable: ", st.message());
  ARROW_RETURN_NOT_OK(accs.Merge(&total, batch));
  accs.Encode(total, value);
  return Status::OK();
}

FixedKeyGroups::FixedKeyGroups(const AggregateLayout& l, const plan::WindowSpec* w,
                               const std::vector<plan::AggCall>& aggs, const AccumulatorSet& accs,
                               const std::vector<AggregateInputs>& parts)
    : l_(l), w_(w), aggs_(aggs), accs_(accs), parts_(parts) {
  offsets_.reserve(parts.size() + 1);
  offsets_.push_back(0);
  for (const auto& part : parts) offsets_.push_back(offsets_.back() + part.num_rows);
}

std::pair<size_t, int64_t> FixedKeyGroups::Locate(int64_t row) const {
  const auto p = static_cast<size_t>(std::upper_bound(offsets_.begin(), offsets_.end(), row) - offsets_.begin() - 1);
  return {p, row - offsets_[p]};
}

Result<std::optional<FixedKeyGroups>> FixedKeyGroups::Build(const AggregateLayout& l, const plan::WindowSpec* w,
                                                            const std::vector<plan::AggCall>& aggs,
                                                            const AccumulatorSet& accs,
                                                            const std::vector<AggregateInputs>& parts, int64_t late_us,
                                                            int num_partitions) {
  if (!FixedKeyAggregationEnabled() || l.session || parts.empty()) return std::nullopt;
  const AggregateInputs& first = parts[0];
  int64_t rows = 0;
  for (const auto& part : parts) {
    if (l.windowed && (!w || !part.time_us)) return std::nullopt;
    rows += part.num_rows;
  }
  if (first.groups.size() > 63 || rows > (int64_t{1} << 31)) return std::nullopt;
  for (const auto& g : first.groups) {
    if (!IsFixedWidthKey(g->type_id())) return std::nullopt;
  }
  std::optional<FixedKeyGroups> out(FixedKeyGroups(l, w, aggs, accs, parts));
  FixedKeyGroups& f = *out;
  const bool native = f.PlanNatives();
  f.Expand(late_us);
  f.Group();
  if (native) {
    for (auto& a : f.natives_) {
      if (!f.FoldNative(&a)) return std::nullopt;
    }
  } else {
    ARROW_RETURN_NOT_OK(f.FoldRows());
  }
  f.EncodeKeys(num_partitions);
  ++g_batches;
  return out;
}

bool FixedKeyGroups::PlanNatives() {
  counts_only_ = true;
  for (size_t i = 0; i < aggs_.size(); ++i) {
    const plan::AggCall& call = aggs_[i];
    const auto id = parts_[0].args[i]->type_id();
    Native n;
    n.arg = i;
    if (call.fn == "count") {
      n.kind = Kind::kCount;
    } else if (call.fn == "sum" && IsSignedInteger(id) && IsSignedInteger(call.arg_type->id())) {
      n.kind = Kind::kSumInt;
    } else if (call.fn == "sum" && IsFloating(id) && IsFloating(call.arg_type->id())) {
      n.kind = Kind::kSumDouble;
    } else if (call.fn == "avg" && (IsSignedInteger(id) || IsFloating(id)) &&
               call.arg_type->id() != arrow::Type::DECIMAL128) {
      n.kind = Kind::kAvg;
    } else if ((call.fn == "min" || call.fn == "max") && IsFixedWidthKey(id)) {
      n.kind = call.fn == "min" ? Kind::kMin : Kind::kMax;
    } else {
      natives_.clear();
      counts_only_ = false;
      return false;
    }
    counts_only_ = counts_only_ && n.kind == Kind::kCount;
    natives_.push_back(std::move(n));
  }
  return true;
}

void FixedKeyGroups::Expand(int64_t late_us) {
  rows_.reserve(static_cast<size_t>(offsets_.back()));
  std::vector<int64_t> starts;
  if (w_) starts.reserve(static_cast<size_t>(offsets_.back()));
  const bool tumbling = w_ && w_->slide_us == w_->size_us;
  for (size_t p = 0; p < parts_.size(); ++p) {
    const AggregateInputs& in = parts_[p];
    const int64_t n = in.num_rows, base = offsets_[p];
    if (w_) {
      const arrow::Int64Array& t = *in.time_us;
      const int64_t* ts = t.raw_values();
      for (int64_t row = 0; row < n; ++row) {
        if (t.IsNull(row)) continue;  // no event time: in no window (as Spark)
        const int64_t last_start = ts[row] - FloorMod(ts[row], w_->slide_us);
        if (tumbling) {
          if (last_start + w_->size_us <= late_us) {
            ++dropped_;
            continue;
          }
          rows_.push_back(base + row);
          starts.push_back(last_start);
          continue;
        }
        for (int64_t start = last_start; start > ts[row] - w_->size_us; start -= w_->slide_us) {
          if (start + w_->size_us <= late_us) {
            ++dropped_;
            continue;
          }
          rows_.push_back(base + row);
          starts.push_back(start);
        }
      }
    } else if (l_.time_first && late_us != kNoWatermark) {
      const arrow::Array& first = *in.groups[0];
      for (int64_t row = 0; row < n; ++row) {
        if (!first.IsNull(row) && ScaleToMicros(IntegerAt(first, row), l_.time_first_factor) <= late_us) {
          ++dropped_;
          continue;
        }
        rows_.push_back(base + row);
      }
    } else {
      for (int64_t row = 0; row < n; ++row) rows_.push_back(base + row);
    }
    part_end_.push_back(rows_.size());
  }
  if (w_) cols_.push_back(std::move(starts));
  const size_t m = rows_.size();
  const size_t first_col = cols_.size();
  for (size_t c = 0; c < parts_[0].groups.size(); ++c) {
    std::vector<int64_t> v(m);
    const uint64_t bit = uint64_t{1} << (first_col + c);
    for (size_t p = 0; p < parts_.size(); ++p) {
      const arrow::Array& a = *parts_[p].groups[c];
      const size_t begin = PartBegin(p), end = part_end_[p];
      Gather(a, rows_.data() + begin, end - begin, offsets_[p], v.data() + begin);
      if (a.null_count() > 0) {
        if (nulls_.empty()) nulls_.assign(m, 0);
        for (size_t i = begin; i < end; ++i) {
          if (a.IsNull(rows_[i] - offsets_[p])) {
            v[i] = 0;
            nulls_[i] |= bit;
          }
        }
      }
    }
    cols_.push_back(std::move(v));
  }
}

void FixedKeyGroups::Group() {
  const size_t m = rows_.size();
  const size_t width = cols_.size();
  // Hash the key columns, one column at a time.
  std::vector<uint64_t> hash(m, 0x2545F4914F6CDD1DULL);
  for (const auto& col : cols_) {
    for (size_t i = 0; i < m; ++i) hash[i] = HashStep(hash[i], static_cast<uint64_t>(col[i]));
  }
  if (!nulls_.empty()) {
    for (size_t i = 0; i < m; ++i) hash[i] = HashStep(hash[i], nulls_[i]);
  }
  for (size_t i = 0; i < m; ++i) hash[i] = HashFinish(hash[i]);

  // Open addressing (linear probing); the table stays at most half full. A slot holds the upper
  // 32 bits of the key's hash and its group id + 1 (0: empty), so a probe reads the group's
  // key values only when the hash bits match. The table starts small and doubles with the
  // groups (not with the rows: 184,000 rows of 14,000 groups probe a 256 KB table, not 1 MB).
  size_t cap = 4096;
  std::vector<uint64_t> slots(cap, 0);
  std::vector<uint64_t> ghash;
  std::vector<int64_t> gkeys;  // width values per group
  std::vector<uint64_t> gnulls;  // only when a key column has nulls
  gid_.resize(m);
  auto slot_of = [](uint64_t h, size_t g) { return (h & 0xFFFFFFFF00000000ULL) | (static_cast<uint64_t>(g) + 1); };
  auto grow = [&] {
    cap <<= 1;
    slots.assign(cap, 0);
    for (size_t g = 0; g < ghash.size(); ++g) {
      size_t s = ghash[g] & (cap - 1);
      while (slots[s] != 0) s = (s + 1) & (cap - 1);
      slots[s] = slot_of(ghash[g], g);
    }
  };
  for (size_t i = 0; i < m; ++i) {
    const uint64_t h = hash[i];
    const uint64_t tag = h & 0xFFFFFFFF00000000ULL;
    const uint64_t nl = nulls_.empty() ? 0 : nulls_[i];
    size_t s = h & (cap - 1);
    for (;;) {
      const uint64_t slot = slots[s];
      if (slot == 0) {
        const size_t id = ghash.size();
        slots[s] = slot_of(h, id);
        ghash.push_back(h);
        if (!nulls_.empty()) gnulls.push_back(nl);
        for (size_t c = 0; c < width; ++c) gkeys.push_back(cols_[c][i]);
        rep_row_.push_back(rows_[i]);
        if (w_) wstart_.push_back(cols_[0][i]);
        gid_[i] = static_cast<uint32_t>(id);
        if (ghash.size() * 2 > cap) grow();
        break;
      }
      if ((slot & 0xFFFFFFFF00000000ULL) == tag) {
        const size_t gs = static_cast<size_t>(slot & 0xFFFFFFFFULL) - 1;
        bool same = nulls_.empty() || gnulls[gs] == nl;
        const int64_t* k = gkeys.data() + gs * width;  // width 0 (no keys): an empty vector
        for (size_t c = 0; c < width && same; ++c) same = k[c] == cols_[c][i];
        if (same) {
          gid_[i] = static_cast<uint32_t>(gs);
          break;
        }
      }
      s = (s + 1) & (cap - 1);
    }
  }
}

bool FixedKeyGroups::FoldNative(Native* a) {
  const size_t groups = rep_row_.size();
  const size_t m = rows_.size();
  switch (a->kind) {
    case Kind::kCount:
      a->n.assign(groups, 0);
      break;
    case Kind::kSumInt:
    case Kind::kMin:
    case Kind::kMax:
      a->n.assign(groups, 0);
      a->has.assign(groups, 0);
      if (a->kind != Kind::kSumInt) a->best_row.assign(groups, 0);
      break;
    case Kind::kSumDouble:
    case Kind::kAvg:
      a->d.assign(groups, 0);
      if (a->kind == Kind::kAvg) {
        a->n.assign(groups, 0);
      } else {
        a->has.assign(groups, 0);
      }
      break;
  }
  std::vector<int64_t> iv;
  std::vector<double> dv;
  if (a->kind == Kind::kSumInt || a->kind == Kind::kMin || a->kind == Kind::kMax) iv.resize(m);
  if (a->kind == Kind::kSumDouble || a->kind == Kind::kAvg) dv.resize(m);
  for (size_t p = 0; p < parts_.size(); ++p) {
    const size_t begin = PartBegin(p), end = part_end_[p];
    const int64_t base = offsets_[p];
    const arrow::Array& arg = *parts_[p].args[a->arg];
    const bool may_be_null = arg.null_count() > 0;
    auto valid = [&](size_t i) { return !may_be_null || arg.IsValid(rows_[i] - base); };
    if (!iv.empty()) Gather(arg, rows_.data() + begin, end - begin, base, iv.data() + begin);
    if (!dv.empty()) Gather(arg, rows_.data() + begin, end - begin, base, dv.data() + begin);
    switch (a->kind) {
      case Kind::kCount:
        if (!may_be_null) {
          for (size_t i = begin; i < end; ++i) ++a->n[gid_[i]];
        } else {
          for (size_t i = begin; i < end; ++i) a->n[gid_[i]] += valid(i) ? 1 : 0;
        }
        break;
      case Kind::kSumInt:
        for (size_t i = begin; i < end; ++i) {
          if (!valid(i)) continue;
          const uint32_t g = gid_[i];
          a->has[g] = 1;
          if (__builtin_add_overflow(a->n[g], iv[i], &a->n[g])) return false;
        }
        break;
      case Kind::kSumDouble:
      case Kind::kAvg:
        for (size_t i = begin; i < end; ++i) {
          if (!valid(i)) continue;
          const uint32_t g = gid_[i];
          a->d[g] += dv[i];
          if (a->kind == Kind::kAvg) {
            ++a->n[g];
          } else {
            a->has[g] = 1;
          }
        }
        break;
      case Kind::kMin:
      case Kind::kMax: {
        // The encoding orders these types as their int64 values: the first row with the least
        // (greatest) value is the one the generic path keeps.
        const bool min = a->kind == Kind::kMin;
        for (size_t i = begin; i < end; ++i) {
          if (!valid(i)) continue;
          const uint32_t g = gid_[i];
          if (!a->has[g] || (min ? iv[i] < a->n[g] : iv[i] > a->n[g])) {
            a->n[g] = iv[i];
            a->best_row[g] = rows_[i];
            a->has[g] = 1;
          }
        }
        break;
      }
    }
  }
  return true;
}

Status FixedKeyGroups::FoldRows() {
  generic_.assign(rep_row_.size(), Accs(accs_.size()));
  for (size_t p = 0; p < parts_.size(); ++p) {
    for (size_t i = PartBegin(p); i < part_end_[p]; ++i) {
      ARROW_RETURN_NOT_OK(accs_.Update(&generic_[gid_[i]], parts_[p].args, rows_[i] - offsets_[p]));
    }
  }
  return Status::OK();
}

void FixedKeyGroups::EncodeKeys(int num_partitions) {
  const size_t groups = rep_row_.size();
  key_begin_.resize(groups + 1);
  partitions_.resize(groups);
  const size_t width = parts_[0].groups.size();
  keys_.reserve(groups * (w_ ? 16 : 0) + groups * width * 9);
  key_begin_[0] = 0;
  for (size_t g = 0; g < groups; ++g) {
    if (w_) {
      EncodeInt64(wstart_[g] + w_->size_us, &keys_);
      EncodeInt64(wstart_[g], &keys_);
    }
    const auto [p, row] = Locate(rep_row_[g]);
    for (const auto& a : parts_[p].groups) EncodeValue(*a, row, &keys_);
    key_begin_[g + 1] = keys_.size();
    partitions_[g] = state::PartitionOf(key(g), num_partitions);
  }
}

Accs FixedKeyGroups::Partial(size_t g) const {
  if (natives_.empty()) return generic_[g];
  Accs out(natives_.size());
  for (size_t i = 0; i < natives_.size(); ++i) {
    const Native& a = natives_[i];
    Acc& acc = out[i];
    switch (a.kind) {
      case Kind::kCount: acc.count = a.n[g]; break;
      case Kind::kSumInt:
        acc.has = a.has[g] != 0;
        acc.i = a.n[g];
        break;
      case Kind::kSumDouble:
        acc.has = a.has[g] != 0;
        acc.d = a.d[g];
        break;
      case Kind::kAvg:
        acc.count = a.n[g];
        acc.d = a.d[g];
        break;
      case Kind::kMin:
      case Kind::kMax:
        acc.has = a.has[g] != 0;
        if (acc.has) {
          const auto [p, row] = Locate(a.best_row[g]);
          EncodeValue(*parts_[p].args[a.arg], row, &acc.v);
        }
        break;
    }
  }
  return out;
}

Status FixedKeyGroups::Merge(size_t g, int op, int partition, const std::optional<std::string>& old,
                             std::string* value) const {
  if (!counts_only_) return MergeIntoStored(accs_, op, partition, old, Partial(g), value);
  // count only: the value is one 8-byte count per call (AccumulatorSet::Encode).
  value->clear();
  size_t pos = 0;
  for (const Native& a : natives_) {
    uint64_t total = static_cast<uint64_t>(a.n[g]);
    if (old) {
      auto stored = GetFixed64(*old, &pos);
      if (!stored.ok()) {
        return Status::IOError("State of operator ", op, " partition ", partition,
                               " is unreadable: ", stored.status().message());
      }
      total += *stored;
    }
    PutFixed64(total, value);
  }
  return Status::OK();
}

}  // namespace sluice::exec
