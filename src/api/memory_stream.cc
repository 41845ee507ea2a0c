#include "sluice/memory_stream.h"

#include <arrow/api.h>
#include <arrow/io/memory.h>
#include <arrow/json/reader.h>

#include "api/access.h"
#include "plan/logical_plan.h"
#include "sluice/session.h"
#include "source/memory_source.h"

namespace sluice {

struct MemoryStream::Impl {
  std::shared_ptr<source::MemoryStreamData> data;
};

MemoryStream::MemoryStream(std::shared_ptr<Session> session, const std::string& ddl) : session_(std::move(session)) {
  auto schema = plan::ParseSchemaDDL(ddl);
  if (!schema.ok()) {
    init_status_ = schema.status();
    return;
  }
  impl_ = std::make_shared<Impl>(Impl{std::make_shared<source::MemoryStreamData>(*schema)});
}

MemoryStream::MemoryStream(std::shared_ptr<Session> session, std::shared_ptr<arrow::Schema> schema)
    : session_(std::move(session)),
      impl_(std::make_shared<Impl>(Impl{std::make_shared<source::MemoryStreamData>(std::move(schema))})) {}

Result<int64_t> MemoryStream::addData(const std::shared_ptr<arrow::Table>& rows) {
  ARROW_RETURN_NOT_OK(init_status_);
  return impl_->data->Append(rows);
}

Result<int64_t> MemoryStream::addJson(const std::string& json_rows) {
  ARROW_RETURN_NOT_OK(init_status_);
  // The JSON-lines reader wants one object per line: turn the array into lines.
  std::string text = json_rows;
  auto first = text.find_first_not_of(" \t\r\n");
  auto last = text.find_last_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] != '[' || text[last] != ']') {
    return Status::Invalid("MemoryStream::addJson expects a JSON array of objects");
  }
  nlohmann::json arr;
  try {
    arr = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return Status::Invalid("MemoryStream::addJson: ", e.what());
  }
  if (arr.empty()) return impl_->data->NumRows();
  std::string lines;
  for (const auto& row : arr) lines += row.dump() + "\n";
  auto buffer = std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(lines));
  auto parse = arrow::json::ParseOptions::Defaults();
  parse.explicit_schema = impl_->data->schema();
  parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::Error;
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::json::TableReader::Make(arrow::default_memory_pool(), buffer,
                                                                     arrow::json::ReadOptions::Defaults(), parse));
  ARROW_ASSIGN_OR_RAISE(auto table, reader->Read());
  // Keep the declared field order and nullability.
  std::vector<std::shared_ptr<arrow::ChunkedArray>> cols;
  for (const auto& f : impl_->data->schema()->fields()) cols.push_back(table->GetColumnByName(f->name()));
  return impl_->data->Append(arrow::Table::Make(impl_->data->schema(), cols, table->num_rows()));
}

DataFrame MemoryStream::toDF() const {
  if (!init_status_.ok()) return api::MakeDataFrame(session_, init_status_);
  auto spec = std::make_shared<plan::SourceSpec>();
  spec->format = "memory";
  spec->streaming = true;
  spec->memory = impl_->data;
  spec->schema = impl_->data->schema();
  auto scan = plan::LogicalPlan::Scan(spec, impl_->data->schema());
  if (!scan.ok()) return api::MakeDataFrame(session_, scan.status());
  return api::MakeDataFrame(session_, *scan);
}

Result<DataFrame> Session::createDataFrame(std::shared_ptr<arrow::Table> rows) {
  if (!rows) return Status::Invalid("createDataFrame: no rows given");
  auto data = std::make_shared<source::MemoryStreamData>(rows->schema());
  ARROW_RETURN_NOT_OK(data->Append(rows).status());
  auto spec = std::make_shared<plan::SourceSpec>();
  spec->format = "memory";
  spec->streaming = false;
  spec->memory = data;
  spec->schema = data->schema();
  ARROW_ASSIGN_OR_RAISE(auto scan, plan::LogicalPlan::Scan(spec, data->schema()));
  return api::MakeDataFrame(shared_from_this(), scan);
}

}  // namespace sluice
