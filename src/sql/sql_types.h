// SQL type names (libpg_query TypeName nodes) -> Arrow types, through plan::ParseTypeName so
// SQL and the C++ API accept the same names.
#pragma once

#include <arrow/type_fwd.h>
#include <nlohmann/json.hpp>

#include "sluice/status.h"
#include "sql/sql_text.h"

namespace sluice::sql {

/// The type of a TypeName node body: BIGINT/INT8, INTEGER/INT, SMALLINT, DOUBLE PRECISION/
/// FLOAT8/DOUBLE, REAL, BOOLEAN, TEXT/VARCHAR(n)/STRING, TIMESTAMP, TIMESTAMPTZ, DATE,
/// DECIMAL(p,s)/NUMERIC(p,s), and Spark's nested types ARRAY<t>, STRUCT<name: t, ...>, MAP<k, v>
/// (read from the user's text at the node's location). Errors (unknown type, PostgreSQL's
/// `t[]` arrays) are located in `text`.
Result<std::shared_ptr<arrow::DataType>> TypeFromSql(const nlohmann::json& type_name, const SqlText& text);

}  // namespace sluice::sql
