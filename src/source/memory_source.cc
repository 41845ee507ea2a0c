#include "source/memory_source.h"

#include <arrow/api.h>

namespace sluice::source {

Result<int64_t> MemoryStreamData::Append(const std::shared_ptr<arrow::Table>& rows) {
  if (!rows->schema()->Equals(*schema_, /*check_metadata=*/false)) {
    return Status::TypeError("MemoryStream rows have schema ", rows->schema()->ToString(), " but the stream's is ",
                             schema_->ToString());
  }
  std::lock_guard<std::mutex> lock(mu_);
  parts_.push_back(rows);
  rows_ += rows->num_rows();
  return rows_;
}

int64_t MemoryStreamData::NumRows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rows_;
}

Result<std::shared_ptr<arrow::Table>> MemoryStreamData::Slice(int64_t begin, int64_t end) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (begin < 0 || end > rows_ || begin > end) {
    return Status::Invalid("MemoryStream has ", rows_, " rows; cannot read offsets (", begin, ", ", end, "]");
  }
  std::vector<std::shared_ptr<arrow::Table>> picked;
  int64_t pos = 0;
  for (const auto& part : parts_) {
    int64_t lo = std::max(begin, pos), hi = std::min(end, pos + part->num_rows());
    if (lo < hi) picked.push_back(part->Slice(lo - pos, hi - lo));
    pos += part->num_rows();
  }
  if (picked.empty()) return arrow::Table::MakeEmpty(schema_);
  return arrow::ConcatenateTables(picked);
}

namespace {

int64_t OffsetValue(const std::optional<Offset>& o) {
  if (!o) return 0;
  return o->is_number() ? o->get<int64_t>() : 0;
}

class MemorySource final : public Source {
 public:
  explicit MemorySource(std::shared_ptr<MemoryStreamData> data) : data_(std::move(data)) {}
  std::string Description() const override { return "MemoryStream"; }
  std::shared_ptr<arrow::Schema> schema() const override { return data_->schema(); }

  Status PrepareForAvailableNow() override {
    available_now_end_ = data_->NumRows();
    return Status::OK();
  }

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start, bool /*limited*/) override {
    int64_t end = available_now_end_ >= 0 ? available_now_end_ : data_->NumRows();
    if (end <= OffsetValue(start)) return start;
    return std::optional<Offset>(Offset(end));
  }

  Result<std::shared_ptr<arrow::Table>> GetBatch(const std::optional<Offset>& start, const Offset& end) override {
    if (!end.is_number()) return Status::Invalid("MemoryStream offset must be a row count, got ", end.dump());
    return data_->Slice(OffsetValue(start), end.get<int64_t>());
  }

 private:
  std::shared_ptr<MemoryStreamData> data_;
  int64_t available_now_end_ = -1;
};

}  // namespace

Result<std::unique_ptr<Source>> MakeMemorySource(const plan::SourceSpec& spec) {
  if (!spec.memory) return Status::Invalid("memory source without a MemoryStream");
  return std::make_unique<MemorySource>(spec.memory);
}

}  // namespace sluice::source
