// A streaming source for tests: rows appended in code; offsets are row counts.
//
//   sluice::MemoryStream input(session, "id BIGINT, name STRING");
//   input.addJson(R"([{"id": 1, "name": "a"}])");
//   auto df = input.toDF();
#pragma once

#include <memory>
#include <string>

#include "sluice/dataframe.h"
#include "sluice/status.h"

namespace arrow {
class Schema;
class Table;
}  // namespace arrow

namespace sluice {

class MemoryStream {
 public:
  /// Schema as a DDL string.
  MemoryStream(std::shared_ptr<Session> session, const std::string& ddl);
  MemoryStream(std::shared_ptr<Session> session, std::shared_ptr<arrow::Schema> schema);

  /// Appends rows; they must match the schema. Returns the new end offset (total rows).
  Result<int64_t> addData(const std::shared_ptr<arrow::Table>& rows);
  /// Appends rows given as a JSON array of objects.
  Result<int64_t> addJson(const std::string& json_rows);
  DataFrame toDF() const;

 private:
  struct Impl;  // the rows appended so far
  std::shared_ptr<Session> session_;
  std::shared_ptr<Impl> impl_;
  Status init_status_;
};

}  // namespace sluice
