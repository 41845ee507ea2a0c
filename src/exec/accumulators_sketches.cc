#include "exec/accumulators_sketches.h"

#include <arrow/api.h>
#include <arrow/util/decimal.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#define XXH_INLINE_ALL
#include <arrow/vendored/xxhash.h>

#include "exec/row_codec.h"

namespace sluice::exec {
namespace {

constexpr uint64_t kSeed = 42;

// The HyperLogLog++ paper's (and Spark's) empirical linear-counting thresholds, for p = 4..18.
constexpr double kThresholds[] = {10, 20, 40, 80, 220, 400, 900, 1800, 3100, 6500, 11500, 20000, 50000, 120000, 350000};

uint64_t HashInt(int32_t v) {
  uint8_t bytes[4];
  const uint32_t u = static_cast<uint32_t>(v);
  for (int i = 0; i < 4; ++i) bytes[i] = static_cast<uint8_t>(u >> (8 * i));
  return XXH64(bytes, 4, kSeed);
}

uint64_t HashLong(int64_t v) {
  uint8_t bytes[8];
  const uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(u >> (8 * i));
  return XXH64(bytes, 8, kSeed);
}

// Java's BigInteger.toByteArray of a 128-bit value: big-endian two's complement, no redundant
// leading sign bytes.
uint64_t HashWideDecimal(const arrow::Decimal128& d) {
  uint8_t be[16];
  const uint64_t hi = static_cast<uint64_t>(d.high_bits()), lo = d.low_bits();
  for (int i = 0; i < 8; ++i) {
    be[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    be[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  int start = 0;
  while (start < 15 && ((be[start] == 0x00 && !(be[start + 1] & 0x80)) || (be[start] == 0xFF && (be[start + 1] & 0x80)))) {
    ++start;
  }
  return XXH64(be + start, static_cast<size_t>(16 - start), kSeed);
}

}  // namespace

uint64_t SparkXxHash64(const arrow::Array& a, int64_t row) {
  switch (a.type_id()) {
    case arrow::Type::BOOL: return HashInt(static_cast<const arrow::BooleanArray&>(a).Value(row) ? 1 : 0);
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::DATE32: return HashInt(static_cast<int32_t>(IntegerAt(a, row)));
    case arrow::Type::FLOAT: {
      float f = static_cast<const arrow::FloatArray&>(a).Value(row);
      if (f == 0.0f) f = 0.0f;  // -0.0 hashes as 0.0
      int32_t bits = 0x7fc00000;  // Java's floatToIntBits folds every NaN into this one
      if (!std::isnan(f)) std::memcpy(&bits, &f, 4);
      return HashInt(bits);
    }
    case arrow::Type::DOUBLE: {
      double d = static_cast<const arrow::DoubleArray&>(a).Value(row);
      if (d == 0.0) d = 0.0;
      int64_t bits = 0x7ff8000000000000LL;
      if (!std::isnan(d)) std::memcpy(&bits, &d, 8);
      return HashLong(bits);
    }
    case arrow::Type::DECIMAL128: {
      const arrow::Decimal128 d(static_cast<const arrow::Decimal128Array&>(a).GetValue(row));
      if (static_cast<const arrow::Decimal128Type&>(*a.type()).precision() <= 18) {
        return HashLong(static_cast<int64_t>(d.low_bits()));
      }
      return HashWideDecimal(d);
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY: {
      const std::string_view v = static_cast<const arrow::BinaryArray&>(a).GetView(row);
      return XXH64(v.data(), v.size(), kSeed);
    }
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY: {
      const std::string_view v = static_cast<const arrow::LargeBinaryArray&>(a).GetView(row);
      return XXH64(v.data(), v.size(), kSeed);
    }
    default: {  // BIGINT, TIMESTAMP (micros) and any other integer-backed type
      if (a.type_id() == arrow::Type::INT64 || a.type_id() == arrow::Type::TIMESTAMP) return HashLong(IntegerAt(a, row));
      std::string enc;  // types Spark has no counterpart for: their order-preserving encoding
      EncodeValue(a, row, &enc);
      return XXH64(enc.data(), enc.size(), kSeed);
    }
  }
}

void HllAdd(int p, uint64_t hash, std::string* registers) {
  if (registers->empty()) registers->assign(size_t{1} << p, '\0');
  const size_t idx = static_cast<size_t>(hash >> (64 - p));
  const uint64_t w = (hash << p) | (uint64_t{1} << (p - 1));
  const char pw = static_cast<char>(std::countl_zero(w) + 1);
  char& r = (*registers)[idx];
  r = std::max(r, pw);
}

void HllMerge(const std::string& later, std::string* registers) {
  if (later.empty()) return;
  if (registers->empty()) {
    *registers = later;
    return;
  }
  for (size_t i = 0; i < registers->size() && i < later.size(); ++i) (*registers)[i] = std::max((*registers)[i], later[i]);
}

int64_t HllEstimate(int p, const std::string& registers) {
  if (registers.empty()) return 0;
  const double m = static_cast<double>(size_t{1} << p);
  double alpha = 0.7213 / (1.0 + 1.079 / m);
  if (p == 4) alpha = 0.673;
  if (p == 5) alpha = 0.697;
  if (p == 6) alpha = 0.709;
  double z_inverse = 0;
  int64_t zeros = 0;
  for (const char r : registers) {
    z_inverse += std::ldexp(1.0, -static_cast<int>(r));
    zeros += r == 0;
  }
  const double e = alpha * m * m / z_inverse;
  double estimate = e;
  if (zeros > 0) {
    const double h = m * std::log(m / static_cast<double>(zeros));
    // Spark takes linear counting up to its threshold; beyond, where Spark subtracts its
    // empirical bias from e, linear counting stays the closer estimate while e <= 2.5 m.
    if (h <= kThresholds[p - 4] || e <= 2.5 * m) estimate = h;
  }
  return std::llround(estimate);
}

namespace {

// The value Spark's QuantileSummaries.query gives for `percentage` over uncompressed samples
// (`n` values in all): the ceil(p * n)-th smallest; the smallest within the relative error of
// p = 0, the largest within it of p = 1.
const std::string& PercentileValue(const std::map<std::string, int64_t>& counts, int64_t n, double percentage,
                                   double relative_error) {
  if (percentage <= relative_error) return counts.begin()->first;
  if (percentage < 1.0 - relative_error) {
    const auto rank = static_cast<int64_t>(std::ceil(percentage * static_cast<double>(n)));
    int64_t seen = 0;
    for (const auto& [v, c] : counts) {
      seen += c;
      if (seen >= rank) return v;
    }
  }
  return counts.rbegin()->first;
}

}  // namespace

Status AppendPercentile(const plan::AggCall& call, const std::map<std::string, int64_t>& counts,
                        arrow::ArrayBuilder* builder) {
  // Spark answers NULL without a value, and also for an empty array of percentages.
  if (counts.empty() || call.percentages.empty()) return builder->AppendNull();
  int64_t n = 0;
  for (const auto& [v, c] : counts) n += c;
  const double relative_error = 1.0 / static_cast<double>(call.accuracy);
  if (!call.percentage_array) {
    size_t pos = 0;
    return DecodeValue(PercentileValue(counts, n, call.percentages[0], relative_error), &pos, *call.out_type, builder);
  }
  auto* list = static_cast<arrow::ListBuilder*>(builder);
  ARROW_RETURN_NOT_OK(list->Append());
  for (const double p : call.percentages) {
    size_t pos = 0;
    ARROW_RETURN_NOT_OK(DecodeValue(PercentileValue(counts, n, p, relative_error), &pos, *call.arg_type,
                                    list->value_builder()));
  }
  return Status::OK();
}

}  // namespace sluice::exec
