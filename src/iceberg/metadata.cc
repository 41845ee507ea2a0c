// Table metadata JSON (the Iceberg spec's "Table Metadata" and Appendix C; docs/iceberg.md).
#include "iceberg/metadata.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "io/uuid.h"
#include "util/json_guard.h"

namespace sluice::iceberg {
namespace {

using json = nlohmann::json;

// Keys modelled by TableMetadata; everything else is carried in `other`.
const char* const kModelled[] = {"format-version", "table-uuid", "location", "last-sequence-number",
                                 "last-updated-ms", "last-column-id", "schemas", "current-schema-id",
                                 "properties", "current-snapshot-id", "snapshots", "snapshot-log",
                                 "metadata-log", "schema", "partition-spec"};

json SnapshotToJson(const Snapshot& s) {
  json j = {{"snapshot-id", s.snapshot_id},
            {"sequence-number", s.sequence_number},
            {"timestamp-ms", s.timestamp_ms},
            {"manifest-list", s.manifest_list},
            {"summary", s.summary}};
  if (s.parent_snapshot_id) j["parent-snapshot-id"] = *s.parent_snapshot_id;
  if (s.schema_id) j["schema-id"] = *s.schema_id;
  return j;
}

Result<Snapshot> SnapshotFromJson(const json& j) {
  Snapshot s;
  s.snapshot_id = j.at("snapshot-id").get<int64_t>();
  if (j.contains("parent-snapshot-id") && !j["parent-snapshot-id"].is_null()) {
    s.parent_snapshot_id = j["parent-snapshot-id"].get<int64_t>();
  }
  s.sequence_number = j.value("sequence-number", int64_t{0});
  s.timestamp_ms = j.at("timestamp-ms").get<int64_t>();
  if (!j.contains("manifest-list")) {
    return Status::NotImplemented("snapshot ", s.snapshot_id, " has no manifest-list (v1 inline manifests)");
  }
  s.manifest_list = j["manifest-list"].get<std::string>();
  if (j.contains("summary")) {
    for (const auto& [k, v] : j["summary"].items()) s.summary[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (j.contains("schema-id") && !j["schema-id"].is_null()) s.schema_id = j["schema-id"].get<int>();
  return s;
}

}  // namespace

std::string Snapshot::operation() const {
  auto it = summary.find("operation");
  return it == summary.end() ? "overwrite" : it->second;
}

const Schema* TableMetadata::CurrentSchema() const {
  for (const auto& s : schemas) {
    if (s.schema_id == current_schema_id) return &s;
  }
  return nullptr;
}

const Snapshot* TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? FindSnapshot(*current_snapshot_id) : nullptr;
}

const Snapshot* TableMetadata::FindSnapshot(int64_t id) const {
  for (const auto& s : snapshots) {
    if (s.snapshot_id == id) return &s;
  }
  return nullptr;
}

bool TableMetadata::Partitioned() const {
  int spec_id = other.value("default-spec-id", 0);
  for (const auto& spec : other.value("partition-specs", json::array())) {
    if (spec.value("spec-id", 0) == spec_id) return !spec.value("fields", json::array()).empty();
  }
  return false;
}

Result<PartitionSpec> TableMetadata::DefaultPartitionSpec() const {
  int spec_id = other.value("default-spec-id", 0);
  for (const auto& spec : other.value("partition-specs", json::array())) {
    if (spec.value("spec-id", 0) == spec_id) {
      return util::GuardJson("Partition spec " + std::to_string(spec_id) + " of the Iceberg table at " + location,
                             [&] { return PartitionSpec::FromJson(spec); });
    }
  }
  return PartitionSpec{};
}

json TableMetadata::ToJson() const {
  json j = other;
  j["format-version"] = 2;
  j["table-uuid"] = table_uuid;
  j["location"] = location;
  j["last-sequence-number"] = last_sequence_number;
  j["last-updated-ms"] = last_updated_ms;
  j["last-column-id"] = last_column_id;
  j["schemas"] = json::array();
  for (const auto& s : schemas) j["schemas"].push_back(s.ToJson());
  j["current-schema-id"] = current_schema_id;
  j["properties"] = properties;
  j["snapshots"] = json::array();
  for (const auto& s : snapshots) j["snapshots"].push_back(SnapshotToJson(s));
  j["snapshot-log"] = json::array();
  for (const auto& [ts, id] : snapshot_log) j["snapshot-log"].push_back({{"timestamp-ms", ts}, {"snapshot-id", id}});
  j["metadata-log"] = json::array();
  for (const auto& [ts, f] : metadata_log) j["metadata-log"].push_back({{"timestamp-ms", ts}, {"metadata-file", f}});
  if (current_snapshot_id) {
    j["current-snapshot-id"] = *current_snapshot_id;
    j["refs"]["main"] = {{"snapshot-id", *current_snapshot_id}, {"type", "branch"}};
  } else {
    j.erase("current-snapshot-id");
    if (j.contains("refs")) j["refs"].erase("main");
  }
  return j;
}

std::string TableMetadata::ToJsonText() const { return ToJson().dump(2); }

Result<TableMetadata> TableMetadata::FromJson(const json& j) {
  TableMetadata m;
  if (j.value("format-version", 1) != 2) {
    return Status::NotImplemented("format-version ", j.value("format-version", 1), " (sluice reads and writes v2)");
  }
  m.table_uuid = j.value("table-uuid", "");
  m.location = j.at("location").get<std::string>();
  m.last_sequence_number = j.value("last-sequence-number", int64_t{0});
  m.last_updated_ms = j.value("last-updated-ms", int64_t{0});
  m.last_column_id = j.value("last-column-id", 0);
  for (const auto& s : j.at("schemas")) {
    ARROW_ASSIGN_OR_RAISE(auto schema, Schema::FromJson(s));
    m.schemas.push_back(std::move(schema));
  }
  m.current_schema_id = j.value("current-schema-id", 0);
  if (j.contains("properties")) {
    for (const auto& [k, v] : j["properties"].items()) m.properties[k] = v.get<std::string>();
  }
  if (j.contains("current-snapshot-id") && !j["current-snapshot-id"].is_null() &&
      j["current-snapshot-id"].get<int64_t>() != -1) {
    m.current_snapshot_id = j["current-snapshot-id"].get<int64_t>();
  }
  for (const auto& s : j.value("snapshots", json::array())) {
    ARROW_ASSIGN_OR_RAISE(auto snap, SnapshotFromJson(s));
    m.snapshots.push_back(std::move(snap));
  }
  for (const auto& e : j.value("snapshot-log", json::array())) {
    m.snapshot_log.emplace_back(e.at("timestamp-ms").get<int64_t>(), e.at("snapshot-id").get<int64_t>());
  }
  for (const auto& e : j.value("metadata-log", json::array())) {
    m.metadata_log.emplace_back(e.at("timestamp-ms").get<int64_t>(), e.at("metadata-file").get<std::string>());
  }
  m.other = j;
  for (const char* k : kModelled) m.other.erase(k);
  if (!m.CurrentSchema()) return Status::Invalid("current-schema-id ", m.current_schema_id, " is not in schemas");
  return m;
}

Result<TableMetadata> TableMetadata::Parse(const std::string& text, const std::string& what) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Status::Invalid("Iceberg metadata file ", what, " is not valid JSON");
  return util::GuardJson("Iceberg metadata file " + what, [&]() -> Result<TableMetadata> {
    auto m = FromJson(j);
    if (!m.ok()) return m.status().WithMessage("Iceberg metadata file ", what, ": ", m.status().message());
    return m;
  });
}

TableMetadata NewTableMetadata(const std::string& location, const Schema& schema,
                               std::map<std::string, std::string> properties, int64_t now_ms,
                               const PartitionSpec& spec) {
  TableMetadata m;
  m.table_uuid = io::RandomUuid();
  m.location = location;
  m.last_updated_ms = now_ms;
  m.schemas = {schema};
  m.schemas[0].schema_id = 0;
  m.current_schema_id = 0;
  m.last_column_id = schema.HighestFieldId();
  properties.emplace("write.format.default", "parquet");
  m.properties = std::move(properties);
  PartitionSpec initial = spec;
  initial.spec_id = 0;
  m.other = {{"partition-specs", json::array({initial.ToJson()})},
             {"default-spec-id", 0},
             {"last-partition-id", initial.LastFieldId()},
             {"sort-orders", json::array({{{"order-id", 0}, {"fields", json::array()}}})},
             {"default-sort-order-id", 0},
             {"refs", json::object()}};
  return m;
}

void SetCurrentSnapshot(TableMetadata* m, Snapshot snapshot, const std::string& previous_metadata_file,
                        int64_t now_ms) {
  // Java refuses logs that go back in time: never let our clock step behind the last entry.
  int64_t ts = std::max(now_ms, m->last_updated_ms);
  if (!m->snapshot_log.empty()) ts = std::max(ts, m->snapshot_log.back().first);
  snapshot.timestamp_ms = ts;
  if (!previous_metadata_file.empty()) m->metadata_log.emplace_back(m->last_updated_ms, previous_metadata_file);
  m->last_sequence_number = snapshot.sequence_number;
  m->current_snapshot_id = snapshot.snapshot_id;
  m->snapshot_log.emplace_back(ts, snapshot.snapshot_id);
  m->snapshots.push_back(std::move(snapshot));
  m->last_updated_ms = ts;
}

void AddCurrentSchema(TableMetadata* m, Schema schema, const std::string& previous_metadata_file, int64_t now_ms) {
  int id = 0;
  for (const auto& s : m->schemas) id = std::max(id, s.schema_id + 1);
  schema.schema_id = id;
  m->last_column_id = std::max(m->last_column_id, schema.HighestFieldId());
  m->current_schema_id = id;
  m->schemas.push_back(std::move(schema));
  if (!previous_metadata_file.empty()) m->metadata_log.emplace_back(m->last_updated_ms, previous_metadata_file);
  while (m->metadata_log.size() > 100) m->metadata_log.erase(m->metadata_log.begin());  // as snapshot commits
  m->last_updated_ms = std::max(now_ms, m->last_updated_ms);
}

int64_t NewSnapshotId(const TableMetadata& metadata) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  while (true) {
    auto id = static_cast<int64_t>(rng() & 0x7fffffffffffffffULL);
    if (id != 0 && !metadata.FindSnapshot(id)) return id;
  }
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace sluice::iceberg
