#include "sink/file_sink_json.h"

#include <arrow/record_batch.h>
#include <arrow/table.h>

#include "util/json_text.h"

namespace sluice::sink {

using util::AppendJsonObject;

Status WriteJsonLines(const arrow::Table& table, bool ignore_null_fields, arrow::io::OutputStream* out) {
  constexpr size_t kFlushBytes = 1 << 20;
  std::vector<std::string> names = table.schema()->field_names();
  arrow::TableBatchReader reader(table);
  std::string buf;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) break;
    // batch->columns() returns owning pointers; `owned` keeps them alive for the raw ones.
    std::vector<const arrow::Array*> columns;
    auto owned = batch->columns();
    for (const auto& column : owned) columns.push_back(column.get());
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      ARROW_RETURN_NOT_OK(AppendJsonObject(names, columns, r, ignore_null_fields, &buf));
      buf.push_back('\n');
      if (buf.size() >= kFlushBytes) {
        ARROW_RETURN_NOT_OK(out->Write(buf.data(), static_cast<int64_t>(buf.size())));
        buf.clear();
      }
    }
  }
  if (!buf.empty()) ARROW_RETURN_NOT_OK(out->Write(buf.data(), static_cast<int64_t>(buf.size())));
  return Status::OK();
}

}  // namespace sluice::sink
