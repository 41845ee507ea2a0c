#include "util/value_text.h"

#include <arrow/array.h>
#include <arrow/type.h>
#include <arrow/util/checked_cast.h>

#include <charconv>
#include <cmath>
#include <cstdio>

namespace sluice::util {
namespace {

using arrow::internal::checked_cast;

// Lays out shortest round-trip digits the way Java's Double/Float.toString does: plain
// decimal for 1e-3 <= |v| < 1e7, else "d.dddE<exp>", always a digit after the point.
template <typename T>
std::string FormatFloatingJava(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string sci(buf, res.ptr);  // "-1.2345e+06"
  std::string sign;
  if (sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  size_t e_pos = sci.find('e');
  std::string digits = sci.substr(0, e_pos);
  if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
  int exp = std::stoi(sci.substr(e_pos + 1));
  T mag = std::fabs(v);
  std::string out = sign;
  if (mag >= static_cast<T>(1e-3) && mag < static_cast<T>(1e7)) {
    if (exp >= 0) {
      size_t int_len = static_cast<size_t>(exp) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    }
  } else {
    out += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0") + "E" + std::to_string(exp);
  }
  return out;
}

// Days since 1970-01-01 -> proleptic Gregorian (year, month, day).
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2 ? 1 : 0);
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

std::string Hex(std::string_view bytes) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "[";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i) out += ' ';
    auto c = static_cast<unsigned char>(bytes[i]);
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out + "]";
}

Result<std::string> FormatShowList(const arrow::Array& values, int64_t offset, int64_t length) {
  std::string out = "[";
  for (int64_t k = 0; k < length; ++k) {
    if (k) out += ", ";
    ARROW_ASSIGN_OR_RAISE(auto s, FormatShowCell(values, offset + k));
    out += s;
  }
  return out + "]";
}

}  // namespace

std::string FormatDoubleJava(double v) { return FormatFloatingJava(v); }
std::string FormatFloatJava(float v) { return FormatFloatingJava(v); }

std::string FormatDate(int32_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

std::string FormatTimestamp(int64_t value, arrow::TimeUnit::type unit, bool has_zone, TimestampStyle style) {
  int64_t per_sec = unit == arrow::TimeUnit::SECOND ? 1
                    : unit == arrow::TimeUnit::MILLI ? 1000
                    : unit == arrow::TimeUnit::MICRO ? 1000000
                                                     : 1000000000;
  int64_t secs = FloorDiv(value, per_sec);
  int64_t nanos = (value - secs * per_sec) * (1000000000 / per_sec);
  int64_t days = FloorDiv(secs, 86400);
  int64_t sod = secs - days * 86400;
  std::string out = FormatDate(static_cast<int32_t>(days));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%c%02d:%02d:%02d", style == TimestampStyle::kIso ? 'T' : ' ',
                static_cast<int>(sod / 3600), static_cast<int>(sod / 60 % 60), static_cast<int>(sod % 60));
  out += buf;
  std::snprintf(buf, sizeof(buf), ".%09lld", static_cast<long long>(nanos));
  std::string frac = buf;  // ".nnnnnnnnn"
  if (style == TimestampStyle::kIso) {
    if (nanos % 1000000 == 0) frac.resize(4);
    else if (nanos % 1000 == 0) frac.resize(7);
    out += frac;
    if (has_zone) out += 'Z';
  } else if (nanos != 0) {
    while (frac.back() == '0') frac.pop_back();
    out += frac;
  }
  return out;
}

void AppendJsonString(const std::string_view& s, std::string* out) {
  out->push_back('"');
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          *out += buf;
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

Result<std::string> FormatShowCell(const arrow::Array& a, int64_t i) {
  if (a.IsNull(i)) return std::string("NULL");
  switch (a.type_id()) {
    case arrow::Type::BOOL: return std::string(checked_cast<const arrow::BooleanArray&>(a).Value(i) ? "true" : "false");
    case arrow::Type::INT8: return std::to_string(checked_cast<const arrow::Int8Array&>(a).Value(i));
    case arrow::Type::INT16: return std::to_string(checked_cast<const arrow::Int16Array&>(a).Value(i));
    case arrow::Type::INT32: return std::to_string(checked_cast<const arrow::Int32Array&>(a).Value(i));
    case arrow::Type::INT64: return std::to_string(checked_cast<const arrow::Int64Array&>(a).Value(i));
    case arrow::Type::UINT8: return std::to_string(checked_cast<const arrow::UInt8Array&>(a).Value(i));
    case arrow::Type::UINT16: return std::to_string(checked_cast<const arrow::UInt16Array&>(a).Value(i));
    case arrow::Type::UINT32: return std::to_string(checked_cast<const arrow::UInt32Array&>(a).Value(i));
    case arrow::Type::UINT64: return std::to_string(checked_cast<const arrow::UInt64Array&>(a).Value(i));
    case arrow::Type::FLOAT: return FormatFloatJava(checked_cast<const arrow::FloatArray&>(a).Value(i));
    case arrow::Type::DOUBLE: return FormatDoubleJava(checked_cast<const arrow::DoubleArray&>(a).Value(i));
    case arrow::Type::STRING: return std::string(checked_cast<const arrow::StringArray&>(a).GetView(i));
    case arrow::Type::LARGE_STRING: return std::string(checked_cast<const arrow::LargeStringArray&>(a).GetView(i));
    case arrow::Type::STRING_VIEW: return std::string(checked_cast<const arrow::StringViewArray&>(a).GetView(i));
    case arrow::Type::BINARY: return Hex(checked_cast<const arrow::BinaryArray&>(a).GetView(i));
    case arrow::Type::LARGE_BINARY: return Hex(checked_cast<const arrow::LargeBinaryArray&>(a).GetView(i));
    case arrow::Type::DATE32: return FormatDate(checked_cast<const arrow::Date32Array&>(a).Value(i));
    case arrow::Type::DATE64:
      return FormatDate(static_cast<int32_t>(FloorDiv(checked_cast<const arrow::Date64Array&>(a).Value(i), 86400000)));
    case arrow::Type::TIMESTAMP: {
      const auto& type = checked_cast<const arrow::TimestampType&>(*a.type());
      return FormatTimestamp(checked_cast<const arrow::TimestampArray&>(a).Value(i), type.unit(), !type.timezone().empty(),
                             TimestampStyle::kShow);
    }
    case arrow::Type::DECIMAL128: return checked_cast<const arrow::Decimal128Array&>(a).FormatValue(i);
    case arrow::Type::DECIMAL256: return checked_cast<const arrow::Decimal256Array&>(a).FormatValue(i);
    case arrow::Type::LIST: {
      const auto& l = checked_cast<const arrow::ListArray&>(a);
      return FormatShowList(*l.values(), l.value_offset(i), l.value_length(i));
    }
    case arrow::Type::LARGE_LIST: {
      const auto& l = checked_cast<const arrow::LargeListArray&>(a);
      return FormatShowList(*l.values(), l.value_offset(i), l.value_length(i));
    }
    case arrow::Type::FIXED_SIZE_LIST: {
      const auto& l = checked_cast<const arrow::FixedSizeListArray&>(a);
      return FormatShowList(*l.values(), l.value_offset(i), l.value_length(i));
    }
    case arrow::Type::MAP: {
      const auto& m = checked_cast<const arrow::MapArray&>(a);
      std::string out = "{";
      for (int64_t k = 0; k < m.value_length(i); ++k) {
        if (k) out += ", ";
        ARROW_ASSIGN_OR_RAISE(auto key, FormatShowCell(*m.keys(), m.value_offset(i) + k));
        ARROW_ASSIGN_OR_RAISE(auto item, FormatShowCell(*m.items(), m.value_offset(i) + k));
        out += key + " -> " + item;
      }
      return out + "}";
    }
    case arrow::Type::STRUCT: {
      const auto& s = checked_cast<const arrow::StructArray&>(a);
      std::string out = "{";
      for (int f = 0; f < s.num_fields(); ++f) {
        if (f) out += ", ";
        // field(f) applies the struct's offset to the child.
        ARROW_ASSIGN_OR_RAISE(auto v, FormatShowCell(*s.field(f), i));
        out += v;
      }
      return out + "}";
    }
    case arrow::Type::DICTIONARY: {
      const auto& d = checked_cast<const arrow::DictionaryArray&>(a);
      return FormatShowCell(*d.dictionary(), d.GetValueIndex(i));
    }
    default:
      return Status::NotImplemented("cannot print values of type ", a.type()->ToString());
  }
}

}  // namespace sluice::util
