#include "sql/sql_connectors.h"

#include <arrow/api.h>

#include <algorithm>
#include <mutex>

#include "sink/sink_registry.h"
#include "source/source_registry.h"

namespace sluice::sql {
namespace {

// Options the SQL layer itself interprets (event_time and watermark become withWatermark on the
// scan, see ReadTable; static = true reads the table with read(), see sql_join.cc); everything
// else goes to the engine unchanged.
bool IsSqlLevelOption(const TableOption& o) {
  std::string k = FoldCase(o.key);
  return k == "format" || k == "path" || k == "eventtime" || k == "watermark" || k == "static";
}

std::map<std::string, std::string> EngineOptions(const TableDecl& table) {
  std::map<std::string, std::string> out;
  for (const auto& o : table.options) {
    if (!IsSqlLevelOption(o)) out[o.key] = o.value;
  }
  return out;
}

Result<std::string> RequiredOption(const TableDecl& table, const std::string& key, const std::string& example) {
  const TableOption* o = table.Find(key);
  if (!o || o->value.empty()) {
    return Status::Invalid("table '", table.name, "' (connector '", table.connector, "') needs option '", key,
                           "', e.g. ", key, " = '", example, "'");
  }
  return o->value;
}

[[maybe_unused]] SqlConnector Planned(const std::string& name) {
  SqlConnector c;
  c.name = name;
  c.unavailable = "connector '" + name + "' is not available yet";
  return c;
}

struct Registry {
  std::mutex mu;
  std::vector<std::shared_ptr<const SqlConnector>> connectors;
};

Registry& TheRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    // The connector list. A new connector: one function returning a SqlConnector, one line here.
    for (SqlConnector c : {FilesConnector(), ConsoleConnector(), MemoryConnector(), GeneratedConnector("rate"),
                           GeneratedConnector("rate-micro-batch"), GeneratedConnector("socket"), IcebergConnector(),
                           KafkaConnector()}) {
      r->connectors.push_back(std::make_shared<const SqlConnector>(std::move(c)));
    }
    return r;
  }();
  return *registry;
}

}  // namespace

SqlConnector FilesConnector() {
  SqlConnector c;
  c.name = "files";
  c.read = [](const TableDecl& table, const ConnectorContext& ctx) -> Result<DataFrame> {
    ARROW_ASSIGN_OR_RAISE(std::string format, RequiredOption(table, "format", "json"));
    ARROW_ASSIGN_OR_RAISE(std::string path, RequiredOption(table, "path", "/data/in"));
    const source::SourceKind* kind = source::FindSourceKind(format);
    if (!kind || !kind->file_format()) {
      return Status::Invalid("option 'format' = '", format, "' cannot be read by the files connector; ",
                             "valid formats: ", source::SourceKindList(/*files_only=*/true));
    }
    if (ctx.streaming) {
      DataStreamReader reader = ctx.session->readStream();
      reader.format(format).options(EngineOptions(table));
      if (table.schema) reader.schema(table.schema);
      return reader.load(path);
    }
    DataFrameReader reader = ctx.session->read();
    reader.format(format).options(EngineOptions(table));
    if (table.schema) reader.schema(table.schema);
    return reader.load(path);
  };
  c.write = [](const TableDecl& table) -> Result<SinkTarget> {
    ARROW_ASSIGN_OR_RAISE(std::string format, RequiredOption(table, "format", "parquet"));
    ARROW_ASSIGN_OR_RAISE(std::string path, RequiredOption(table, "path", "/data/out"));
    const sink::SinkKind* kind = sink::FindSinkKind(format);
    if (!kind || !kind->file_format) {
      std::string files;
      for (const auto& name : sink::SinkKindNames()) {
        if (sink::FindSinkKind(name)->file_format) files += (files.empty() ? "" : ", ") + name;
      }
      return Status::Invalid("option 'format' = '", format, "' cannot be written by the files connector; ",
                             "valid sink formats: ", files);
    }
    SinkTarget target{kind->name, EngineOptions(table)};
    target.options["path"] = path;
    if (!table.partitioned_by.empty()) {
      if (table.Find("partitionBy")) {
        return Status::Invalid("table '", table.name, "' gives both PARTITIONED BY and option 'partition_by'; keep one");
      }
      std::string columns;
      for (const auto& p : table.partitioned_by) {
        if (!p.transform.empty()) {
          return Status::Invalid("table '", table.name, "' (connector 'files'): cannot partition by ", p.ToString(),
                                 ": file output is partitioned by columns (Hive-style directories); compute the "
                                 "value in the SELECT (e.g. to_date(ts) AS dt) and partition by that column");
        }
        columns += (columns.empty() ? "" : ",") + p.column;
      }
      target.options["partitionBy"] = columns;
    }
    return target;
  };
  return c;
}

SqlConnector GeneratedConnector(const std::string& name) {
  SqlConnector c;
  c.name = name;
  c.read = [name](const TableDecl& table, const ConnectorContext& ctx) -> Result<DataFrame> {
    if (!ctx.streaming) {
      return Status::Invalid("table '", table.name, "' (connector '", name,
                             "') can only be read as a stream: use `sluice run`, not `sluice batch`");
    }
    if (table.schema && table.schema->num_fields() > 0) {
      return Status::Invalid("table '", table.name, "' (connector '", name,
                             "') has a fixed schema; declare it with an empty column list: CREATE TABLE ", table.name,
                             " () WITH (...)");
    }
    return ctx.session->readStream().format(name).options(EngineOptions(table)).load();
  };
  return c;
}

// Iceberg tables: `catalog` (default: local) and `table` ('namespace.table').
SqlConnector IcebergConnector() {
  SqlConnector c;
  c.name = "iceberg";
  auto full_name = [](const TableDecl& table) -> Result<std::string> {
    ARROW_ASSIGN_OR_RAISE(std::string name, RequiredOption(table, "table", "db.events"));
    const TableOption* catalog = table.Find("catalog");
    return (catalog ? catalog->value : std::string("local")) + "." + name;
  };
  c.read = [full_name](const TableDecl& table, const ConnectorContext& ctx) -> Result<DataFrame> {
    if (ctx.streaming) {
      return Status::NotImplemented("table '", table.name,
                                    "' (connector 'iceberg') cannot be read as a stream yet; read it with `sluice batch`");
    }
    ARROW_ASSIGN_OR_RAISE(std::string name, full_name(table));
    return ctx.session->read().table(name);
  };
  c.write = [full_name](const TableDecl& table) -> Result<SinkTarget> {
    ARROW_ASSIGN_OR_RAISE(std::string name, full_name(table));
    std::map<std::string, std::string> options;
    for (const auto& o : table.options) {
      std::string k = FoldCase(o.key);
      if (k != "catalog" && k != "table" && k != "eventtime" && k != "watermark") options[o.key] = o.value;
    }
    options["table"] = name;
    if (!table.partitioned_by.empty()) {
      // The table's partition spec (iceberg/partition_spec.h parses the terms).
      if (table.Find("partitionBy")) {
        return Status::Invalid("table '", table.name, "' gives both PARTITIONED BY and option 'partition_by'; keep one");
      }
      std::string terms;
      for (const auto& p : table.partitioned_by) terms += (terms.empty() ? "" : ", ") + p.ToString();
      options["partitionBy"] = terms;
    }
    return SinkTarget{"iceberg", options};
  };
  return c;
}

// Kafka topics: the source's and sink's options (docs/kafka.md), in snake_case or camelCase.
SqlConnector KafkaConnector() {
  SqlConnector c;
  c.name = "kafka";
  c.read = [](const TableDecl& table, const ConnectorContext& ctx) -> Result<DataFrame> {
    if (table.schema && table.schema->num_fields() > 0) {
      return Status::Invalid("table '", table.name, "' (connector 'kafka') has Kafka's fixed schema; declare it ",
                             "with an empty column list: CREATE TABLE ", table.name, " () WITH (...)");
    }
    std::map<std::string, std::string> options = EngineOptions(table);
    // Flink's 'topic' names the topic to read as well as to write; Spark's source calls it subscribe.
    if (auto topic = options.find("topic"); topic != options.end() && !table.Find("subscribe")) {
      options["subscribe"] = topic->second;
      options.erase(topic);
    }
    if (ctx.streaming) return ctx.session->readStream().format("kafka").options(options).load();
    return ctx.session->read().format("kafka").options(options).load();
  };
  c.write = [](const TableDecl& table) -> Result<SinkTarget> { return SinkTarget{"kafka", EngineOptions(table)}; };
  return c;
}

SqlConnector ConsoleConnector() {
  SqlConnector c;
  c.name = "console";
  c.write = [](const TableDecl& table) -> Result<SinkTarget> { return SinkTarget{"console", EngineOptions(table)}; };
  return c;
}

SqlConnector MemoryConnector() {
  SqlConnector c;
  c.name = "memory";
  // The memory sink's table is named after the SQL table (Session::memoryTable(name)).
  c.write = [](const TableDecl& table) -> Result<SinkTarget> { return SinkTarget{"memory", EngineOptions(table)}; };
  return c;
}

std::shared_ptr<const SqlConnector> FindSqlConnector(const std::string& name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& c : r.connectors) {
    if (c->name == FoldCase(name)) return c;
  }
  return nullptr;
}

std::vector<std::string> AvailableConnectorNames() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& c : r.connectors) {
    if (c->unavailable.empty()) out.push_back(c->name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> PlannedConnectorNames() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& c : r.connectors) {
    if (!c->unavailable.empty()) out.push_back(c->name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void RegisterSqlConnector(SqlConnector connector) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  connector.name = FoldCase(connector.name);
  auto entry = std::make_shared<const SqlConnector>(std::move(connector));
  for (auto& c : r.connectors) {
    if (c->name == entry->name) {
      c = entry;
      return;
    }
  }
  r.connectors.push_back(entry);
}

}  // namespace sluice::sql
