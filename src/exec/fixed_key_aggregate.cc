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

// Rows of a part grouped together (a chunk): its buffers stay in the core's cache.
constexpr int64_t kChunkRows = 4096;

inline uint64_t HashFinish(uint64_t h) {
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 32);
}

}  // namespace

void SetFixedKeyAggregationEnabled(bool enabled) { g_enabled.store(enabled); }
bool FixedKeyAggregationEnabled() { return g_enabled.load(); }
int64_t FixedKeyAggregationBatches() { return g_batches.load(); }

Status MergeIntoStored(const AccumulatorSet& accs, int op, int partition, std::optional<std::string_view> old,
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
  f.width_ = (w ? 1 : 0) + first.groups.size();
  for (const auto& part : parts) {
    for (const auto& g : part.groups) f.has_nulls_ = f.has_nulls_ || g->null_count() > 0;
  }
  f.slots_.assign(4096, 0);
  Chunk c;
  c.cols.resize(f.width_);
  for (size_t p = 0; p < parts.size(); ++p) {
    c.part = p;
    for (int64_t begin = 0; begin < parts[p].num_rows; begin += kChunkRows) {
      f.Expand(begin, std::min(begin + kChunkRows, parts[p].num_rows), late_us, &c);
      if (c.rows.empty()) continue;
      f.Group(&c);
      if (native) {
        for (auto& a : f.natives_) {
          if (!f.FoldNative(&a, &c)) return std::nullopt;
        }
      } else {
        ARROW_RETURN_NOT_OK(f.FoldRows(c));
      }
    }
  }
  f.slots_ = {};
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

void FixedKeyGroups::Expand(int64_t begin, int64_t end, int64_t late_us, Chunk* c) {
  const AggregateInputs& in = parts_[c->part];
  const int64_t base = offsets_[c->part];
  c->rows.clear();
  if (w_) {
    std::vector<int64_t>& starts = c->cols[0];
    const arrow::Int64Array& t = *in.time_us;
    const int64_t* ts = t.raw_values();
    // No event time: in no window (as Spark).
    const uint8_t* valid = t.null_count() > 0 ? t.null_bitmap_data() : nullptr;
    const int64_t valid_offset = t.offset();
    const int64_t slide = w_->slide_us, size = w_->size_us;
    if (slide == size) {  // tumbling: one window a row, written in place
      c->rows.resize(static_cast<size_t>(end - begin));
      starts.resize(static_cast<size_t>(end - begin));
      int64_t* rows = c->rows.data();
      int64_t* out = starts.data();
      size_t n = 0;
      for (int64_t row = begin; row < end; ++row) {
        if (valid && !arrow::bit_util::GetBit(valid, valid_offset + row)) continue;
        const int64_t start = ts[row] - FloorMod(ts[row], slide);
        if (start + size <= late_us) {
          ++dropped_;
          continue;
        }
        rows[n] = base + row;
        out[n] = start;
        ++n;
      }
      c->rows.resize(n);
      starts.resize(n);
    } else {
      starts.clear();
      for (int64_t row = begin; row < end; ++row) {
        if (valid && !arrow::bit_util::GetBit(valid, valid_offset + row)) continue;
        const int64_t last_start = ts[row] - FloorMod(ts[row], slide);
        for (int64_t start = last_start; start > ts[row] - size; start -= slide) {
          if (start + size <= late_us) {
            ++dropped_;
            continue;
          }
          c->rows.push_back(base + row);
          starts.push_back(start);
        }
      }
    }
  } else if (l_.time_first && late_us != kNoWatermark) {
    const arrow::Array& first = *in.groups[0];
    for (int64_t row = begin; row < end; ++row) {
      if (!first.IsNull(row) && ScaleToMicros(IntegerAt(first, row), l_.time_first_factor) <= late_us) {
        ++dropped_;
        continue;
      }
      c->rows.push_back(base + row);
    }
  } else {
    for (int64_t row = begin; row < end; ++row) c->rows.push_back(base + row);
  }
  const size_t m = c->rows.size();
  const size_t first_col = w_ ? 1 : 0;
  if (has_nulls_) c->nulls.assign(m, 0);
  for (size_t k = 0; k < in.groups.size(); ++k) {
    std::vector<int64_t>& v = c->cols[first_col + k];
    v.resize(m);
    const arrow::Array& a = *in.groups[k];
    Gather(a, c->rows.data(), m, base, v.data());
    if (a.null_count() > 0) {
      const uint64_t bit = uint64_t{1} << (first_col + k);
      for (size_t i = 0; i < m; ++i) {
        if (a.IsNull(c->rows[i] - base)) {
          v[i] = 0;
          c->nulls[i] |= bit;
        }
      }
    }
  }
}

namespace {
inline uint64_t SlotOf(uint64_t h, size_t id) { return (h & 0xFFFFFFFF00000000ULL) | (static_cast<uint64_t>(id) + 1); }
inline bool TagMatches(uint64_t slot, uint64_t h) { return (slot & 0xFFFFFFFF00000000ULL) == (h & 0xFFFFFFFF00000000ULL); }
inline size_t IdOf(uint64_t slot) { return static_cast<size_t>(slot & 0xFFFFFFFFULL) - 1; }
}  // namespace

void FixedKeyGroups::Group(Chunk* c) {
  // The key widths of windowed and plain aggregations up to three columns are compiled apart
  // (their column loops unrolled); wider keys take the loop over c->cols.
  switch (has_nulls_ ? 0 : c->cols.size()) {
    case 1: return GroupChunk<1>(c);
    case 2: return GroupChunk<2>(c);
    case 3: return GroupChunk<3>(c);
    default: return GroupChunk<0>(c);
  }
}

template <size_t kWidth>
void FixedKeyGroups::GroupChunk(Chunk* c) {
  const size_t m = c->rows.size();
  const size_t width = kWidth ? kWidth : c->cols.size();
  // The key columns' data; kWidth > 0: no nulls.
  const int64_t* col_data[kWidth ? kWidth : 1];
  if constexpr (kWidth > 0) {
    for (size_t k = 0; k < kWidth; ++k) col_data[k] = c->cols[k].data();
  }
  auto column = [&](size_t k) -> const int64_t* {
    if constexpr (kWidth > 0) return col_data[k];
    return c->cols[k].data();
  };
  // Hash the key columns, one column at a time.
  c->hash.assign(m, 0x2545F4914F6CDD1DULL);
  uint64_t* hash = c->hash.data();
  for (size_t k = 0; k < width; ++k) {
    const int64_t* col = column(k);
    for (size_t i = 0; i < m; ++i) hash[i] = HashStep(hash[i], static_cast<uint64_t>(col[i]));
  }
  if (kWidth == 0 && has_nulls_) {
    for (size_t i = 0; i < m; ++i) hash[i] = HashStep(hash[i], c->nulls[i]);
  }
  for (size_t i = 0; i < m; ++i) hash[i] = HashFinish(hash[i]);

  // The chunk's own table (at most half full), then one probe of the batch's per chunk group.
  size_t cap = 64;
  while (cap < 2 * m) cap <<= 1;
  c->slots.assign(cap, 0);
  c->first.clear();
  c->gid.resize(m);
  uint64_t* slots = c->slots.data();
  uint32_t* gid = c->gid.data();
  auto same_rows = [&](size_t a, size_t b) {
    if (kWidth == 0 && has_nulls_ && c->nulls[a] != c->nulls[b]) return false;
    for (size_t k = 0; k < width; ++k) {
      const int64_t* col = column(k);
      if (col[a] != col[b]) return false;
    }
    return true;
  };
  for (size_t i = 0; i < m; ++i) {
    const uint64_t h = hash[i];
    size_t s = h & (cap - 1);
    for (;;) {
      const uint64_t slot = slots[s];
      if (slot == 0) {
        slots[s] = SlotOf(h, c->first.size());
        gid[i] = static_cast<uint32_t>(c->first.size());
        c->first.push_back(static_cast<uint32_t>(i));
        break;
      }
      if (TagMatches(slot, h) && same_rows(c->first[IdOf(slot)], i)) {
        gid[i] = static_cast<uint32_t>(IdOf(slot));
        break;
      }
      s = (s + 1) & (cap - 1);
    }
  }
  c->global.resize(c->first.size());
  for (size_t g = 0; g < c->first.size(); ++g) c->global[g] = GlobalGroup(*c, c->first[g]);
  const uint32_t* global = c->global.data();
  for (size_t i = 0; i < m; ++i) gid[i] = global[gid[i]];
}

uint32_t FixedKeyGroups::GlobalGroup(const Chunk& c, uint32_t i) {
  const uint64_t h = c.hash[i];
  const uint64_t nl = has_nulls_ ? c.nulls[i] : 0;
  const size_t cap = slots_.size();
  size_t s = h & (cap - 1);
  for (;;) {
    const uint64_t slot = slots_[s];
    if (slot == 0) break;
    if (TagMatches(slot, h)) {
      const size_t g = IdOf(slot);
      bool same = !has_nulls_ || gnulls_[g] == nl;
      const int64_t* k = gkeys_.data() + g * width_;  // width 0 (no keys): an empty vector
      for (size_t col = 0; col < width_ && same; ++col) same = k[col] == c.cols[col][i];
      if (same) return static_cast<uint32_t>(g);
    }
    s = (s + 1) & (cap - 1);
  }
  const size_t id = ghash_.size();
  slots_[s] = SlotOf(h, id);
  ghash_.push_back(h);
  if (has_nulls_) gnulls_.push_back(nl);
  for (size_t col = 0; col < width_; ++col) gkeys_.push_back(c.cols[col][i]);
  if (ghash_.size() * 2 > cap) GrowGlobal();
  return static_cast<uint32_t>(id);
}

void FixedKeyGroups::GrowGlobal() {
  const size_t cap = slots_.size() * 2;
  slots_.assign(cap, 0);
  for (size_t g = 0; g < ghash_.size(); ++g) {
    size_t s = ghash_[g] & (cap - 1);
    while (slots_[s] != 0) s = (s + 1) & (cap - 1);
    slots_[s] = SlotOf(ghash_[g], g);
  }
}

bool FixedKeyGroups::FoldNative(Native* a, Chunk* c) {
  const size_t groups = ghash_.size();
  const size_t m = c->rows.size();
  const uint32_t* gid = c->gid.data();
  switch (a->kind) {  // the arrays grow with the groups; new groups start empty
    case Kind::kCount:
      a->n.resize(groups, 0);
      break;
    case Kind::kSumInt:
    case Kind::kMin:
    case Kind::kMax:
      a->n.resize(groups, 0);
      a->has.resize(groups, 0);
      if (a->kind != Kind::kSumInt) a->best_row.resize(groups, 0);
      break;
    case Kind::kSumDouble:
    case Kind::kAvg:
      a->d.resize(groups, 0);
      if (a->kind == Kind::kAvg) {
        a->n.resize(groups, 0);
      } else {
        a->has.resize(groups, 0);
      }
      break;
  }
  const int64_t base = offsets_[c->part];
  const arrow::Array& arg = *parts_[c->part].args[a->arg];
  const bool may_be_null = arg.null_count() > 0;
  auto valid = [&](size_t i) { return !may_be_null || arg.IsValid(c->rows[i] - base); };
  if (a->kind == Kind::kSumInt || a->kind == Kind::kMin || a->kind == Kind::kMax) {
    c->iv.resize(m);
    Gather(arg, c->rows.data(), m, base, c->iv.data());
  }
  if (a->kind == Kind::kSumDouble || a->kind == Kind::kAvg) {
    c->dv.resize(m);
    Gather(arg, c->rows.data(), m, base, c->dv.data());
  }
  const int64_t* iv = c->iv.data();
  const double* dv = c->dv.data();
  switch (a->kind) {
    case Kind::kCount:
      if (!may_be_null) {
        for (size_t i = 0; i < m; ++i) ++a->n[gid[i]];
      } else {
        for (size_t i = 0; i < m; ++i) a->n[gid[i]] += valid(i) ? 1 : 0;
      }
      break;
    case Kind::kSumInt:
      for (size_t i = 0; i < m; ++i) {
        if (!valid(i)) continue;
        const uint32_t g = gid[i];
        a->has[g] = 1;
        if (__builtin_add_overflow(a->n[g], iv[i], &a->n[g])) return false;
      }
      break;
    case Kind::kSumDouble:
    case Kind::kAvg:
      for (size_t i = 0; i < m; ++i) {
        if (!valid(i)) continue;
        const uint32_t g = gid[i];
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
      // (greatest) value is the one the generic path keeps (chunks come in row order).
      const bool min = a->kind == Kind::kMin;
      for (size_t i = 0; i < m; ++i) {
        if (!valid(i)) continue;
        const uint32_t g = gid[i];
        if (!a->has[g] || (min ? iv[i] < a->n[g] : iv[i] > a->n[g])) {
          a->n[g] = iv[i];
          a->best_row[g] = c->rows[i];
          a->has[g] = 1;
        }
      }
      break;
    }
  }
  return true;
}

Status FixedKeyGroups::FoldRows(const Chunk& c) {
  if (generic_.size() < ghash_.size()) generic_.resize(ghash_.size(), Accs(accs_.size()));
  const int64_t base = offsets_[c.part];
  for (size_t i = 0; i < c.rows.size(); ++i) {
    ARROW_RETURN_NOT_OK(accs_.Update(&generic_[c.gid[i]], parts_[c.part].args, c.rows[i] - base));
  }
  return Status::OK();
}

void FixedKeyGroups::EncodeKeys(int num_partitions) {
  // The key row_codec gives the group's first row (EncodeValue of each column; a window's end
  // then start), written from the group's key values: a null is one 0 byte, an integer 9 bytes.
  const size_t groups = ghash_.size();
  key_begin_.resize(groups + 1);
  partitions_.resize(groups);
  const size_t max_key = (width_ + (w_ ? 1 : 0)) * kEncodedInt64Size;
  keys_.resize(groups * max_key);
  char* out = keys_.data();
  key_begin_[0] = 0;
  for (size_t g = 0; g < groups; ++g) {
    char* const begin = out;
    const int64_t* k = gkeys_.data() + g * width_;
    const uint64_t nl = has_nulls_ ? gnulls_[g] : 0;
    size_t c = 0;
    if (w_) {
      EncodeInt64To(k[0] + w_->size_us, out);
      EncodeInt64To(k[0], out + kEncodedInt64Size);
      out += 2 * kEncodedInt64Size;
      c = 1;
    }
    for (; c < width_; ++c) {
      if (nl & (uint64_t{1} << c)) {
        *out++ = 0;
      } else {
        EncodeInt64To(k[c], out);
        out += kEncodedInt64Size;
      }
    }
    key_begin_[g + 1] = static_cast<size_t>(out - keys_.data());
    partitions_[g] = state::PartitionOf(std::string_view(begin, static_cast<size_t>(out - begin)), num_partitions);
  }
  keys_.resize(key_begin_[groups]);
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

Status FixedKeyGroups::Merge(size_t g, int op, int partition, std::optional<std::string_view> old,
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
