// Small deterministic tables for tests.
#pragma once

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace sluice::testing {

/// Columns id BIGINT, name STRING: ids first .. first+n-1, names "n<id>".
inline std::shared_ptr<arrow::Table> IdNameRows(int64_t first, int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  for (int64_t i = first; i < first + n; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(names.Append("n" + std::to_string(i)).ok());
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8())});
  return arrow::Table::Make(schema, {*ids.Finish(), *names.Finish()});
}

}  // namespace sluice::testing
