#include "exec/row_codec.h"

#include <arrow/api.h>

#include <cstring>

namespace sluice::exec {
namespace {

constexpr uint64_t kSign = 1ULL << 63;

void PutBigEndian(uint64_t v, std::string* out) {
  const uint64_t be = __builtin_bswap64(v);
  char buf[8];
  std::memcpy(buf, &be, sizeof buf);
  out->append(buf, sizeof buf);
}

Result<uint64_t> GetBigEndian(std::string_view b, size_t* pos) {
  if (b.size() < 8 || *pos > b.size() - 8) return Status::IOError("state entry truncated (reading 8 bytes at ", *pos, ")");
  uint64_t be;
  std::memcpy(&be, b.data() + *pos, sizeof be);
  *pos += 8;
  return __builtin_bswap64(be);
}

uint64_t OrderedDouble(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  return (bits & kSign) ? ~bits : bits ^ kSign;
}

double UnorderedDouble(uint64_t v) {
  uint64_t bits = (v & kSign) ? v ^ kSign : ~v;
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

}  // namespace

int64_t IntegerAt(const arrow::Array& a, int64_t row) {
  switch (a.type_id()) {
    case arrow::Type::INT8: return static_cast<const arrow::Int8Array&>(a).Value(row);
    case arrow::Type::INT16: return static_cast<const arrow::Int16Array&>(a).Value(row);
    case arrow::Type::INT32: return static_cast<const arrow::Int32Array&>(a).Value(row);
    case arrow::Type::INT64: return static_cast<const arrow::Int64Array&>(a).Value(row);
    case arrow::Type::UINT8: return static_cast<const arrow::UInt8Array&>(a).Value(row);
    case arrow::Type::UINT16: return static_cast<const arrow::UInt16Array&>(a).Value(row);
    case arrow::Type::UINT32: return static_cast<const arrow::UInt32Array&>(a).Value(row);
    case arrow::Type::UINT64: return static_cast<int64_t>(static_cast<const arrow::UInt64Array&>(a).Value(row));
    case arrow::Type::DATE32: return static_cast<const arrow::Date32Array&>(a).Value(row);
    case arrow::Type::DATE64: return static_cast<const arrow::Date64Array&>(a).Value(row);
    case arrow::Type::TIMESTAMP: return static_cast<const arrow::TimestampArray&>(a).Value(row);
    default: return 0;
  }
}

bool IsIntegerLike(arrow::Type::type id) {
  switch (id) {
    case arrow::Type::INT8: case arrow::Type::INT16: case arrow::Type::INT32: case arrow::Type::INT64:
    case arrow::Type::UINT8: case arrow::Type::UINT16: case arrow::Type::UINT32: case arrow::Type::UINT64:
    case arrow::Type::DATE32: case arrow::Type::DATE64: case arrow::Type::TIMESTAMP:
      return true;
    default:
      return false;
  }
}

namespace {

template <typename BuilderT, typename T>
Status AppendAs(arrow::ArrayBuilder* b, T v) {
  return static_cast<BuilderT*>(b)->Append(v);
}

}  // namespace

void EncodeInt64To(int64_t v, char* out) {
  out[0] = 1;
  const uint64_t be = __builtin_bswap64(static_cast<uint64_t>(v) ^ kSign);
  std::memcpy(out + 1, &be, sizeof be);
}

void EncodeInt64(int64_t v, std::string* out) {
  char buf[kEncodedInt64Size];
  EncodeInt64To(v, buf);
  out->append(buf, sizeof buf);
}

void EncodeValue(const arrow::Array& a, int64_t row, std::string* out) {
  if (a.IsNull(row)) {
    out->push_back(0);
    return;
  }
  const auto id = a.type_id();
  if (IsIntegerLike(id)) {
    EncodeInt64(IntegerAt(a, row), out);
    return;
  }
  out->push_back(1);
  switch (id) {
    case arrow::Type::BOOL:
      out->push_back(static_cast<const arrow::BooleanArray&>(a).Value(row) ? 1 : 0);
      return;
    case arrow::Type::FLOAT:
      PutBigEndian(OrderedDouble(static_cast<const arrow::FloatArray&>(a).Value(row)), out);
      return;
    case arrow::Type::DOUBLE:
      PutBigEndian(OrderedDouble(static_cast<const arrow::DoubleArray&>(a).Value(row)), out);
      return;
    case arrow::Type::DECIMAL128: {
      arrow::Decimal128 d(static_cast<const arrow::Decimal128Array&>(a).GetValue(row));
      PutBigEndian(static_cast<uint64_t>(d.high_bits()) ^ kSign, out);
      PutBigEndian(d.low_bits(), out);
      return;
    }
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY: {
      std::string_view v = id == arrow::Type::STRING || id == arrow::Type::BINARY
                               ? static_cast<const arrow::BinaryArray&>(a).GetView(row)
                               : static_cast<const arrow::LargeBinaryArray&>(a).GetView(row);
      for (char c : v) {
        out->push_back(c);
        if (c == 0) out->push_back(static_cast<char>(0xff));
      }
      out->push_back(0);
      out->push_back(0);
      return;
    }
    default:
      // Types the planner does not let through (nested types): encode as their text.
      // GetScalar fails only for a row out of range; its message keeps the encoding total.
      auto scalar = a.GetScalar(row);
      const std::string text = scalar.ok() ? (*scalar)->ToString() : scalar.status().ToString();
      for (char c : text) {
        out->push_back(c);
        if (c == 0) out->push_back(static_cast<char>(0xff));
      }
      out->push_back(0);
      out->push_back(0);
      return;
  }
}

Status DecodeInt64Error(std::string_view b, size_t pos) {
  if (pos >= b.size() || b[pos] != 1) return Status::IOError("state entry: expected a non-null integer at ", pos);
  return Status::IOError("state entry truncated (reading 8 bytes at ", pos + 1, ")");
}

namespace {

Result<std::string> DecodeString(std::string_view b, size_t* pos) {
  std::string s;
  while (true) {
    if (*pos >= b.size()) return Status::IOError("state entry: unterminated string");
    char c = b[(*pos)++];
    if (c != 0) {
      s.push_back(c);
      continue;
    }
    if (*pos >= b.size()) return Status::IOError("state entry: unterminated string");
    char n = b[(*pos)++];
    if (n == 0) return s;
    s.push_back(0);
  }
}

}  // namespace

Status DecodeValue(std::string_view b, size_t* pos, const arrow::DataType& type, arrow::ArrayBuilder* builder) {
  if (*pos >= b.size()) return Status::IOError("state entry truncated at ", *pos);
  if (b[*pos] == 0) {
    ++*pos;
    return builder->AppendNull();
  }
  const auto id = type.id();
  if (IsIntegerLike(id)) {
    ARROW_ASSIGN_OR_RAISE(int64_t v, DecodeInt64(b, pos));
    switch (id) {
      case arrow::Type::INT8: return AppendAs<arrow::Int8Builder>(builder, static_cast<int8_t>(v));
      case arrow::Type::INT16: return AppendAs<arrow::Int16Builder>(builder, static_cast<int16_t>(v));
      case arrow::Type::INT32: return AppendAs<arrow::Int32Builder>(builder, static_cast<int32_t>(v));
      case arrow::Type::INT64: return AppendAs<arrow::Int64Builder>(builder, v);
      case arrow::Type::UINT8: return AppendAs<arrow::UInt8Builder>(builder, static_cast<uint8_t>(v));
      case arrow::Type::UINT16: return AppendAs<arrow::UInt16Builder>(builder, static_cast<uint16_t>(v));
      case arrow::Type::UINT32: return AppendAs<arrow::UInt32Builder>(builder, static_cast<uint32_t>(v));
      case arrow::Type::UINT64: return AppendAs<arrow::UInt64Builder>(builder, static_cast<uint64_t>(v));
      case arrow::Type::DATE32: return AppendAs<arrow::Date32Builder>(builder, static_cast<int32_t>(v));
      case arrow::Type::DATE64: return AppendAs<arrow::Date64Builder>(builder, v);
      case arrow::Type::TIMESTAMP: return AppendAs<arrow::TimestampBuilder>(builder, v);
      default: break;
    }
  }
  ++*pos;
  switch (id) {
    case arrow::Type::BOOL: {
      if (*pos >= b.size()) return Status::IOError("state entry truncated at ", *pos);
      return AppendAs<arrow::BooleanBuilder>(builder, b[(*pos)++] != 0);
    }
    case arrow::Type::FLOAT: {
      ARROW_ASSIGN_OR_RAISE(uint64_t v, GetBigEndian(b, pos));
      return AppendAs<arrow::FloatBuilder>(builder, static_cast<float>(UnorderedDouble(v)));
    }
    case arrow::Type::DOUBLE: {
      ARROW_ASSIGN_OR_RAISE(uint64_t v, GetBigEndian(b, pos));
      return AppendAs<arrow::DoubleBuilder>(builder, UnorderedDouble(v));
    }
    case arrow::Type::DECIMAL128: {
      ARROW_ASSIGN_OR_RAISE(uint64_t hi, GetBigEndian(b, pos));
      ARROW_ASSIGN_OR_RAISE(uint64_t lo, GetBigEndian(b, pos));
      return static_cast<arrow::Decimal128Builder*>(builder)->Append(
          arrow::Decimal128(static_cast<int64_t>(hi ^ kSign), lo));
    }
    case arrow::Type::STRING: {
      ARROW_ASSIGN_OR_RAISE(auto s, DecodeString(b, pos));
      return static_cast<arrow::StringBuilder*>(builder)->Append(s);
    }
    case arrow::Type::BINARY: {
      ARROW_ASSIGN_OR_RAISE(auto s, DecodeString(b, pos));
      return static_cast<arrow::BinaryBuilder*>(builder)->Append(s);
    }
    case arrow::Type::LARGE_STRING: {
      ARROW_ASSIGN_OR_RAISE(auto s, DecodeString(b, pos));
      return static_cast<arrow::LargeStringBuilder*>(builder)->Append(s);
    }
    case arrow::Type::LARGE_BINARY: {
      ARROW_ASSIGN_OR_RAISE(auto s, DecodeString(b, pos));
      return static_cast<arrow::LargeBinaryBuilder*>(builder)->Append(s);
    }
    default:
      return Status::NotImplemented("state entrys of type ", type.ToString(), " are not supported");
  }
}

Status SkipValue(std::string_view b, size_t* pos, const arrow::DataType& type) {
  if (*pos >= b.size()) return Status::IOError("state entry truncated at ", *pos);
  if (b[*pos] == 0) {
    ++*pos;
    return Status::OK();
  }
  const auto id = type.id();
  if (IsIntegerLike(id) || id == arrow::Type::FLOAT || id == arrow::Type::DOUBLE) {
    *pos += 9;
  } else if (id == arrow::Type::BOOL) {
    *pos += 2;
  } else if (id == arrow::Type::DECIMAL128) {
    *pos += 17;
  } else {
    ++*pos;
    ARROW_RETURN_NOT_OK(DecodeString(b, pos).status());
  }
  if (*pos > b.size()) return Status::IOError("state entry truncated");
  return Status::OK();
}

void PutFixed64(uint64_t v, std::string* out) { PutBigEndian(v, out); }

Result<uint64_t> GetFixed64(std::string_view bytes, size_t* pos) { return GetBigEndian(bytes, pos); }

void PutBytes(std::string_view v, std::string* out) {
  uint32_t n = static_cast<uint32_t>(v.size());
  char buf[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8), static_cast<char>(n)};
  out->append(buf, 4);
  out->append(v.data(), v.size());
}

Result<std::string_view> GetBytes(std::string_view b, size_t* pos) {
  if (*pos + 4 > b.size()) return Status::IOError("state entry truncated (length at ", *pos, ")");
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(b[*pos + i]);
  *pos += 4;
  if (*pos + n > b.size()) return Status::IOError("state entry truncated (", n, " bytes at ", *pos, ")");
  std::string_view v = b.substr(*pos, n);
  *pos += n;
  return v;
}

}  // namespace sluice::exec
