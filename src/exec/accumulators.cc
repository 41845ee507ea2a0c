#include "exec/accumulators.h"

#include <arrow/api.h>
#include <arrow/util/decimal.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "exec/accumulators_moments.h"
#include "exec/accumulators_sketches.h"
#include "exec/row_codec.h"

namespace sluice::exec {
namespace {

// BIGINT sum wraps around on overflow, as Spark's non-ANSI sum (two's complement, computed
// unsigned: signed overflow is undefined in C++).
int64_t WrappingAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// Spark's ANSI sum of longs (Math.addExact): the error names the aggregate call. Built only on
// the failing path.
Status SumOverflow(const plan::AggCall& call) {
  return Status::Invalid("[ARITHMETIC_OVERFLOW] long overflow in ", call.ToString(),
                         ". Use 'try_sum' to tolerate overflow and return NULL instead. If necessary set "
                         "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error (the sum then wraps around).");
}

// a + b into *a; under ANSI an overflow fails, otherwise it wraps.
Status AddLong(const plan::AggCall& call, int64_t b, int64_t* a) {
  int64_t r;
  if (__builtin_add_overflow(*a, b, &r)) {
    if (call.mode == plan::EvalMode::kAnsi) return SumOverflow(call);
    r = WrappingAdd(*a, b);
  }
  *a = r;
  return Status::OK();
}

bool IsFloating(const arrow::DataType& t) { return t.id() == arrow::Type::FLOAT || t.id() == arrow::Type::DOUBLE; }

int64_t IntAt(const arrow::Array& a, int64_t row) { return IntegerAt(a, row); }

double DoubleAt(const arrow::Array& a, int64_t row) {
  switch (a.type_id()) {
    case arrow::Type::FLOAT: return static_cast<const arrow::FloatArray&>(a).Value(row);
    case arrow::Type::DOUBLE: return static_cast<const arrow::DoubleArray&>(a).Value(row);
    case arrow::Type::DECIMAL128: {
      const auto& t = static_cast<const arrow::Decimal128Type&>(*a.type());
      return arrow::Decimal128(static_cast<const arrow::Decimal128Array&>(a).GetValue(row)).ToDouble(t.scale());
    }
    default: return static_cast<double>(IntAt(a, row));
  }
}

__int128 DecimalAt(const arrow::Array& a, int64_t row) {
  arrow::Decimal128 d(static_cast<const arrow::Decimal128Array&>(a).GetValue(row));
  return (static_cast<__int128>(d.high_bits()) << 64) | static_cast<__int128>(d.low_bits());
}

void PutDouble(double d, std::string* out) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  PutFixed64(bits, out);
}

Result<double> GetDouble(std::string_view b, size_t* pos) {
  ARROW_ASSIGN_OR_RAISE(uint64_t bits, GetFixed64(b, pos));
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// Decimal sums stay within __int128 by saturating: a saturated sum is beyond 38 digits, so
// Finish reports it out of range like any sum that does not fit its result type.
void AddDecimal(__int128 b, __int128* a) {
  if (__builtin_add_overflow(*a, b, a)) {
    *a = b < 0 ? std::numeric_limits<__int128>::min() : std::numeric_limits<__int128>::max();
  }
}

void PutInt128(__int128 v, std::string* out) {
  PutFixed64(static_cast<uint64_t>(static_cast<unsigned __int128>(v) >> 64), out);
  PutFixed64(static_cast<uint64_t>(v), out);
}

Result<__int128> GetInt128(std::string_view b, size_t* pos) {
  ARROW_ASSIGN_OR_RAISE(uint64_t hi, GetFixed64(b, pos));
  ARROW_ASSIGN_OR_RAISE(uint64_t lo, GetFixed64(b, pos));
  return static_cast<__int128>((static_cast<unsigned __int128>(hi) << 64) | lo);
}

arrow::Decimal128 ToDecimal128(__int128 v) {
  return arrow::Decimal128(static_cast<int64_t>(static_cast<unsigned __int128>(v) >> 64), static_cast<uint64_t>(v));
}

bool IsDecimal(const arrow::DataType& t) { return t.id() == arrow::Type::DECIMAL128; }

// num / den rounded half away from zero (Java's ROUND_HALF_UP); den > 0.
arrow::Decimal256 DivideHalfUp(const arrow::Decimal256& num, const arrow::Decimal256& den) {
  auto [q, r] = num.Divide(den).ValueOrDie();  // den > 0: cannot fail
  if (arrow::BasicDecimal256::Abs(r) * arrow::BasicDecimal256(2) >= den) {
    q += num.IsNegative() ? arrow::BasicDecimal256(-1) : arrow::BasicDecimal256(1);
  }
  return q;
}

// Spark's avg over DECIMAL(p, s): the exact quotient of the sum (DECIMAL(min(38, p + 10), s))
// by the count, rounded half up to the result type DECIMAL(min(38, p + 4), min(38, s + 4)).
// Nullopt when the sum or the quotient does not fit.
std::optional<arrow::Decimal128> DecimalAverage(__int128 sum, int64_t count, const arrow::Decimal128Type& arg,
                                                const arrow::Decimal128Type& out) {
  const arrow::Decimal128 total = ToDecimal128(sum);
  if (!total.FitsInPrecision(std::min(38, arg.precision() + 10))) return std::nullopt;
  const arrow::Decimal256 q =
      DivideHalfUp(arrow::Decimal256(total).IncreaseScaleBy(out.scale() - arg.scale()), arrow::Decimal256(count));
  if (!q.FitsInPrecision(out.precision())) return std::nullopt;
  const auto& words = q.little_endian_array();
  return arrow::Decimal128(static_cast<int64_t>(words[1]), words[0]);
}

Status DecimalOutOfRange(const plan::AggCall& call) {
  return Status::Invalid("[NUMERIC_VALUE_OUT_OF_RANGE] the result of ", call.ToString(), " cannot be represented as ",
                         plan::TypeName(*call.out_type),
                         ". If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error (the "
                         "result is then NULL).");
}

Result<bool> GetFlag(std::string_view b, size_t* pos) {
  if (*pos >= b.size()) return Status::IOError("state value truncated at ", *pos);
  return b[(*pos)++] != 0;
}

// Folds the non-null a[row] into a sum's (avg == false) or an average's Acc.
Status FoldNumber(bool avg, const plan::AggCall& call, const arrow::Array& a, int64_t row, Acc* acc) {
  if (avg) {
    ++acc->count;
    if (a.type_id() == arrow::Type::DECIMAL128) {
      AddDecimal(DecimalAt(a, row), &acc->dec);
    } else {
      acc->d += DoubleAt(a, row);
    }
    return Status::OK();
  }
  acc->has = true;
  if (a.type_id() == arrow::Type::DECIMAL128) {
    AddDecimal(DecimalAt(a, row), &acc->dec);
  } else if (IsFloating(*a.type())) {
    acc->d += DoubleAt(a, row);
  } else {
    ARROW_RETURN_NOT_OK(AddLong(call, IntAt(a, row), &acc->i));
  }
  return Status::OK();
}

// Appends a sum's (avg == false) or an average's final value.
Status FinishNumber(bool avg, const plan::AggCall& call, const Acc& a, arrow::ArrayBuilder* b) {
  if (avg) {
    if (a.count == 0) return b->AppendNull();
    if (IsDecimal(*call.arg_type)) {
      auto v = DecimalAverage(a.dec, a.count, static_cast<const arrow::Decimal128Type&>(*call.arg_type),
                              static_cast<const arrow::Decimal128Type&>(*call.out_type));
      if (!v && call.mode == plan::EvalMode::kAnsi) return DecimalOutOfRange(call);
      return v ? static_cast<arrow::Decimal128Builder*>(b)->Append(*v) : b->AppendNull();
    }
    return static_cast<arrow::DoubleBuilder*>(b)->Append(a.d / static_cast<double>(a.count));
  }
  if (!a.has) return b->AppendNull();
  if (IsDecimal(*call.out_type)) {
    const arrow::Decimal128 d = ToDecimal128(a.dec);
    if (d.FitsInPrecision(static_cast<const arrow::Decimal128Type&>(*call.out_type).precision())) {
      return static_cast<arrow::Decimal128Builder*>(b)->Append(d);
    }
    if (call.mode == plan::EvalMode::kAnsi) return DecimalOutOfRange(call);
    return b->AppendNull();
  }
  if (call.out_type->id() == arrow::Type::DOUBLE) return static_cast<arrow::DoubleBuilder*>(b)->Append(a.d);
  return static_cast<arrow::Int64Builder*>(b)->Append(a.i);
}

// sum/avg(DISTINCT x): the sum or average of the distinct encoded values, under sum's/avg's rules.
Status FinishDistinctNumber(bool avg, const plan::AggCall& call, const std::set<std::string>& values,
                            arrow::ArrayBuilder* b) {
  std::unique_ptr<arrow::ArrayBuilder> vb;
  ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), call.arg_type, &vb));
  for (const auto& v : values) {
    size_t pos = 0;
    ARROW_RETURN_NOT_OK(DecodeValue(v, &pos, *call.arg_type, vb.get()));
  }
  ARROW_ASSIGN_OR_RAISE(auto array, vb->Finish());
  Acc acc;
  for (int64_t row = 0; row < array->length(); ++row) ARROW_RETURN_NOT_OK(FoldNumber(avg, call, *array, row, &acc));
  return FinishNumber(avg, call, acc, b);
}

// collect_list/collect_set: the encoded values as one list entry.
template <typename Values>
Status AppendList(const plan::AggCall& call, const Values& values, arrow::ArrayBuilder* b) {
  auto* list = static_cast<arrow::ListBuilder*>(b);
  ARROW_RETURN_NOT_OK(list->Append());
  for (const auto& v : values) {
    size_t pos = 0;
    ARROW_RETURN_NOT_OK(DecodeValue(v, &pos, *call.arg_type, list->value_builder()));
  }
  return Status::OK();
}

void PutValues(const std::set<std::string>& values, std::string* out) {
  PutFixed64(values.size(), out);
  for (const auto& v : values) PutBytes(v, out);
}

Status GetValues(std::string_view b, size_t* pos, std::set<std::string>* values) {
  ARROW_ASSIGN_OR_RAISE(uint64_t n, GetFixed64(b, pos));
  for (uint64_t k = 0; k < n; ++k) {
    ARROW_ASSIGN_OR_RAISE(auto v, GetBytes(b, pos));
    values->emplace_hint(values->end(), v);
  }
  return Status::OK();
}

}  // namespace

AccumulatorSet::AccumulatorSet(const std::vector<plan::AggCall>& aggs) : aggs_(&aggs) {
  for (const auto& a : aggs) {
    const std::string& f = a.fn;
    fns_.push_back(f == "count"            ? Fn::kCount
                   : f == "count_distinct" ? Fn::kCountDistinct
                   : f == "sum"            ? Fn::kSum
                   : f == "avg"            ? Fn::kAvg
                   : f == "min"            ? Fn::kMin
                   : f == "max"            ? Fn::kMax
                   : f == "first"          ? Fn::kFirst
                   : IsMoments(f)          ? Fn::kMoments
                   : f == "sum_distinct"   ? Fn::kSumDistinct
                   : f == "avg_distinct"   ? Fn::kAvgDistinct
                   : f == "max_by"         ? Fn::kMaxBy
                   : f == "min_by"         ? Fn::kMinBy
                   : f == "collect_list"   ? Fn::kCollectList
                   : f == "collect_set"    ? Fn::kCollectSet
                   : f == "approx_count_distinct" ? Fn::kApproxCountDistinct
                   : f == "percentile_approx"     ? Fn::kPercentileApprox
                                           : Fn::kLast);
    if (fns_.back() == Fn::kLast && f != "last" && unknown_.empty()) unknown_ = a.ToString();
  }
  size_t next = aggs.size();
  for (const auto& a : aggs) ordering_.push_back(a.ordering ? next++ : SIZE_MAX);
}

Status AccumulatorSet::status() const {
  if (unknown_.empty()) return Status::OK();
  return Status::Invalid("aggregate ", unknown_, ": no such aggregate function");
}

Status AccumulatorSet::Update(std::vector<Acc>* accs, const std::vector<std::shared_ptr<arrow::Array>>& args,
                              int64_t row) const {
  for (size_t i = 0; i < aggs_->size(); ++i) {
    const arrow::Array& a = *args[i];
    Acc& acc = (*accs)[i];
    const bool null = a.IsNull(row);
    const Fn fn = fns_[i];
    if (fn == Fn::kCount) {
      if (!null) ++acc.count;
    } else if (fn == Fn::kFirst) {
      if (!acc.has) {
        acc.has = true;
        EncodeValue(a, row, &acc.v);
      }
    } else if (fn == Fn::kLast) {
      acc.has = true;
      acc.v.clear();
      EncodeValue(a, row, &acc.v);
    } else if (fn == Fn::kMaxBy || fn == Fn::kMinBy) {
      // Rows with a NULL ordering are skipped; the value may be NULL. A tie takes the later row
      // (Spark replaces the value unless the kept ordering is strictly better).
      const arrow::Array& o = *args[ordering_[i]];
      if (o.IsNull(row)) continue;
      std::string enc;
      EncodeValue(o, row, &enc);
      if (!acc.has || (fn == Fn::kMaxBy ? enc >= acc.ord : enc <= acc.ord)) {
        acc.ord = std::move(enc);
        acc.v.clear();
        EncodeValue(a, row, &acc.v);
      }
      acc.has = true;
    } else if (null) {
      continue;
    } else if (fn == Fn::kSum || fn == Fn::kAvg) {
      ARROW_RETURN_NOT_OK(FoldNumber(fn == Fn::kAvg, (*aggs_)[i], a, row, &acc));
    } else if (fn == Fn::kCollectList) {
      std::string enc;
      EncodeValue(a, row, &enc);
      acc.list.push_back(std::move(enc));
    } else if (fn == Fn::kApproxCountDistinct) {
      HllAdd((*aggs_)[i].hll_precision, SparkXxHash64(a, row), &acc.registers);
    } else if (fn == Fn::kPercentileApprox) {
      std::string enc;
      EncodeValue(a, row, &enc);
      ++acc.counts[enc];
    } else if (fn == Fn::kMin || fn == Fn::kMax) {
      std::string enc;
      EncodeValue(a, row, &enc);
      if (!acc.has || (fn == Fn::kMin ? enc < acc.v : enc > acc.v)) acc.v = std::move(enc);
      acc.has = true;
    } else if (fn == Fn::kMoments) {
      AddMoment(&acc, DoubleAt(a, row));
    } else {  // count/sum/avg(DISTINCT), collect_set
      std::string enc;
      EncodeValue(a, row, &enc);
      acc.distinct.insert(std::move(enc));
    }
  }
  return Status::OK();
}

Status AccumulatorSet::Merge(std::vector<Acc>* earlier, const std::vector<Acc>& later) const {
  for (size_t i = 0; i < aggs_->size(); ++i) {
    Acc& a = (*earlier)[i];
    const Acc& b = later[i];
    const Fn fn = fns_[i];
    if (fn == Fn::kCount) {
      a.count += b.count;
    } else if (fn == Fn::kFirst) {
      if (!a.has && b.has) {
        a.has = true;
        a.v = b.v;
      }
    } else if (fn == Fn::kLast) {
      if (b.has) {
        a.has = true;
        a.v = b.v;
      }
    } else if (fn == Fn::kSum) {
      if (b.has) ARROW_RETURN_NOT_OK(AddLong((*aggs_)[i], b.i, &a.i));
      a.has = a.has || b.has;
      a.d += b.d;
      AddDecimal(b.dec, &a.dec);
    } else if (fn == Fn::kAvg) {
      a.count += b.count;
      a.d += b.d;
      AddDecimal(b.dec, &a.dec);
    } else if (fn == Fn::kMin || fn == Fn::kMax) {
      if (b.has && (!a.has || (fn == Fn::kMin ? b.v < a.v : b.v > a.v))) a.v = b.v;
      a.has = a.has || b.has;
    } else if (fn == Fn::kCountDistinct || fn == Fn::kSumDistinct || fn == Fn::kAvgDistinct ||
               fn == Fn::kCollectSet) {
      a.distinct.insert(b.distinct.begin(), b.distinct.end());
    } else if (fn == Fn::kMoments) {
      MergeMoments(&a, b);
    } else if (fn == Fn::kMaxBy || fn == Fn::kMinBy) {
      if (b.has && (!a.has || (fn == Fn::kMaxBy ? b.ord >= a.ord : b.ord <= a.ord))) {
        a.ord = b.ord;
        a.v = b.v;
      }
      a.has = a.has || b.has;
    } else if (fn == Fn::kCollectList) {
      a.list.insert(a.list.end(), b.list.begin(), b.list.end());
    } else if (fn == Fn::kApproxCountDistinct) {
      HllMerge(b.registers, &a.registers);
    } else if (fn == Fn::kPercentileApprox) {
      for (const auto& [v, c] : b.counts) a.counts[v] += c;
    }
  }
  return Status::OK();
}

void AccumulatorSet::Encode(const std::vector<Acc>& accs, std::string* out) const {
  for (size_t i = 0; i < aggs_->size(); ++i) {
    const Acc& a = accs[i];
    const std::string& fn = (*aggs_)[i].fn;
    if (fn == "count") {
      PutFixed64(static_cast<uint64_t>(a.count), out);
    } else if (fn == "avg") {
      // A decimal argument's sum is exact (16 bytes); a checkpoint written when avg over
      // decimals was DOUBLE is refused by the state metadata check (its value schema differs).
      PutFixed64(static_cast<uint64_t>(a.count), out);
      if (IsDecimal(*(*aggs_)[i].arg_type)) {
        PutInt128(a.dec, out);
      } else {
        PutDouble(a.d, out);
      }
    } else if (fn == "sum") {
      out->push_back(a.has ? 1 : 0);
      const auto& t = *(*aggs_)[i].arg_type;
      if (IsDecimal(t)) {
        PutInt128(a.dec, out);
      } else if (IsFloating(t)) {
        PutDouble(a.d, out);
      } else {
        PutFixed64(static_cast<uint64_t>(a.i), out);
      }
    } else if (IsMoments(fn)) {
      PutFixed64(static_cast<uint64_t>(a.count), out);
      PutDouble(a.d, out);
      PutDouble(a.m2, out);
    } else if (fn == "count_distinct" || fn == "sum_distinct" || fn == "avg_distinct" || fn == "collect_set") {
      PutValues(a.distinct, out);
    } else if (fn == "max_by" || fn == "min_by") {
      out->push_back(a.has ? 1 : 0);
      PutBytes(a.ord, out);
      PutBytes(a.v, out);
    } else if (fn == "collect_list") {
      PutFixed64(a.list.size(), out);
      for (const auto& v : a.list) PutBytes(v, out);
    } else if (fn == "approx_count_distinct") {
      PutBytes(a.registers, out);
    } else if (fn == "percentile_approx") {
      PutFixed64(a.counts.size(), out);
      for (const auto& [v, c] : a.counts) {
        PutBytes(v, out);
        PutFixed64(static_cast<uint64_t>(c), out);
      }
    } else {  // min, max, first, last
      out->push_back(a.has ? 1 : 0);
      PutBytes(a.v, out);
    }
  }
}

Status AccumulatorSet::Decode(std::string_view b, size_t* pos, std::vector<Acc>* accs) const {
  accs->resize(aggs_->size());
  for (size_t i = 0; i < aggs_->size(); ++i) {
    Acc& a = (*accs)[i];
    if (fns_[i] == Fn::kCount) {  // the common case, per emitted key: a count's Acc is its count alone
      ARROW_ASSIGN_OR_RAISE(uint64_t c, GetFixed64(b, pos));
      a.Clear();
      a.count = static_cast<int64_t>(c);
      continue;
    }
    a.Clear();
    const std::string& fn = (*aggs_)[i].fn;
    if (fn == "avg") {
      ARROW_ASSIGN_OR_RAISE(uint64_t c, GetFixed64(b, pos));
      a.count = static_cast<int64_t>(c);
      if (IsDecimal(*(*aggs_)[i].arg_type)) {
        ARROW_ASSIGN_OR_RAISE(a.dec, GetInt128(b, pos));
      } else {
        ARROW_ASSIGN_OR_RAISE(a.d, GetDouble(b, pos));
      }
    } else if (fn == "sum") {
      ARROW_ASSIGN_OR_RAISE(a.has, GetFlag(b, pos));
      const auto& t = *(*aggs_)[i].arg_type;
      if (IsDecimal(t)) {
        ARROW_ASSIGN_OR_RAISE(a.dec, GetInt128(b, pos));
      } else if (IsFloating(t)) {
        ARROW_ASSIGN_OR_RAISE(a.d, GetDouble(b, pos));
      } else {
        ARROW_ASSIGN_OR_RAISE(uint64_t v, GetFixed64(b, pos));
        a.i = static_cast<int64_t>(v);
      }
    } else if (IsMoments(fn)) {
      ARROW_ASSIGN_OR_RAISE(uint64_t c, GetFixed64(b, pos));
      a.count = static_cast<int64_t>(c);
      ARROW_ASSIGN_OR_RAISE(a.d, GetDouble(b, pos));
      ARROW_ASSIGN_OR_RAISE(a.m2, GetDouble(b, pos));
    } else if (fn == "count_distinct" || fn == "sum_distinct" || fn == "avg_distinct" || fn == "collect_set") {
      ARROW_RETURN_NOT_OK(GetValues(b, pos, &a.distinct));
    } else if (fn == "max_by" || fn == "min_by") {
      ARROW_ASSIGN_OR_RAISE(a.has, GetFlag(b, pos));
      ARROW_ASSIGN_OR_RAISE(auto o, GetBytes(b, pos));
      a.ord.assign(o.data(), o.size());
      ARROW_ASSIGN_OR_RAISE(auto v, GetBytes(b, pos));
      a.v.assign(v.data(), v.size());
    } else if (fn == "collect_list") {
      ARROW_ASSIGN_OR_RAISE(uint64_t n, GetFixed64(b, pos));
      for (uint64_t k = 0; k < n; ++k) {
        ARROW_ASSIGN_OR_RAISE(auto v, GetBytes(b, pos));
        a.list.emplace_back(v);
      }
    } else if (fn == "approx_count_distinct") {
      ARROW_ASSIGN_OR_RAISE(auto r, GetBytes(b, pos));
      const size_t m = size_t{1} << (*aggs_)[i].hll_precision;
      if (!r.empty() && r.size() != m) {
        return Status::IOError("state of ", (*aggs_)[i].ToString(), " holds ", r.size(), " HyperLogLog registers, not ",
                               m, "; the checkpoint was written with another relative standard deviation");
      }
      a.registers.assign(r.data(), r.size());
    } else if (fn == "percentile_approx") {
      ARROW_ASSIGN_OR_RAISE(uint64_t n, GetFixed64(b, pos));
      for (uint64_t k = 0; k < n; ++k) {
        ARROW_ASSIGN_OR_RAISE(auto v, GetBytes(b, pos));
        ARROW_ASSIGN_OR_RAISE(uint64_t c, GetFixed64(b, pos));
        a.counts.emplace_hint(a.counts.end(), std::string(v), static_cast<int64_t>(c));
      }
    } else {
      ARROW_ASSIGN_OR_RAISE(a.has, GetFlag(b, pos));
      ARROW_ASSIGN_OR_RAISE(auto v, GetBytes(b, pos));
      a.v.assign(v.data(), v.size());
    }
  }
  return Status::OK();
}

Status AccumulatorSet::Finish(const std::vector<Acc>& accs,
                              const std::vector<std::unique_ptr<arrow::ArrayBuilder>>& builders,
                              size_t first_builder) const {
  for (size_t i = 0; i < aggs_->size(); ++i) ARROW_RETURN_NOT_OK(FinishOne(i, accs[i], builders[first_builder + i].get()));
  return Status::OK();
}

Status AccumulatorSet::FinishOne(size_t i, const Acc& a, arrow::ArrayBuilder* b) const {
  const plan::AggCall& call = (*aggs_)[i];
  switch (fns_[i]) {
    case Fn::kCount: return static_cast<arrow::Int64Builder*>(b)->Append(a.count);
    case Fn::kCountDistinct:
      return static_cast<arrow::Int64Builder*>(b)->Append(static_cast<int64_t>(a.distinct.size()));
    case Fn::kMoments: {
      const std::optional<double> v = FinishMoments(call.fn, a);
      return v ? static_cast<arrow::DoubleBuilder*>(b)->Append(*v) : b->AppendNull();
    }
    case Fn::kSum:
    case Fn::kAvg: return FinishNumber(fns_[i] == Fn::kAvg, call, a, b);
    case Fn::kSumDistinct:
    case Fn::kAvgDistinct: return FinishDistinctNumber(fns_[i] == Fn::kAvgDistinct, call, a.distinct, b);
    case Fn::kCollectList: return AppendList(call, a.list, b);
    case Fn::kCollectSet: return AppendList(call, a.distinct, b);
    case Fn::kApproxCountDistinct:
      return static_cast<arrow::Int64Builder*>(b)->Append(HllEstimate(call.hll_precision, a.registers));
    case Fn::kPercentileApprox: return AppendPercentile(call, a.counts, b);
    case Fn::kMin:
    case Fn::kMax:
    case Fn::kFirst:
    case Fn::kLast:
    case Fn::kMaxBy:
    case Fn::kMinBy: break;
  }
  if (!a.has) return b->AppendNull();
  size_t pos = 0;
  return DecodeValue(a.v, &pos, *call.out_type, b);
}

}  // namespace sluice::exec
