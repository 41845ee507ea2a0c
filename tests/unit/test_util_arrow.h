// Inline Arrow test data from JSON text (arrow/testing is not shipped with the pyarrow wheel):
//   auto batch = sluice::testing::BatchFromJson(schema, R"([{"id": 1, "ts": "2024-01-01 10:00:00"}])");
//   auto array = sluice::testing::ArrayFromJson(arrow::int64(), "[1, null, 3]");
// Timestamps, dates and decimals are written as strings ("2024-01-01 10:00:00[.ffffff][Z]",
// "2024-01-01", "12.34"); naive timestamp text is read as UTC. Failures abort the test with a
// message (these helpers are for literals in tests, not for user data).
#pragma once

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/io/memory.h>
#include <arrow/json/reader.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/status.h"

namespace sluice::testing {

namespace detail {

inline bool ReadAsText(const arrow::DataType& t) {
  return t.id() == arrow::Type::TIMESTAMP || t.id() == arrow::Type::DATE32 || t.id() == arrow::Type::DATE64 ||
         t.id() == arrow::Type::DECIMAL128 || t.id() == arrow::Type::DECIMAL256;
}

inline arrow::Result<std::shared_ptr<arrow::Array>> TextTo(const std::shared_ptr<arrow::Array>& text,
                                                           const std::shared_ptr<arrow::DataType>& type) {
  ARROW_RETURN_NOT_OK(arrow::compute::Initialize());
  if (type->id() == arrow::Type::TIMESTAMP) {
    const auto& ts = static_cast<const arrow::TimestampType&>(*type);
    auto naive = arrow::compute::Cast(*text, arrow::timestamp(ts.unit()));
    if (naive.ok()) return arrow::compute::Cast(**naive, type);
  }
  return arrow::compute::Cast(*text, type);
}

inline arrow::Result<std::shared_ptr<arrow::RecordBatch>> TryBatchFromJson(const std::shared_ptr<arrow::Schema>& schema,
                                                                          const std::string& json_rows) {
  nlohmann::json rows = nlohmann::json::parse(json_rows, nullptr, /*allow_exceptions=*/false);
  if (!rows.is_array()) return arrow::Status::Invalid("BatchFromJson expects a JSON array of objects: ", json_rows);
  if (rows.empty()) return arrow::RecordBatch::MakeEmpty(schema);
  std::string lines;
  for (const auto& row : rows) lines += row.dump() + "\n";

  arrow::FieldVector read_fields;
  for (const auto& f : schema->fields()) read_fields.push_back(ReadAsText(*f->type()) ? f->WithType(arrow::utf8()) : f);
  auto parse = arrow::json::ParseOptions::Defaults();
  parse.explicit_schema = arrow::schema(read_fields);
  parse.unexpected_field_behavior = arrow::json::UnexpectedFieldBehavior::Error;
  auto read = arrow::json::ReadOptions::Defaults();
  read.use_threads = false;
  auto input = std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(lines));
  ARROW_ASSIGN_OR_RAISE(auto reader, arrow::json::TableReader::Make(arrow::default_memory_pool(), input, read, parse));
  ARROW_ASSIGN_OR_RAISE(auto table, reader->Read());
  ARROW_ASSIGN_OR_RAISE(table, table->CombineChunks());

  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int i = 0; i < schema->num_fields(); ++i) {
    auto column = table->GetColumnByName(schema->field(i)->name());
    if (!column) return arrow::Status::Invalid("no column ", schema->field(i)->name());
    std::shared_ptr<arrow::Array> array = column->chunk(0);
    if (ReadAsText(*schema->field(i)->type())) {
      ARROW_ASSIGN_OR_RAISE(array, TextTo(array, schema->field(i)->type()));
    }
    columns.push_back(std::move(array));
  }
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns));
}

}  // namespace detail

/// A record batch with `schema` from a JSON array of row objects; missing keys are nulls.
inline std::shared_ptr<arrow::RecordBatch> BatchFromJson(const std::shared_ptr<arrow::Schema>& schema,
                                                         const std::string& json_rows) {
  auto batch = detail::TryBatchFromJson(schema, json_rows);
  EXPECT_OK(batch);
  return batch.ok() ? *batch : nullptr;
}

/// An array of `type` from a JSON array of values, e.g. "[1, null, 3]".
inline std::shared_ptr<arrow::Array> ArrayFromJson(const std::shared_ptr<arrow::DataType>& type,
                                                   const std::string& json_values) {
  nlohmann::json values = nlohmann::json::parse(json_values, nullptr, /*allow_exceptions=*/false);
  nlohmann::json rows = nlohmann::json::array();
  if (values.is_array()) {
    for (const auto& v : values) rows.push_back(nlohmann::json{{"v", v}});
  }
  auto batch = BatchFromJson(arrow::schema({arrow::field("v", type)}), rows.dump());
  return batch ? batch->column(0) : nullptr;
}

}  // namespace sluice::testing
