#include "sql/sql_query.h"

#include "sql/sql_connectors.h"
#include "sql/sql_script.h"
#include "sql/sql_select.h"

namespace sluice::sql {

Result<DataFrame> PlanQueryOverViews(const std::shared_ptr<Session>& session, const SqlText& text,
                                     const std::map<std::string, DataFrame>& views) {
  ARROW_ASSIGN_OR_RAISE(Script script, ParseScript(text));
  const int first = script.queries.empty() ? 0 : script.queries[0].location;
  if (!script.tables.empty()) {
    return text.ErrorAt(script.tables[0].location,
                        "spark.sql runs one SELECT over temporary views; CREATE TABLE belongs in a pipeline file "
                        "(sluice run) — register a DataFrame with df.createOrReplaceTempView(name) instead");
  }
  if (!script.settings.empty()) {
    return text.ErrorAt(script.settings[0].location, "spark.sql runs one SELECT; set configuration with spark.conf.set");
  }
  if (script.queries.size() != 1) {
    return text.ErrorAt(script.queries.size() > 1 ? script.queries[1].location : 0,
                        "spark.sql runs exactly one SELECT statement");
  }
  const QueryStmt& q = script.queries[0];
  if (!q.sink.empty()) {
    return text.ErrorAt(first, "spark.sql runs a SELECT; INSERT INTO belongs in a pipeline file, or write the "
                               "result with df.writeStream / df.write");
  }
  // Each view is a table of the script; ReadTable finds its DataFrame in the context.
  for (const auto& [name, df] : views) {
    TableDecl table;
    table.name = name;
    script.tables.push_back(std::move(table));
  }
  ConnectorContext ctx{session, /*streaming=*/true};
  ctx.views = &views;
  ARROW_ASSIGN_OR_RAISE(PlannedSelect planned, PlanSelect(q.select, q.location, q.end, script, text, ctx));
  return planned.frame;
}

}  // namespace sluice::sql
