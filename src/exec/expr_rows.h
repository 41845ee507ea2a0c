// Internal to exec/: row-at-a-time evaluation for the functions Arrow compute has no kernel
// with Spark's semantics for (character positions, padding, split_part, dates by calendar
// arithmetic). Arguments are scalars or arrays of one length; a result of scalars only is a
// scalar. Strings are UTF-8 and positions count characters (code points), as Spark's.
#pragma once

#include <arrow/api.h>
#include <arrow/datum.h>

#include <string_view>
#include <vector>

#include "sluice/status.h"

namespace sluice::exec::internal {

class RowArgs {
 public:
  static Result<RowArgs> Make(const std::vector<arrow::Datum>& args);

  int64_t length() const { return length_; }
  bool all_scalar() const { return all_scalar_; }
  bool IsNull(size_t arg, int64_t row) const { return arrays_[arg]->IsNull(row); }
  bool AnyNull(int64_t row) const;
  /// A string or binary argument's bytes.
  std::string_view Str(size_t arg, int64_t row) const;
  /// An int64 argument (the signature casts integers to BIGINT).
  int64_t Int(size_t arg, int64_t row) const;
  /// A date32 argument (days since the epoch).
  int32_t Days(size_t arg, int64_t row) const;
  const arrow::Array& array(size_t arg) const { return *arrays_[arg]; }

 private:
  std::vector<std::shared_ptr<arrow::Array>> arrays_;
  int64_t length_ = 1;
  bool all_scalar_ = true;
};

/// Builds the result of `type` with `BuilderT`: per row, `emit(row, &builder)` appends one
/// value or null. When `strict`, a row with a NULL argument gives NULL without calling emit.
template <typename BuilderT, typename Fn>
Result<arrow::Datum> MapRows(const RowArgs& rows, const std::shared_ptr<arrow::DataType>& type, bool strict, Fn emit) {
  BuilderT builder(type, arrow::default_memory_pool());
  ARROW_RETURN_NOT_OK(builder.Reserve(rows.length()));
  for (int64_t row = 0; row < rows.length(); ++row) {
    if (strict && rows.AnyNull(row)) {
      ARROW_RETURN_NOT_OK(builder.AppendNull());
    } else {
      ARROW_RETURN_NOT_OK(emit(row, &builder));
    }
  }
  std::shared_ptr<arrow::Array> out;
  ARROW_RETURN_NOT_OK(builder.Finish(&out));
  if (rows.all_scalar()) return out->GetScalar(0);
  return arrow::Datum(std::move(out));
}

/// Number of UTF-8 characters in `s`.
int64_t Utf8Length(std::string_view s);
/// The byte offset of character `chars` of `s` (s.size() when past the end; 0 when negative).
size_t Utf8Offset(std::string_view s, int64_t chars);

}  // namespace sluice::exec::internal
