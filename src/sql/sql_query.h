// spark.sql(query) over temporary views: one SELECT whose FROM (and joins) name DataFrames the
// caller registered (PySpark's DataFrame.createOrReplaceTempView), planned exactly like a
// pipeline file's SELECT (sql_select.h), so the same SQL means the same plan.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "sluice/dataframe.h"
#include "sluice/session.h"
#include "sql/sql_text.h"

namespace sluice::sql {

/// Plans the single SELECT of `text`, its tables looked up in `views` (keys: FoldCase of the
/// view name). The result is streaming when a view it reads is. Errors are located in `text`:
/// anything but one SELECT (CREATE TABLE, SET, INSERT, several statements), an unknown view
/// (listing the registered ones), and every error a pipeline's SELECT can have.
Result<DataFrame> PlanQueryOverViews(const std::shared_ptr<Session>& session, const SqlText& text,
                                     const std::map<std::string, DataFrame>& views);

}  // namespace sluice::sql
