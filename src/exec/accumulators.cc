#include "exec/accumulators.h"

#include <arrow/api.h>
#include <arrow/util/decimal.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

#include "exec/accumulators_moments.h"
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
                                           : Fn::kLast);
  }
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
    } else if (null) {
      continue;
    } else if (fn == Fn::kSum) {
      acc.has = true;
      if (a.type_id() == arrow::Type::DECIMAL128) {
        AddDecimal(DecimalAt(a, row), &acc.dec);
      } else if (IsFloating(*a.type())) {
        acc.d += DoubleAt(a, row);
      } else {
        ARROW_RETURN_NOT_OK(AddLong((*aggs_)[i], IntAt(a, row), &acc.i));
      }
    } else if (fn == Fn::kAvg) {
      ++acc.count;
      if (a.type_id() == arrow::Type::DECIMAL128) {
        AddDecimal(DecimalAt(a, row), &acc.dec);
      } else {
        acc.d += DoubleAt(a, row);
      }
    } else if (fn == Fn::kMin || fn == Fn::kMax) {
      std::string enc;
      EncodeValue(a, row, &enc);
      if (!acc.has || (fn == Fn::kMin ? enc < acc.v : enc > acc.v)) acc.v = std::move(enc);
      acc.has = true;
    } else if (fn == Fn::kMoments) {
      AddMoment(&acc, DoubleAt(a, row));
    } else if (fn == Fn::kCountDistinct) {
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
    } else if (fn == Fn::kCountDistinct) {
      a.distinct.insert(b.distinct.begin(), b.distinct.end());
    } else if (fn == Fn::kMoments) {
      MergeMoments(&a, b);
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
    } else if (fn == "count_distinct") {
      PutFixed64(a.distinct.size(), out);
      for (const auto& v : a.distinct) PutBytes(v, out);
    } else {  // min, max, first, last
      out->push_back(a.has ? 1 : 0);
      PutBytes(a.v, out);
    }
  }
}

Status AccumulatorSet::Decode(std::string_view b, size_t* pos, std::vector<Acc>* accs) const {
  accs->assign(aggs_->size(), Acc{});
  for (size_t i = 0; i < aggs_->size(); ++i) {
    Acc& a = (*accs)[i];
    const std::string& fn = (*aggs_)[i].fn;
    if (fn == "count") {
      ARROW_ASSIGN_OR_RAISE(uint64_t c, GetFixed64(b, pos));
      a.count = static_cast<int64_t>(c);
    } else if (fn == "avg") {
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
    } else if (fn == "count_distinct") {
      ARROW_ASSIGN_OR_RAISE(uint64_t n, GetFixed64(b, pos));
      for (uint64_t k = 0; k < n; ++k) {
        ARROW_ASSIGN_OR_RAISE(auto v, GetBytes(b, pos));
        a.distinct.emplace_hint(a.distinct.end(), v);
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
  for (size_t i = 0; i < aggs_->size(); ++i) {
    const Acc& a = accs[i];
    const plan::AggCall& call = (*aggs_)[i];
    arrow::ArrayBuilder* b = builders[first_builder + i].get();
    const std::string& fn = call.fn;
    if (fn == "count") {
      ARROW_RETURN_NOT_OK(static_cast<arrow::Int64Builder*>(b)->Append(a.count));
    } else if (fn == "count_distinct") {
      ARROW_RETURN_NOT_OK(static_cast<arrow::Int64Builder*>(b)->Append(static_cast<int64_t>(a.distinct.size())));
    } else if (IsMoments(fn)) {
      const std::optional<double> v = FinishMoments(fn, a);
      ARROW_RETURN_NOT_OK(v ? static_cast<arrow::DoubleBuilder*>(b)->Append(*v) : b->AppendNull());
    } else if (fn == "avg") {
      if (a.count == 0) {
        ARROW_RETURN_NOT_OK(b->AppendNull());
      } else if (IsDecimal(*call.arg_type)) {
        auto avg = DecimalAverage(a.dec, a.count, static_cast<const arrow::Decimal128Type&>(*call.arg_type),
                                  static_cast<const arrow::Decimal128Type&>(*call.out_type));
        if (!avg && call.mode == plan::EvalMode::kAnsi) return DecimalOutOfRange(call);
        ARROW_RETURN_NOT_OK(avg ? static_cast<arrow::Decimal128Builder*>(b)->Append(*avg) : b->AppendNull());
      } else {
        ARROW_RETURN_NOT_OK(static_cast<arrow::DoubleBuilder*>(b)->Append(a.d / static_cast<double>(a.count)));
      }
    } else if (fn == "sum") {
      if (!a.has) {
        ARROW_RETURN_NOT_OK(b->AppendNull());
      } else if (IsDecimal(*call.out_type)) {
        const arrow::Decimal128 d = ToDecimal128(a.dec);
        if (d.FitsInPrecision(static_cast<const arrow::Decimal128Type&>(*call.out_type).precision())) {
          ARROW_RETURN_NOT_OK(static_cast<arrow::Decimal128Builder*>(b)->Append(d));
        } else if (call.mode == plan::EvalMode::kAnsi) {
          return DecimalOutOfRange(call);
        } else {
          ARROW_RETURN_NOT_OK(b->AppendNull());
        }
      } else if (call.out_type->id() == arrow::Type::DOUBLE) {
        ARROW_RETURN_NOT_OK(static_cast<arrow::DoubleBuilder*>(b)->Append(a.d));
      } else {
        ARROW_RETURN_NOT_OK(static_cast<arrow::Int64Builder*>(b)->Append(a.i));
      }
    } else {
      if (!a.has) {
        ARROW_RETURN_NOT_OK(b->AppendNull());
      } else {
        size_t pos = 0;
        ARROW_RETURN_NOT_OK(DecodeValue(a.v, &pos, *call.out_type, b));
      }
    }
  }
  return Status::OK();
}

}  // namespace sluice::exec
