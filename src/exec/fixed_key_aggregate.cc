#include "exec/fixed_key_aggregate.h"

#include <arrow/api.h>

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
void GatherAs(const arrow::Array& a, const std::vector<int64_t>& rows, Out* out) {
  const T* v = a.data()->GetValues<T>(1);
  for (size_t i = 0; i < rows.size(); ++i) out[i] = static_cast<Out>(v[rows[i]]);
}

// a[rows[i]] as Out, for the fixed-width types IsFixedWidthKey accepts, and FLOAT/DOUBLE.
// Nulls read whatever the value buffer holds: callers check validity.
template <typename Out>
void Gather(const arrow::Array& a, const std::vector<int64_t>& rows, Out* out) {
  switch (a.type_id()) {
    case arrow::Type::INT8: return GatherAs<int8_t>(a, rows, out);
    case arrow::Type::INT16: return GatherAs<int16_t>(a, rows, out);
    case arrow::Type::INT32: case arrow::Type::DATE32: return GatherAs<int32_t>(a, rows, out);
    case arrow::Type::UINT8: return GatherAs<uint8_t>(a, rows, out);
    case arrow::Type::UINT16: return GatherAs<uint16_t>(a, rows, out);
    case arrow::Type::UINT32: return GatherAs<uint32_t>(a, rows, out);
    case arrow::Type::UINT64: return GatherAs<uint64_t>(a, rows, out);
    case arrow::Type::FLOAT: return GatherAs<float>(a, rows, out);
    case arrow::Type::DOUBLE: return GatherAs<double>(a, rows, out);
    default: return GatherAs<int64_t>(a, rows, out);  // INT64, DATE64, TIMESTAMP
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
                               const AggregateInputs& in)
    : l_(l), w_(w), aggs_(aggs), accs_(accs), in_(in) {}

Result<std::optional<FixedKeyGroups>> FixedKeyGroups::Build(const AggregateLayout& l, const plan::WindowSpec* w,
                                                            const std::vector<plan::AggCall>& aggs,
                                                            const AccumulatorSet& accs, const AggregateInputs& in,
                                                            int64_t late_us, int num_partitions) {
  if (!FixedKeyAggregationEnabled() || l.session || (l.windowed && (!w || !in.time_us))) return std::nullopt;
  if (in.groups.size() > 63 || in.num_rows > (int64_t{1} << 31)) return std::nullopt;
  for (const auto& g : in.groups) {
    if (!IsFixedWidthKey(g->type_id())) return std::nullopt;
  }
  std::optional<FixedKeyGroups> out(FixedKeyGroups(l, w, aggs, accs, in));
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
    const arrow::Array* arg = in_.args[i].get();
    const auto id = arg->type_id();
    Native n;
    n.arg = arg;
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
  const int64_t n = in_.num_rows;
  rows_.reserve(static_cast<size_t>(n));
  if (w_) {
    std::vector<int64_t> starts;
    starts.reserve(static_cast<size_t>(n));
    const arrow::Int64Array& t = *in_.time_us;
    const int64_t* ts = t.raw_values();
    const bool tumbling = w_->slide_us == w_->size_us;
    for (int64_t row = 0; row < n; ++row) {
      if (t.IsNull(row)) continue;  // no event time: in no window (as Spark)
      const int64_t last_start = ts[row] - FloorMod(ts[row], w_->slide_us);
      if (tumbling) {
        if (last_start + w_->size_us <= late_us) {
          ++dropped_;
          continue;
        }
        rows_.push_back(row);
        starts.push_back(last_start);
        continue;
      }
      for (int64_t start = last_start; start > ts[row] - w_->size_us; start -= w_->slide_us) {
        if (start + w_->size_us <= late_us) {
          ++dropped_;
          continue;
        }
        rows_.push_back(row);
        starts.push_back(start);
      }
    }
    cols_.push_back(std::move(starts));
  } else if (l_.time_first && late_us != kNoWatermark) {
    const arrow::Array& first = *in_.groups[0];
    for (int64_t row = 0; row < n; ++row) {
      if (!first.IsNull(row) && ScaleToMicros(IntegerAt(first, row), l_.time_first_factor) <= late_us) {
        ++dropped_;
        continue;
      }
      rows_.push_back(row);
    }
  } else {
    for (int64_t row = 0; row < n; ++row) rows_.push_back(row);
  }
  const size_t m = rows_.size();
  const size_t base = cols_.size();
  for (size_t c = 0; c < in_.groups.size(); ++c) {
    const arrow::Array& a = *in_.groups[c];
    std::vector<int64_t> v(m);
    Gather(a, rows_, v.data());
    if (a.null_count() > 0) {
      if (nulls_.empty()) nulls_.assign(m, 0);
      const uint64_t bit = uint64_t{1} << (base + c);
      for (size_t i = 0; i < m; ++i) {
        if (a.IsNull(rows_[i])) {
          v[i] = 0;
          nulls_[i] |= bit;
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

  // Open addressing (linear probing) over group ids; the table stays at most half full.
  size_t cap = 1024;
  while (cap < m / 2) cap <<= 1;
  std::vector<int32_t> slots(cap, -1);
  std::vector<uint64_t> ghash;
  std::vector<int64_t> gkeys;  // width values per group
  std::vector<uint64_t> gnulls;
  gid_.resize(m);
  auto grow = [&] {
    cap <<= 1;
    slots.assign(cap, -1);
    for (size_t g = 0; g < ghash.size(); ++g) {
      size_t s = ghash[g] & (cap - 1);
      while (slots[s] >= 0) s = (s + 1) & (cap - 1);
      slots[s] = static_cast<int32_t>(g);
    }
  };
  for (size_t i = 0; i < m; ++i) {
    const uint64_t h = hash[i];
    const uint64_t nl = nulls_.empty() ? 0 : nulls_[i];
    size_t s = h & (cap - 1);
    for (;;) {
      const int32_t g = slots[s];
      if (g < 0) {
        const size_t id = ghash.size();
        slots[s] = static_cast<int32_t>(id);
        ghash.push_back(h);
        gnulls.push_back(nl);
        for (size_t c = 0; c < width; ++c) gkeys.push_back(cols_[c][i]);
        rep_row_.push_back(rows_[i]);
        if (w_) wstart_.push_back(cols_[0][i]);
        gid_[i] = static_cast<uint32_t>(id);
        if (ghash.size() * 2 > cap) grow();
        break;
      }
      const size_t gs = static_cast<size_t>(g);
      if (ghash[gs] == h && gnulls[gs] == nl) {
        bool same = true;
        const int64_t* k = gkeys.data() + gs * width;  // width 0 (no keys): an empty vector
        for (size_t c = 0; c < width && same; ++c) same = k[c] == cols_[c][i];
        if (same) {
          gid_[i] = static_cast<uint32_t>(g);
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
  const arrow::Array& arg = *a->arg;
  const bool may_be_null = arg.null_count() > 0;
  auto valid = [&](size_t i) { return !may_be_null || arg.IsValid(rows_[i]); };
  switch (a->kind) {
    case Kind::kCount: {
      a->n.assign(groups, 0);
      for (size_t i = 0; i < m; ++i) a->n[gid_[i]] += valid(i) ? 1 : 0;
      return true;
    }
    case Kind::kSumInt: {
      a->n.assign(groups, 0);
      a->has.assign(groups, 0);
      std::vector<int64_t> v(m);
      Gather(arg, rows_, v.data());
      for (size_t i = 0; i < m; ++i) {
        if (!valid(i)) continue;
        const uint32_t g = gid_[i];
        a->has[g] = 1;
        if (__builtin_add_overflow(a->n[g], v[i], &a->n[g])) return false;
      }
      return true;
    }
    case Kind::kSumDouble:
    case Kind::kAvg: {
      a->d.assign(groups, 0);
      if (a->kind == Kind::kAvg) {
        a->n.assign(groups, 0);
      } else {
        a->has.assign(groups, 0);
      }
      std::vector<double> v(m);
      Gather(arg, rows_, v.data());
      for (size_t i = 0; i < m; ++i) {
        if (!valid(i)) continue;
        const uint32_t g = gid_[i];
        a->d[g] += v[i];
        if (a->kind == Kind::kAvg) {
          ++a->n[g];
        } else {
          a->has[g] = 1;
        }
      }
      return true;
    }
    case Kind::kMin:
    case Kind::kMax: {
      // The encoding orders these types as their int64 values: the first row with the least
      // (greatest) value is the one the generic path keeps.
      a->n.assign(groups, 0);
      a->has.assign(groups, 0);
      a->best_row.assign(groups, 0);
      std::vector<int64_t> v(m);
      Gather(arg, rows_, v.data());
      const bool min = a->kind == Kind::kMin;
      for (size_t i = 0; i < m; ++i) {
        if (!valid(i)) continue;
        const uint32_t g = gid_[i];
        if (!a->has[g] || (min ? v[i] < a->n[g] : v[i] > a->n[g])) {
          a->n[g] = v[i];
          a->best_row[g] = rows_[i];
          a->has[g] = 1;
        }
      }
      return true;
    }
  }
  return true;
}

Status FixedKeyGroups::FoldRows() {
  generic_.assign(rep_row_.size(), Accs(accs_.size()));
  for (size_t i = 0; i < rows_.size(); ++i) ARROW_RETURN_NOT_OK(accs_.Update(&generic_[gid_[i]], in_.args, rows_[i]));
  return Status::OK();
}

void FixedKeyGroups::EncodeKeys(int num_partitions) {
  const size_t groups = rep_row_.size();
  key_begin_.resize(groups + 1);
  partitions_.resize(groups);
  keys_.reserve(groups * (w_ ? 18 : 0) + groups * in_.groups.size() * 9);
  key_begin_[0] = 0;
  for (size_t g = 0; g < groups; ++g) {
    if (w_) {
      EncodeInt64(wstart_[g] + w_->size_us, &keys_);
      EncodeInt64(wstart_[g], &keys_);
    }
    for (const auto& a : in_.groups) EncodeValue(*a, rep_row_[g], &keys_);
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
        if (acc.has) EncodeValue(*a.arg, a.best_row[g], &acc.v);
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
