// Partition transforms on one cell and the directory names of their values (see
// partition_transform.h).
#include "iceberg/partition_transform.h"

#include <arrow/api.h>

#include <cctype>
#include <climits>
#include <cstdio>
#include <cstring>

#include "iceberg/data_file.h"
#include "util/calendar.h"
#include "util/value_text.h"

namespace sluice::iceberg {
namespace {

using json = nlohmann::json;

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;
constexpr int64_t kMicrosPerHour = 3600LL * 1000000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

std::string DateText(int64_t days) {
  const auto d = util::CivilFromDays(days);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02d", static_cast<long long>(d.year), d.month, d.day);
  return buf;
}

// java.time.LocalDateTime.toString: seconds and the fraction only when not zero, the fraction
// in groups of three digits.
std::string LocalDateTimeText(int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  int64_t rest = micros - days * kMicrosPerDay;
  const int64_t h = rest / kMicrosPerHour, m = rest / 60000000 % 60, s = rest / 1000000 % 60, us = rest % 1000000;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%sT%02lld:%02lld", DateText(days).c_str(), static_cast<long long>(h),
                static_cast<long long>(m));
  std::string out = buf;
  if (s != 0 || us != 0) {
    std::snprintf(buf, sizeof(buf), ":%02lld", static_cast<long long>(s));
    out += buf;
  }
  if (us != 0) {
    std::snprintf(buf, sizeof(buf), us % 1000 == 0 ? ".%03lld" : ".%06lld",
                  static_cast<long long>(us % 1000 == 0 ? us / 1000 : us));
    out += buf;
  }
  return out;
}

// The first `width` code points of UTF-8 `s`.
std::string TruncateUtf8(const std::string& s, int64_t width) {
  size_t i = 0;
  for (int64_t n = 0; i < s.size() && n < width; ++n) {
    ++i;
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  }
  return s.substr(0, i);
}

// The integer a date/time/int/long cell holds (days, micros or the value).
int64_t IntegerAt(const arrow::Array& a, int64_t row) {
  switch (a.type_id()) {
    case arrow::Type::INT32: return static_cast<const arrow::Int32Array&>(a).Value(row);
    case arrow::Type::DATE32: return static_cast<const arrow::Date32Array&>(a).Value(row);
    case arrow::Type::INT64: return static_cast<const arrow::Int64Array&>(a).Value(row);
    case arrow::Type::TIMESTAMP: return static_cast<const arrow::TimestampArray&>(a).Value(row);
    default: return 0;
  }
}

}  // namespace

std::string UrlEncodePathPart(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '.' || c == '-' || c == '*' || c == '_') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Result<std::string> PartitionValueText(const PartitionField& f, const std::string& source_type, const json& v) {
  if (v.is_null()) return std::string("null");
  char buf[64];
  switch (f.transform) {
    case Transform::kYear:
      std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(1970 + v.get<int64_t>()));
      return std::string(buf);
    case Transform::kMonth: {
      const int64_t m = v.get<int64_t>();
      std::snprintf(buf, sizeof(buf), "%04lld-%02lld", static_cast<long long>(1970 + FloorDiv(m, 12)),
                    static_cast<long long>(m - FloorDiv(m, 12) * 12 + 1));
      return std::string(buf);
    }
    case Transform::kDay: return DateText(v.get<int64_t>());
    case Transform::kHour: {
      const int64_t hours = v.get<int64_t>();
      const int64_t days = FloorDiv(hours, 24);
      std::snprintf(buf, sizeof(buf), "%s-%02lld", DateText(days).c_str(), static_cast<long long>(hours - days * 24));
      return std::string(buf);
    }
    case Transform::kBucket: return std::to_string(v.get<int64_t>());
    case Transform::kIdentity:
    case Transform::kTruncate: break;
  }
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return std::string(v.get<bool>() ? "true" : "false");
  if (source_type == "date") return DateText(v.get<int64_t>());
  if (source_type == "timestamp") return LocalDateTimeText(v.get<int64_t>());
  if (source_type == "timestamptz") return LocalDateTimeText(v.get<int64_t>()) + "Z";
  if (v.is_number_float()) {
    auto scalar = arrow::MakeScalar(v.get<double>());
    ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*scalar, 1));
    return util::FormatShowCell(*array, 0);
  }
  return v.dump();
}

// The partition value of one cell (source column of Iceberg type `type`, conformed Arrow type).
Result<json> TransformValue(const PartitionField& f, const std::string& type, const arrow::Array& a, int64_t row) {
  if (a.IsNull(row)) return json(nullptr);
  const bool is_string = a.type_id() == arrow::Type::STRING;
  switch (f.transform) {
    case Transform::kIdentity: {
      if (is_string) return json(std::string(static_cast<const arrow::StringArray&>(a).GetView(row)));
      if (a.type_id() == arrow::Type::BOOL) return json(static_cast<const arrow::BooleanArray&>(a).Value(row));
      if (a.type_id() == arrow::Type::FLOAT) return json(static_cast<const arrow::FloatArray&>(a).Value(row));
      if (a.type_id() == arrow::Type::DOUBLE) return json(static_cast<const arrow::DoubleArray&>(a).Value(row));
      return json(IntegerAt(a, row));
    }
    case Transform::kYear:
    case Transform::kMonth:
    case Transform::kDay: {
      const int64_t days = type == "date" ? IntegerAt(a, row) : FloorDiv(IntegerAt(a, row), kMicrosPerDay);
      if (f.transform == Transform::kDay) return json(days);
      const auto d = util::CivilFromDays(days);
      if (f.transform == Transform::kYear) return json(d.year - 1970);
      return json((d.year - 1970) * 12 + d.month - 1);
    }
    case Transform::kHour: return json(FloorDiv(IntegerAt(a, row), kMicrosPerHour));
    case Transform::kBucket: {
      std::string bytes;
      if (is_string) {
        bytes = std::string(static_cast<const arrow::StringArray&>(a).GetView(row));
      } else if (a.type_id() == arrow::Type::DECIMAL128) {
        ARROW_ASSIGN_OR_RAISE(auto scalar, a.GetScalar(row));
        ARROW_ASSIGN_OR_RAISE(bytes, SingleValue(*scalar));
      } else {
        bytes = LittleEndianBytes<int64_t>(IntegerAt(a, row));  // ints and dates hash as longs
      }
      return json(static_cast<int64_t>((Murmur3Hash32(bytes) & INT32_MAX) % f.parameter));
    }
    case Transform::kTruncate: {
      if (is_string) {
        return json(TruncateUtf8(std::string(static_cast<const arrow::StringArray&>(a).GetView(row)), f.parameter));
      }
      const int64_t v = IntegerAt(a, row);
      return json(v - (((v % f.parameter) + f.parameter) % f.parameter));
    }
  }
  return json(nullptr);
}


int32_t Murmur3Hash32(const std::string& bytes) {
  // MurmurHash3_x86_32 (Austin Appleby, public domain), seed 0, as Guava's murmur3_32_fixed.
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  const size_t len = bytes.size();
  const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  uint32_t h1 = 0;
  auto rotl = [](uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  const size_t blocks = len / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k1;
    std::memcpy(&k1, data + i * 4, 4);
    k1 *= c1;
    k1 = rotl(k1, 15);
    k1 *= c2;
    h1 ^= k1;
    h1 = rotl(h1, 13);
    h1 = h1 * 5 + 0xe6546b64;
  }
  const uint8_t* tail = data + blocks * 4;
  uint32_t k1 = 0;
  switch (len & 3) {
    case 3: k1 ^= static_cast<uint32_t>(tail[2]) << 16; [[fallthrough]];
    case 2: k1 ^= static_cast<uint32_t>(tail[1]) << 8; [[fallthrough]];
    case 1:
      k1 ^= tail[0];
      k1 *= c1;
      k1 = rotl(k1, 15);
      k1 *= c2;
      h1 ^= k1;
  }
  h1 ^= static_cast<uint32_t>(len);
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6b;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35;
  h1 ^= h1 >> 16;
  return static_cast<int32_t>(h1);
}

}  // namespace sluice::iceberg
