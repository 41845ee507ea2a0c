#include "util/parquet_write.h"

#include <arrow/io/buffered.h>
#include <arrow/memory_pool.h>
#include <arrow/table.h>
#include <parquet/arrow/writer.h>
#include <parquet/metadata.h>
#include <parquet/properties.h>

namespace sluice::util {

namespace {

// The stream under the write buffer: passes writes to `out_`, and its Close closes only itself.
// A buffered stream closes the stream under it when it is closed or destroyed, also after a
// failed write; for a file made by io::FileSystem::OpenNewFile that Close names the file, which
// is the caller's to do once the write succeeded, or to Abort after a failure.
class LeavesOpen final : public arrow::io::OutputStream {
 public:
  explicit LeavesOpen(std::shared_ptr<arrow::io::OutputStream> out) : out_(std::move(out)) {}
  Status Write(const void* data, int64_t nbytes) override {
    if (closed_) return Status::Invalid("write to a closed Parquet write buffer");
    return out_->Write(data, nbytes);
  }
  Status Flush() override { return out_->Flush(); }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }
  bool closed() const override { return closed_; }
  Result<int64_t> Tell() const override { return out_->Tell(); }

 private:
  std::shared_ptr<arrow::io::OutputStream> out_;
  bool closed_ = false;
};

}  // namespace

Result<std::shared_ptr<parquet::FileMetaData>> WriteParquetFile(
    const arrow::Table& rows, const std::shared_ptr<parquet::WriterProperties>& props,
    const std::shared_ptr<parquet::ArrowWriterProperties>& arrow_props, int64_t max_row_group_rows,
    const std::shared_ptr<arrow::io::OutputStream>& out) {
  ARROW_ASSIGN_OR_RAISE(auto buffered,
                        arrow::io::BufferedOutputStream::Create(kParquetWriteBufferBytes, arrow::default_memory_pool(),
                                                                std::make_shared<LeavesOpen>(out)));
  auto write = [&]() -> Result<std::shared_ptr<parquet::FileMetaData>> {
    ARROW_ASSIGN_OR_RAISE(auto writer, parquet::arrow::FileWriter::Open(*rows.schema(), arrow::default_memory_pool(),
                                                                        buffered, props, arrow_props));
    // An empty table gets one empty row group.
    ARROW_RETURN_NOT_OK(writer->WriteTable(rows, max_row_group_rows));
    ARROW_RETURN_NOT_OK(writer->Close());
    ARROW_RETURN_NOT_OK(buffered->Close());  // writes what is buffered; `out` stays open
    return writer->metadata();
  };
  auto footer = write();
  if (!footer.ok()) (void)buffered->Abort();  // drops what is buffered, quietly
  return footer;
}

}  // namespace sluice::util
