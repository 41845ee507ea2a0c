#include "sql/sql_pipeline.h"

#include <arrow/api.h>

#include <algorithm>

#include "api/access.h"
#include "conf/sql_conf.h"
#include "plan/logical_plan.h"
#include "plan/output_mode.h"
#include "sink/partition_path.h"
#include "sink/sink.h"
#include "sink/sink_registry.h"
#include "sql/sql_script.h"
#include "sql/sql_select.h"
#include "util/log.h"

namespace sluice::sql {
namespace {

// Every declared table's connector must exist and be built, even if no query uses the table.
Status CheckConnectors(const Script& script, const SqlText& text) {
  for (const auto& table : script.tables) {
    auto connector = FindSqlConnector(table.connector);
    if (!connector) {
      return text.ErrorAt(table.connector_location, "unknown connector '" + table.connector +
                                                        "'. Available connectors: " + JoinNames(AvailableConnectorNames()) +
                                                        " (planned: " + JoinNames(PlannedConnectorNames()) + ")");
    }
    if (!connector->unavailable.empty()) {
      return text.ErrorAt(table.connector_location, connector->unavailable +
                                                        ". Available connectors: " + JoinNames(AvailableConnectorNames()));
    }
  }
  return Status::OK();
}

Result<SinkTarget> ResolveSink(const TableDecl& table, int use_location, const SqlText& text) {
  auto connector = FindSqlConnector(table.connector);
  if (!connector->write) {
    return text.ErrorAt(use_location, "table '" + table.name + "' (connector '" + table.connector +
                                          "') cannot be written to: it is a source");
  }
  auto target = connector->write(table);
  if (!target.ok()) return LocateTableError(table, target.status(), table.location, text);
  if (!table.partitioned_by.empty() && target->options.count("partitionBy") == 0) {
    return text.ErrorAt(table.partitioned_by_location, "table '" + table.name + "' (connector '" + table.connector +
                                                           "') cannot be written partitioned; PARTITIONED BY works "
                                                           "with connector = 'files' and 'iceberg'");
  }
  // The engine's own checks of format and options, now rather than when the query starts.
  sink::SinkSpec spec;
  spec.format = target->format;
  spec.query_name = table.name;
  for (const auto& [k, v] : target->options) spec.options.Set(k, v);
  Status st = sink::ValidateSinkSpec(spec);
  if (!st.ok()) return LocateTableError(table, st, table.location, text);
  return target;
}

// A sink that declares its columns takes the query's columns by position: same count, same
// types; columns named differently are renamed to the sink's names.
Result<DataFrame> FitToSinkColumns(const DataFrame& df, const std::vector<int>& column_locations, const TableDecl& sink,
                                   int statement_location, const SqlText& text) {
  if (!sink.schema) return df;
  const arrow::Schema& have = *df.schema();
  const arrow::Schema& want = *sink.schema;
  if (have.num_fields() != want.num_fields()) {
    return text.ErrorAt(statement_location, "INSERT INTO " + sink.name + ": the query has " +
                                                std::to_string(have.num_fields()) + " column(s) but table '" +
                                                sink.name + "' declares " + std::to_string(want.num_fields()));
  }
  std::vector<Column> renamed;
  bool rename = false;
  for (int i = 0; i < want.num_fields(); ++i) {
    const auto& h = have.field(i);
    const auto& w = want.field(i);
    if (!h->type()->Equals(*w->type())) {
      int at = static_cast<size_t>(i) < column_locations.size() ? column_locations[i] : statement_location;
      return text.ErrorAt(at, "type mismatch: column " + std::to_string(i + 1) + " '" + h->name() + "' is " +
                                  plan::TypeName(*h->type()) + " but table '" + sink.name + "' declares '" +
                                  w->name() + "' " + plan::TypeName(*w->type()) + "; add CAST(... AS " +
                                  plan::TypeName(*w->type()) + ")");
    }
    renamed.push_back(h->name() == w->name() ? col(h->name()) : col(h->name()).alias(w->name()));
    rename = rename || h->name() != w->name();
  }
  if (!rename) return df;
  DataFrame out = df.select(renamed);
  if (!out.ok()) return text.ErrorAt(statement_location, out.status().message());
  return out;
}

}  // namespace

Result<Pipeline> CompilePipeline(const std::shared_ptr<Session>& session, const SqlText& text, ExecutionMode mode) {
  ARROW_ASSIGN_OR_RAISE(Script script, ParseScript(text));
  ARROW_RETURN_NOT_OK(CheckConnectors(script, text));
  for (const auto& set : script.settings) {
    const conf::KeyCheck check = conf::CheckSettingKey(set.key);
    if (check.kind == conf::KeyCheck::Kind::kRefused) return text.ErrorAt(set.location, "SET: " + check.message);
    if (check.kind == conf::KeyCheck::Kind::kNoEffect) util::LogWarning(text.Where(set.location), ": SET: ", check.message);
    session->setConf(set.key, set.value);
  }

  ConnectorContext ctx{session, mode == ExecutionMode::kStreaming};
  Pipeline pipeline;
  std::map<std::string, int> written;  // lower-case sink name -> INSERT location
  int bare_selects = 0;
  for (const auto& stmt : script.queries) {
    PipelineQuery q;
    q.statement_where = text.Where(stmt.location);
    q.describe = stmt.describe;
    if (stmt.describe && mode == ExecutionMode::kStreaming) {
      return text.ErrorAt(stmt.location, "DESCRIBE runs in sluice batch (it prints a table's columns); remove it from "
                                         "a pipeline that runs as streams");
    }
    ARROW_ASSIGN_OR_RAISE(PlannedSelect planned, PlanSelect(stmt.select, stmt.location, stmt.end, script, text, ctx));
    if (stmt.sink.empty()) {
      q.name = "select_" + std::to_string(++bare_selects);
      q.frame = planned.frame;
      q.sink = SinkTarget{"console", {}};
    } else {
      const TableDecl* sink = script.FindTable(stmt.sink);
      if (!sink && script.FindView(stmt.sink)) {
        return text.ErrorAt(stmt.sink_location, "'" + stmt.sink + "' is a view, which cannot be written; INSERT INTO a "
                                                "table declared with CREATE TABLE");
      }
      if (!sink) {
        std::vector<std::string> declared;
        for (const auto& t : script.tables) declared.push_back(t.name);
        return text.ErrorAt(stmt.sink_location, "unknown table '" + stmt.sink + "'. Declared tables: " +
                                                    (declared.empty() ? std::string("none") : JoinNames(declared)));
      }
      auto [it, fresh] = written.emplace(FoldCase(sink->name), stmt.sink_location);
      if (!fresh) {
        return text.ErrorAt(stmt.sink_location, "table '" + sink->name + "' is already written by the INSERT at " +
                                                    text.Where(it->second) + "; each sink table takes one query");
      }
      if (sink->name.find('/') != std::string::npos || sink->name.front() == '.') {
        return text.ErrorAt(sink->location, "table name '" + sink->name + "' cannot name a checkpoint directory");
      }
      q.name = sink->name;
      ARROW_ASSIGN_OR_RAISE(q.sink, ResolveSink(*sink, stmt.sink_location, text));
      ARROW_ASSIGN_OR_RAISE(q.frame, FitToSinkColumns(planned.frame, planned.column_locations, *sink, stmt.location, text));
      const sink::SinkKind* sink_kind = sink::FindSinkKind(q.sink.format);
      if (auto partition_by = q.sink.options.find(sink::kPartitionByOption);
          partition_by != q.sink.options.end() && sink_kind && sink_kind->file_format) {  // Iceberg: checked at start
        plan::Options options;
        options.Set(sink::kPartitionByOption, partition_by->second);
        ARROW_ASSIGN_OR_RAISE(auto columns, sink::PartitionColumnsOption(options));
        Status st = sink::CheckPartitionColumns(columns, *q.frame.schema());
        if (!st.ok()) {
          int at = sink->partitioned_by_location >= 0 ? sink->partitioned_by_location : sink->location;
          return text.ErrorAt(at, "INSERT INTO " + sink->name + ": " + st.message());
        }
      }
    }
    pipeline.queries.push_back(std::move(q));
  }
  return pipeline;
}

}  // namespace sluice::sql
