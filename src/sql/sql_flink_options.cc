#include "sql/sql_flink_options.h"

#include <optional>
#include <string>
#include <vector>

#include "sql/sql_parse.h"

namespace sluice::sql {
namespace {

bool IsTrue(const std::string& v) { return FoldCase(v) == "true"; }

// One option rewritten: the new key and value, or an error message (refused).
struct Mapped {
  std::string key;
  std::string value;
  std::string refusal;
};

std::optional<Mapped> MapKafka(const std::string& key, const std::string& value, const TableDecl& table) {
  if (key.rfind("properties.", 0) == 0) return Mapped{"kafka." + key.substr(11), value, ""};
  if (key == "topic-pattern") return Mapped{"subscribePattern", value, ""};
  if (key == "sink.delivery-guarantee") {
    if (FoldCase(value) == "none") {
      return Mapped{"", "", "'sink.delivery-guarantee' = 'none' is not available: the Kafka sink is "
                            "'exactly-once' or 'at-least-once'"};
    }
    return Mapped{"delivery.guarantee", FoldCase(value), ""};
  }
  if (key == "scan.startup.timestamp-millis") return Mapped{"startingTimestamp", value, ""};
  if (key == "scan.startup.mode") {
    const std::string mode = FoldCase(value);
    if (mode == "earliest-offset") return Mapped{"startingOffsets", "earliest", ""};
    if (mode == "latest-offset") return Mapped{"startingOffsets", "latest", ""};
    if (mode == "timestamp") {
      if (!table.Find("scan.startup.timestamp-millis")) {
        return Mapped{"", "", "'scan.startup.mode' = 'timestamp' needs 'scan.startup.timestamp-millis'"};
      }
      return Mapped{"", "", ""};  // the timestamp option carries it (startingTimestamp)
    }
    return Mapped{"", "", "'scan.startup.mode' = '" + value + "' is not available: sluice starts a new query at "
                          "'earliest-offset', 'latest-offset' or 'timestamp', and a restarted one from its "
                          "checkpoint (not from a consumer group's or given offsets; for those write "
                          "startingOffsets = '{\"topic\":{\"0\":42}}')"};
  }
  return std::nullopt;
}

std::optional<Mapped> MapFiles(const std::string& key, const std::string& value) {
  if (key == "json.ignore-parse-errors" || key == "csv.ignore-parse-errors") {
    return Mapped{"mode", IsTrue(value) ? "DROPMALFORMED" : "FAILFAST", ""};
  }
  if (key == "csv.field-delimiter") return Mapped{"sep", value, ""};
  if (key == "csv.quote-character") return Mapped{"quote", value, ""};
  if (key == "csv.escape-character") return Mapped{"escape", value, ""};
  if (key == "csv.disable-quote-character") {
    if (!IsTrue(value)) return Mapped{"", "", ""};
    return Mapped{"quote", "", ""};
  }
  if (key == "source.monitor-interval") {
    return Mapped{"", "", "'source.monitor-interval' is not an option: the trigger decides how often a streaming "
                          "file table is listed (sluice run --trigger processing-time=10s)"};
  }
  return std::nullopt;
}

}  // namespace

Status MapFlinkOptions(TableDecl* table, const SqlText& text) {
  std::vector<TableOption> out;
  for (const TableOption& o : table->options) {
    const std::string key = FoldCase(o.key);
    std::optional<Mapped> m;
    if (table->connector == "kafka") m = MapKafka(key, o.value, *table);
    if (table->connector == "files") m = MapFiles(key, o.value);
    if (!m) {
      out.push_back(o);
      continue;
    }
    if (!m->refusal.empty()) return text.ErrorAt(o.location, "table '" + table->name + "': " + m->refusal);
    if (m->key.empty()) continue;  // carried by another option, or nothing to set
    for (const auto& seen : out) {
      if (FoldCase(seen.key) == FoldCase(m->key)) {
        return text.ErrorAt(o.location, "option '" + o.written_key + "' sets '" + m->key + "', which '" +
                                            seen.written_key + "' already sets; keep one of them");
      }
    }
    TableOption mapped = o;
    mapped.key = m->key;
    mapped.value = m->value;
    out.push_back(std::move(mapped));
  }
  table->options = std::move(out);
  return Status::OK();
}

}  // namespace sluice::sql
