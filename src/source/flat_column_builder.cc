#include "source/flat_column_builder.h"

#include <arrow/util/bit_util.h>

#include <algorithm>

namespace sluice::source {

FlatColumnBuilder::FlatColumnBuilder(Layout layout) : layout_(layout) { Reset(); }

void FlatColumnBuilder::Reset() {
  length_ = 0;
  has_validity_ = false;
  validity_.Reset();
  values_.Reset();
  offsets_.Reset();
  data_.Reset();
  // The first offset; where it cannot be had now, the next append or Finish tries again.
  if (layout_ == Layout::kString) (void)EnsureFirstOffset();
}

Status FlatColumnBuilder::EnsureFirstOffset() {
  if (offsets_.length() > 0) return Status::OK();
  const int32_t zero = 0;
  return offsets_.Append(&zero, sizeof zero);
}

Status FlatColumnBuilder::AppendBytes(const void* v, int64_t n) {
  if (values_.capacity() - values_.length() < n) {
    ARROW_RETURN_NOT_OK(values_.Reserve(std::max<int64_t>(n, values_.length())));  // doubles the room
  }
  if (has_validity_) ARROW_RETURN_NOT_OK(validity_.Reserve(1));
  values_.UnsafeAppend(v, n);
  AppendValidBit();
  return Status::OK();
}

Status FlatColumnBuilder::Append(int64_t v) { return AppendBytes(&v, sizeof v); }

Status FlatColumnBuilder::Append(double v) { return AppendBytes(&v, sizeof v); }

Status FlatColumnBuilder::Append(bool v) {
  const uint8_t byte = v ? 1 : 0;
  return AppendBytes(&byte, 1);
}

Status FlatColumnBuilder::Append(std::string_view s) {
  const auto n = static_cast<int64_t>(s.size());
  if (data_.length() + n > kMaxStringBytes) {
    return Status::CapacityError("array cannot contain more than ", kMaxStringBytes, " bytes, have ",
                                 data_.length() + n);
  }
  ARROW_RETURN_NOT_OK(EnsureFirstOffset());
  if (has_validity_) ARROW_RETURN_NOT_OK(validity_.Reserve(1));
  ARROW_RETURN_NOT_OK(offsets_.Reserve(sizeof(int32_t)));
  if (n > 0) ARROW_RETURN_NOT_OK(data_.Append(s.data(), n));  // (an empty view's data may be null)
  const auto end = static_cast<int32_t>(data_.length());
  offsets_.UnsafeAppend(&end, sizeof end);
  AppendValidBit();
  return Status::OK();
}

Status FlatColumnBuilder::AppendNull() {
  if (!has_validity_) {  // the rows so far are valid
    ARROW_RETURN_NOT_OK(validity_.Reserve(std::max<int64_t>(length_ + 1, 64)));
    validity_.UnsafeAppend(length_, true);
    has_validity_ = true;
  }
  ARROW_RETURN_NOT_OK(validity_.Reserve(1));
  // The null's slot: a zero value, or an empty string.
  switch (layout_) {
    case Layout::kEightBytes: {
      const int64_t zero = 0;
      ARROW_RETURN_NOT_OK(values_.Append(&zero, sizeof zero));
      break;
    }
    case Layout::kBoolean: {
      const uint8_t zero = 0;
      ARROW_RETURN_NOT_OK(values_.Append(&zero, 1));
      break;
    }
    case Layout::kString: {
      ARROW_RETURN_NOT_OK(EnsureFirstOffset());
      const auto end = static_cast<int32_t>(data_.length());
      ARROW_RETURN_NOT_OK(offsets_.Append(&end, sizeof end));
      break;
    }
  }
  validity_.UnsafeAppend(false);
  ++length_;
  return Status::OK();
}

Status FlatColumnBuilder::Reserve(int64_t values, int64_t string_bytes) {
  if (has_validity_) ARROW_RETURN_NOT_OK(validity_.Reserve(values));
  switch (layout_) {
    case Layout::kEightBytes:
      return values_.Reserve(values * 8);
    case Layout::kBoolean:
      return values_.Reserve(values);
    case Layout::kString:
      ARROW_RETURN_NOT_OK(offsets_.Reserve(values * static_cast<int64_t>(sizeof(int32_t))));
      return data_.Reserve(std::min(string_bytes, kMaxStringBytes - data_.length()));
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::Array>> FlatColumnBuilder::Finish(const std::shared_ptr<arrow::DataType>& type) {
  std::shared_ptr<arrow::Buffer> validity;
  const int64_t nulls = has_validity_ ? validity_.false_count() : 0;
  if (has_validity_) {
    ARROW_ASSIGN_OR_RAISE(validity, validity_.Finish());
  }
  std::shared_ptr<arrow::ArrayData> data;
  switch (layout_) {
    case Layout::kEightBytes: {
      ARROW_ASSIGN_OR_RAISE(auto values, values_.Finish());
      data = arrow::ArrayData::Make(type, length_, {validity, values}, nulls);
      break;
    }
    case Layout::kBoolean: {
      ARROW_ASSIGN_OR_RAISE(auto bits, arrow::AllocateEmptyBitmap(length_));
      const uint8_t* bytes = values_.data();
      for (int64_t i = 0; i < length_; ++i) {
        if (bytes[i] != 0) arrow::bit_util::SetBit(bits->mutable_data(), i);
      }
      data = arrow::ArrayData::Make(type, length_, {validity, bits}, nulls);
      break;
    }
    case Layout::kString: {
      ARROW_RETURN_NOT_OK(EnsureFirstOffset());  // an empty column has its one offset too
      ARROW_ASSIGN_OR_RAISE(auto offsets, offsets_.Finish());
      ARROW_ASSIGN_OR_RAISE(auto bytes, data_.Finish());
      data = arrow::ArrayData::Make(type, length_, {validity, offsets, bytes}, nulls);
      break;
    }
  }
  Reset();
  return arrow::MakeArray(data);
}

}  // namespace sluice::source
