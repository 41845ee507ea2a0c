// Row-at-a-time argument access and UTF-8 character positions.
#include "exec/expr_rows.h"

namespace sluice::exec::internal {

Result<RowArgs> RowArgs::Make(const std::vector<arrow::Datum>& args) {
  RowArgs rows;
  for (const auto& a : args) {
    if (!a.is_scalar()) {
      rows.all_scalar_ = false;
      rows.length_ = a.length();
    }
  }
  for (const auto& a : args) {
    if (a.is_scalar()) {
      ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*a.scalar(), rows.length_));
      rows.arrays_.push_back(std::move(array));
    } else {
      if (a.length() != rows.length_) return Status::Invalid("arguments of different lengths");
      rows.arrays_.push_back(a.make_array());
    }
  }
  return rows;
}

bool RowArgs::AnyNull(int64_t row) const {
  for (const auto& a : arrays_) {
    if (a->IsNull(row)) return true;
  }
  return false;
}

std::string_view RowArgs::Str(size_t arg, int64_t row) const {
  const auto& a = *arrays_[arg];
  if (a.type_id() == arrow::Type::LARGE_STRING) return static_cast<const arrow::LargeStringArray&>(a).GetView(row);
  return static_cast<const arrow::BinaryArray&>(a).GetView(row);  // string or binary
}

int64_t RowArgs::Int(size_t arg, int64_t row) const {
  return static_cast<const arrow::Int64Array&>(*arrays_[arg]).Value(row);
}

int32_t RowArgs::Days(size_t arg, int64_t row) const {
  return static_cast<const arrow::Date32Array&>(*arrays_[arg]).Value(row);
}

int64_t Utf8Length(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

size_t Utf8Offset(std::string_view s, int64_t chars) {
  if (chars <= 0) return 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && chars-- == 0) return i;
  }
  return s.size();
}

}  // namespace sluice::exec::internal
