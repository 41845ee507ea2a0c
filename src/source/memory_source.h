// The memory source (tests): rows appended in code through sluice::MemoryStream. Offsets are
// row counts; a batch (start, end] is rows [start, end) of the append order, so a redone
// batch reads the same rows.
#pragma once

#include <mutex>
#include <vector>

#include "source/source.h"

namespace sluice::source {

/// The buffer a MemoryStream and its sources share. Thread-safe.
class MemoryStreamData {
 public:
  explicit MemoryStreamData(std::shared_ptr<arrow::Schema> schema) : schema_(std::move(schema)) {}
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  /// Appends rows (schema must match); returns the new total row count.
  Result<int64_t> Append(const std::shared_ptr<arrow::Table>& rows);
  int64_t NumRows() const;
  /// Rows [begin, end).
  Result<std::shared_ptr<arrow::Table>> Slice(int64_t begin, int64_t end) const;

 private:
  std::shared_ptr<arrow::Schema> schema_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<arrow::Table>> parts_;
  int64_t rows_ = 0;
};

Result<std::unique_ptr<Source>> MakeMemorySource(const plan::SourceSpec& spec);

}  // namespace sluice::source
