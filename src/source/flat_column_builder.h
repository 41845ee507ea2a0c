// The values of one flat column as a file source decodes them, appended one at a time.
//
// Arrow's builders check the capacity, keep the validity bitmap and return a Status for every
// value; a decoder appends a value per key per line, so that is most of what an append costs.
// Here a value goes into a buffer reserved ahead (one check of the room left, then a store).
// The validity bitmap is started at the first null (the rows before it set valid), so a column
// without nulls has none and its appends never touch one.
#pragma once

#include <arrow/api.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <type_traits>

#include "sluice/status.h"

namespace sluice::source {

class FlatColumnBuilder {
 public:
  /// What the column holds: 8-byte values (int64 for integers of every width and timestamps, or
  /// doubles), booleans, or UTF-8 strings (32-bit offsets: at most kMaxStringBytes in all).
  enum class Layout { kEightBytes, kBoolean, kString };

  /// Arrow's limit for a string column's bytes (its BinaryBuilder's), kept for the same error.
  static constexpr int64_t kMaxStringBytes = std::numeric_limits<int32_t>::max() - 1;

  explicit FlatColumnBuilder(Layout layout = Layout::kEightBytes);

  int64_t length() const { return length_; }
  /// Bytes of string data appended (kString).
  int64_t string_bytes() const { return data_.length(); }

  /// Appends when the room reserved holds the value, else false (the caller then calls the
  /// Append of the same value, which grows the buffers or says why it cannot).
  bool TryAppend(int64_t v) { return TryAppendBytes(&v, sizeof v); }
  bool TryAppend(double v) { return TryAppendBytes(&v, sizeof v); }
  bool TryAppend(bool v) {
    const uint8_t byte = v ? 1 : 0;
    return TryAppendBytes(&byte, 1);
  }
  bool TryAppend(std::string_view s) {
    if (ARROW_PREDICT_FALSE(offsets_.capacity() - offsets_.length() < static_cast<int64_t>(sizeof(int32_t)) ||
                            data_.capacity() - data_.length() < static_cast<int64_t>(s.size()) ||
                            data_.length() + static_cast<int64_t>(s.size()) > kMaxStringBytes || !ValidBitFits())) {
      return false;
    }
    if (!s.empty()) data_.UnsafeAppend(s.data(), static_cast<int64_t>(s.size()));  // (an empty view's data may be null)
    const auto end = static_cast<int32_t>(data_.length());
    offsets_.UnsafeAppend(&end, sizeof end);
    AppendValidBit();
    return true;
  }

  /// Appends the `n` values `value(0)` .. `value(n - 1)`, none of them null, in one pass when the
  /// room reserved holds them all and the column has no bitmap; else false, and nothing is
  /// appended (the caller appends them one at a time). `value(i)` gives what TryAppend takes:
  /// int64_t or double (kEightBytes), bool (kBoolean), std::string_view (kString).
  template <typename Get>
  bool TryAppendAll(int64_t n, Get value) {
    using T = decltype(value(int64_t{0}));
    if (has_validity_) return false;
    if constexpr (std::is_same_v<T, std::string_view>) {
      int64_t bytes = 0;
      for (int64_t i = 0; i < n; ++i) bytes += static_cast<int64_t>(value(i).size());
      if (offsets_.capacity() - offsets_.length() < n * static_cast<int64_t>(sizeof(int32_t)) ||
          data_.capacity() - data_.length() < bytes || data_.length() + bytes > kMaxStringBytes) {
        return false;
      }
      uint8_t* data = data_.mutable_data();
      uint8_t* offsets = offsets_.mutable_data() + offsets_.length();
      auto end = static_cast<int32_t>(data_.length());
      for (int64_t i = 0; i < n; ++i) {
        const std::string_view s = value(i);
        if (!s.empty()) std::memcpy(data + end, s.data(), s.size());  // (an empty view's data may be null)
        end += static_cast<int32_t>(s.size());
        std::memcpy(offsets + i * static_cast<int64_t>(sizeof end), &end, sizeof end);
      }
      data_.UnsafeAdvance(bytes);
      offsets_.UnsafeAdvance(n * static_cast<int64_t>(sizeof(int32_t)));
    } else {
      constexpr int64_t kWidth = std::is_same_v<T, bool> ? 1 : 8;
      static_assert(std::is_same_v<T, bool> || std::is_same_v<T, int64_t> || std::is_same_v<T, double>);
      if (values_.capacity() - values_.length() < n * kWidth) return false;
      uint8_t* out = values_.mutable_data() + values_.length();
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (kWidth == 1) {
          out[i] = value(i) ? 1 : 0;
        } else {
          const T v = value(i);
          std::memcpy(out + i * kWidth, &v, sizeof v);
        }
      }
      values_.UnsafeAdvance(n * kWidth);
    }
    length_ += n;
    return true;
  }

  /// The same, growing the buffers as needed. A string column past kMaxStringBytes is a
  /// CapacityError, as Arrow's builder reports it.
  Status Append(int64_t v);
  Status Append(double v);
  Status Append(bool v);
  Status Append(std::string_view s);
  Status AppendNull();

  /// Room for `values` more values and, for strings, `string_bytes` more bytes: a hint (a
  /// refused reservation is left to the appends to report).
  Status Reserve(int64_t values, int64_t string_bytes = 0);

  /// The 8-byte value of row `i` as an integer (kEightBytes; for tests and checks).
  int64_t IntegerAt(int64_t i) const {
    int64_t v = 0;
    std::memcpy(&v, values_.data() + i * 8, sizeof v);
    return v;
  }

  /// The values so far as an array of `type` (for kEightBytes one of int64, float64 or a type of
  /// the same layout such as timestamp; boolean; utf8); the builder starts again, empty.
  Result<std::shared_ptr<arrow::Array>> Finish(const std::shared_ptr<arrow::DataType>& type);

 private:
  bool TryAppendBytes(const void* v, int64_t n) {
    if (ARROW_PREDICT_FALSE(values_.capacity() - values_.length() < n || !ValidBitFits())) return false;
    values_.UnsafeAppend(v, n);
    AppendValidBit();
    return true;
  }
  // The room for a value's bit, where the column has a bitmap.
  bool ValidBitFits() const { return !has_validity_ || validity_.capacity() > validity_.length(); }
  void AppendValidBit() {
    if (ARROW_PREDICT_FALSE(has_validity_)) validity_.UnsafeAppend(true);
    ++length_;
  }
  Status AppendBytes(const void* v, int64_t n);
  // kString: offsets_ starts with offset 0 (Reset reserves it; the appends and Finish make sure).
  Status EnsureFirstOffset();
  void Reset();

  Layout layout_;
  int64_t length_ = 0;
  arrow::BufferBuilder values_;   // kEightBytes: 8 bytes a value; kBoolean: a byte a value
  arrow::BufferBuilder offsets_;  // kString: int32 offsets, length + 1 of them
  arrow::BufferBuilder data_;     // kString: the strings' bytes
  bool has_validity_ = false;     // a null was appended: validity_ holds a bit for every row
  arrow::TypedBufferBuilder<bool> validity_;
};

}  // namespace sluice::source
