// Byte encodings of values for state keys and aggregate buffers.
//
// Encoded values sort bytewise (memcmp) in the order of the values themselves: a null byte
// (0x00, sorts first) or 0x01 followed by
//   integers, dates, timestamps: 8 bytes big-endian with the sign bit flipped;
//   float/double: as double, 8 bytes big-endian, negatives bit-inverted, positives sign-flipped;
//   boolean: 1 byte; decimal128: 16 bytes big-endian with the sign bit flipped;
//   strings/binary: the bytes with 0x00 written as 0x00 0xFF, ended by 0x00 0x00.
// So a key made of several encoded values sorts like the tuple, which the stateful operators
// use: window end first means state iterates in window-end order, and eviction stops early.
// The format is part of the checkpoint (docs/state-store.md): never change it.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/status.h"

namespace sluice::exec {

/// Appends the encoding of `array[row]` to `out`.
void EncodeValue(const arrow::Array& array, int64_t row, std::string* out);
/// Integer, date and timestamp types: encoded as 8 bytes, read as int64 by IntegerAt.
bool IsIntegerLike(arrow::Type::type id);
/// The value of an integer, date or timestamp array at `row` as int64 (0 for other types).
int64_t IntegerAt(const arrow::Array& array, int64_t row);
/// Appends an encoded non-null int64 (timestamps in micros, counts).
void EncodeInt64(int64_t v, std::string* out);
/// Bytes of an encoded non-null int64.
inline constexpr size_t kEncodedInt64Size = 9;
/// Writes the encoding of a non-null int64 at `out` (kEncodedInt64Size bytes).
void EncodeInt64To(int64_t v, char* out);
/// Reads one encoded value of `type` at `*pos` (advancing it) and appends it to `builder`.
Status DecodeValue(std::string_view bytes, size_t* pos, const arrow::DataType& type, arrow::ArrayBuilder* builder);
/// The error DecodeInt64 returns for `bytes` at `pos` (not an encoded non-null int64).
Status DecodeInt64Error(std::string_view bytes, size_t pos);
/// Reads an encoded non-null int64 at `*pos`. Inline: output and eviction read two or three
/// per key.
inline Result<int64_t> DecodeInt64(std::string_view bytes, size_t* pos) {
  if (bytes.size() < kEncodedInt64Size || *pos > bytes.size() - kEncodedInt64Size || bytes[*pos] != 1) {
    return DecodeInt64Error(bytes, *pos);
  }
  uint64_t be;
  std::memcpy(&be, bytes.data() + *pos + 1, sizeof be);
  *pos += kEncodedInt64Size;
  return static_cast<int64_t>(__builtin_bswap64(be) ^ (uint64_t{1} << 63));
}
/// Skips one encoded value of `type`.
Status SkipValue(std::string_view bytes, size_t* pos, const arrow::DataType& type);
/// True when the encoded value at `pos` is null.
inline bool EncodedIsNull(std::string_view bytes, size_t pos) { return pos < bytes.size() && bytes[pos] == 0; }

/// Plain (not order-preserving) little helpers for buffers.
void PutFixed64(uint64_t v, std::string* out);
Result<uint64_t> GetFixed64(std::string_view bytes, size_t* pos);
void PutBytes(std::string_view v, std::string* out);  // varint-free: fixed 4-byte length + bytes
Result<std::string_view> GetBytes(std::string_view bytes, size_t* pos);

}  // namespace sluice::exec
