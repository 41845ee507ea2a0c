// Manifest and manifest list files. The Avro schemas follow the spec's v2 tables (field ids,
// "null"-first optional unions, int-keyed maps as arrays of k<id>_v<id> records with
// logicalType map, Java's record names manifest_entry / r2 / r102 / manifest_file / r508).
#include "iceberg/manifest.h"

#include <algorithm>

#include "iceberg/avro.h"
#include "util/json_guard.h"

namespace sluice::iceberg {
namespace {

using json = nlohmann::json;

json F(const std::string& name, int id, json type) { return {{"name", name}, {"field-id", id}, {"type", type}}; }
json Opt(const std::string& name, int id, json type) {
  return {{"name", name}, {"field-id", id}, {"type", json::array({"null", type})}, {"default", nullptr}};
}
json IntMap(const std::string& name, int id, int key_id, int value_id, const std::string& value_type) {
  json kv = {{"type", "record"},
             {"name", "k" + std::to_string(key_id) + "_v" + std::to_string(value_id)},
             {"fields", json::array({F("key", key_id, "int"), F("value", value_id, value_type)})}};
  return Opt(name, id, {{"type", "array"}, {"logicalType", "map"}, {"items", kv}});
}
json ListOf(const std::string& items, int element_id) {
  return {{"type", "array"}, {"items", items}, {"element-id", element_id}};
}

std::string BuildEntrySchema(const json& partition_type) {
  json data_file = {
      {"type", "record"},
      {"name", "r2"},
      {"fields",
       json::array({F("content", 134, "int"), F("file_path", 100, "string"), F("file_format", 101, "string"),
                    F("partition", 102, partition_type),
                    F("record_count", 103, "long"), F("file_size_in_bytes", 104, "long"),
                    IntMap("column_sizes", 108, 117, 118, "long"), IntMap("value_counts", 109, 119, 120, "long"),
                    IntMap("null_value_counts", 110, 121, 122, "long"),
                    IntMap("nan_value_counts", 137, 138, 139, "long"),
                    IntMap("lower_bounds", 125, 126, 127, "bytes"), IntMap("upper_bounds", 128, 129, 130, "bytes"),
                    Opt("key_metadata", 131, "bytes"), Opt("split_offsets", 132, ListOf("long", 133)),
                    Opt("equality_ids", 135, ListOf("int", 136)), Opt("sort_order_id", 140, "int")})}};
  json entry = {{"type", "record"},
                {"name", "manifest_entry"},
                {"fields", json::array({F("status", 0, "int"), Opt("snapshot_id", 1, "long"),
                                        Opt("sequence_number", 3, "long"), Opt("file_sequence_number", 4, "long"),
                                        F("data_file", 2, data_file)})}};
  return entry.dump();
}

std::string BuildListSchema() {
  json summary = {{"type", "record"},
                  {"name", "r508"},
                  {"fields", json::array({F("contains_null", 509, "boolean"), Opt("contains_nan", 518, "boolean"),
                                          Opt("lower_bound", 510, "bytes"), Opt("upper_bound", 511, "bytes")})}};
  json file = {
      {"type", "record"},
      {"name", "manifest_file"},
      {"fields",
       json::array({F("manifest_path", 500, "string"), F("manifest_length", 501, "long"),
                    F("partition_spec_id", 502, "int"), F("content", 517, "int"), F("sequence_number", 515, "long"),
                    F("min_sequence_number", 516, "long"), F("added_snapshot_id", 503, "long"),
                    F("added_files_count", 504, "int"), F("existing_files_count", 505, "int"),
                    F("deleted_files_count", 506, "int"), F("added_rows_count", 512, "long"),
                    F("existing_rows_count", 513, "long"), F("deleted_rows_count", 514, "long"),
                    Opt("partitions", 507, {{"type", "array"}, {"items", summary}, {"element-id", 508}}),
                    Opt("key_metadata", 519, "bytes")})}};
  return file.dump();
}

json Bytes(const std::string& s) { return json::binary(std::vector<std::uint8_t>(s.begin(), s.end())); }
std::string FromBytes(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  return std::string(j.get_binary().begin(), j.get_binary().end());
}

template <typename V, typename Conv>
json MapToJson(const std::map<int, V>& m, Conv conv) {
  if (m.empty()) return nullptr;
  json arr = json::array();
  for (const auto& [k, v] : m) arr.push_back({{"key", k}, {"value", conv(v)}});
  return arr;
}

template <typename V, typename Conv>
std::map<int, V> MapFromJson(const json& j, Conv conv) {
  std::map<int, V> m;
  if (!j.is_array()) return m;
  for (const auto& kv : j) m[kv.at("key").get<int>()] = conv(kv.at("value"));
  return m;
}

json OptLong(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }
std::optional<int64_t> LongOrNull(const json& j) {
  return j.is_null() ? std::nullopt : std::optional<int64_t>(j.get<int64_t>());
}

json EntryToJson(const ManifestEntry& e) {
  const DataFile& f = e.file;
  auto ident = [](int64_t v) { return v; };
  json offsets = f.split_offsets.empty() ? json(nullptr) : json(f.split_offsets);
  json data_file = {{"content", 0},
                    {"file_path", f.path},
                    {"file_format", f.format},
                    {"partition", f.partition.is_object() ? f.partition : json::object()},
                    {"record_count", f.record_count},
                    {"file_size_in_bytes", f.file_size},
                    {"column_sizes", MapToJson(f.column_sizes, ident)},
                    {"value_counts", MapToJson(f.value_counts, ident)},
                    {"null_value_counts", MapToJson(f.null_value_counts, ident)},
                    {"nan_value_counts", MapToJson(f.nan_value_counts, ident)},
                    {"lower_bounds", MapToJson(f.lower_bounds, Bytes)},
                    {"upper_bounds", MapToJson(f.upper_bounds, Bytes)},
                    {"key_metadata", nullptr},
                    {"split_offsets", offsets},
                    {"equality_ids", nullptr},
                    {"sort_order_id", 0}};
  return {{"status", static_cast<int>(e.status)},
          {"snapshot_id", OptLong(e.snapshot_id)},
          {"sequence_number", OptLong(e.sequence_number)},
          {"file_sequence_number", OptLong(e.file_sequence_number)},
          {"data_file", data_file}};
}

Result<ManifestEntry> EntryFromJson(const json& j) {
  ManifestEntry e;
  e.status = static_cast<EntryStatus>(j.at("status").get<int>());
  e.snapshot_id = LongOrNull(j.value("snapshot_id", json()));
  e.sequence_number = LongOrNull(j.value("sequence_number", json()));
  e.file_sequence_number = LongOrNull(j.value("file_sequence_number", json()));
  const json& d = j.at("data_file");
  if (d.value("content", 0) != 0) return Status::NotImplemented("delete files (content ", d["content"].dump(), ")");
  DataFile& f = e.file;
  f.path = d.at("file_path").get<std::string>();
  f.format = d.at("file_format").get<std::string>();
  f.record_count = d.at("record_count").get<int64_t>();
  f.file_size = d.at("file_size_in_bytes").get<int64_t>();
  auto to_long = [](const json& v) { return v.get<int64_t>(); };
  f.column_sizes = MapFromJson<int64_t>(d.value("column_sizes", json()), to_long);
  f.value_counts = MapFromJson<int64_t>(d.value("value_counts", json()), to_long);
  f.null_value_counts = MapFromJson<int64_t>(d.value("null_value_counts", json()), to_long);
  f.nan_value_counts = MapFromJson<int64_t>(d.value("nan_value_counts", json()), to_long);
  f.lower_bounds = MapFromJson<std::string>(d.value("lower_bounds", json()), FromBytes);
  f.upper_bounds = MapFromJson<std::string>(d.value("upper_bounds", json()), FromBytes);
  if (d.contains("partition") && d["partition"].is_object()) f.partition = d["partition"];
  if (d.contains("split_offsets") && d["split_offsets"].is_array()) {
    f.split_offsets = d["split_offsets"].get<std::vector<int64_t>>();
  }
  return e;
}

json ManifestFileToJson(const ManifestFile& m) {
  return {{"manifest_path", m.path},
          {"manifest_length", m.length},
          {"partition_spec_id", m.partition_spec_id},
          {"content", m.content},
          {"sequence_number", m.sequence_number},
          {"min_sequence_number", m.min_sequence_number},
          {"added_snapshot_id", m.added_snapshot_id},
          {"added_files_count", m.added_files_count},
          {"existing_files_count", m.existing_files_count},
          {"deleted_files_count", m.deleted_files_count},
          {"added_rows_count", m.added_rows_count},
          {"existing_rows_count", m.existing_rows_count},
          {"deleted_rows_count", m.deleted_rows_count},
          {"partitions", m.partitions.is_array() ? m.partitions : json::array()},
          {"key_metadata", nullptr}};
}

// Reads a count that older writers named differently (e.g. added_data_files_count).
int64_t Count(const json& j, const std::string& name, const std::string& old_name) {
  if (j.contains(name) && !j[name].is_null()) return j[name].get<int64_t>();
  if (j.contains(old_name) && !j[old_name].is_null()) return j[old_name].get<int64_t>();
  return 0;
}

}  // namespace

std::string ManifestEntryAvroSchema(const json& partition_type) { return BuildEntrySchema(partition_type); }

const std::string& ManifestFileAvroSchema() {
  static const std::string s = BuildListSchema();
  return s;
}

Result<ManifestFile> WriteManifest(io::FileSystem* fs, const TableFile& file, const Schema& schema,
                                   const PartitionSpec& spec, const std::vector<ManifestEntry>& entries,
                                   int64_t snapshot_id, int64_t sequence_number) {
  ManifestFile m;
  m.partition_spec_id = spec.spec_id;
  std::vector<json> tuples;
  m.path = file.uri;
  m.sequence_number = sequence_number;
  m.added_snapshot_id = snapshot_id;
  m.min_sequence_number = sequence_number;
  std::vector<json> records;
  for (const auto& e : entries) {
    records.push_back(EntryToJson(e));
    tuples.push_back(e.file.partition);
    const int64_t rows = e.file.record_count;
    switch (e.status) {
      case EntryStatus::kAdded: ++m.added_files_count; m.added_rows_count += rows; break;
      case EntryStatus::kExisting: ++m.existing_files_count; m.existing_rows_count += rows; break;
      case EntryStatus::kDeleted: ++m.deleted_files_count; m.deleted_rows_count += rows; break;
    }
    if (e.status != EntryStatus::kDeleted) {
      m.min_sequence_number = std::min(m.min_sequence_number, e.sequence_number.value_or(sequence_number));
    }
  }
  const std::map<std::string, std::string> header = {{"schema", schema.ToJson().dump()},
                                                     {"schema-id", std::to_string(schema.schema_id)},
                                                     {"partition-spec", spec.FieldsJson().dump()},
                                                     {"partition-spec-id", std::to_string(spec.spec_id)},
                                                     {"format-version", "2"},
                                                     {"content", "data"}};
  ARROW_ASSIGN_OR_RAISE(m.partitions, PartitionSummaries(spec, schema, tuples));
  ARROW_ASSIGN_OR_RAISE(auto partition_type, PartitionAvroType(spec, schema));
  ARROW_ASSIGN_OR_RAISE(auto bytes, avro::WriteContainer(ManifestEntryAvroSchema(partition_type), header, records));
  ARROW_RETURN_NOT_OK(fs->WriteAtomic(file.path, bytes, /*overwrite=*/false));
  m.length = static_cast<int64_t>(bytes.size());
  return m;
}

Result<std::vector<ManifestEntry>> ReadManifest(io::FileSystem* fs, const ManifestFile& manifest) {
  ARROW_ASSIGN_OR_RAISE(auto bytes, fs->ReadFile(LocalPath(fs, manifest.path)));
  ARROW_ASSIGN_OR_RAISE(auto contents, avro::ReadContainer(bytes, manifest.path));
  std::vector<ManifestEntry> entries;
  for (const auto& r : contents.records) {
    auto e = util::GuardJson("Manifest " + manifest.path, [&] { return EntryFromJson(r); });
    if (!e.ok()) return e.status().WithMessage("Manifest ", manifest.path, ": ", e.status().message());
    if (!e->snapshot_id) e->snapshot_id = manifest.added_snapshot_id;
    if (e->status == EntryStatus::kAdded) {
      if (!e->sequence_number) e->sequence_number = manifest.sequence_number;
      if (!e->file_sequence_number) e->file_sequence_number = manifest.sequence_number;
    }
    entries.push_back(std::move(*e));
  }
  return entries;
}

Status WriteManifestList(io::FileSystem* fs, const std::string& path, int64_t snapshot_id,
                         std::optional<int64_t> parent_snapshot_id, int64_t sequence_number,
                         const std::vector<ManifestFile>& manifests) {
  std::vector<json> records;
  for (const auto& m : manifests) records.push_back(ManifestFileToJson(m));
  const std::map<std::string, std::string> header = {
      {"snapshot-id", std::to_string(snapshot_id)},
      {"parent-snapshot-id", parent_snapshot_id ? std::to_string(*parent_snapshot_id) : "null"},
      {"sequence-number", std::to_string(sequence_number)},
      {"format-version", "2"}};
  ARROW_ASSIGN_OR_RAISE(auto bytes, avro::WriteContainer(ManifestFileAvroSchema(), header, records));
  return fs->WriteAtomic(path, bytes, /*overwrite=*/false);
}

namespace {

// One manifest_file record of a manifest list.
Result<ManifestFile> ManifestFileFromJson(const json& r) {
  ManifestFile m;
  m.path = r.at("manifest_path").get<std::string>();
  m.length = r.at("manifest_length").get<int64_t>();
  m.partition_spec_id = r.value("partition_spec_id", 0);
  m.content = r.contains("content") && !r["content"].is_null() ? r["content"].get<int>() : 0;
  m.sequence_number = r.contains("sequence_number") ? r["sequence_number"].get<int64_t>() : 0;
  m.min_sequence_number = r.contains("min_sequence_number") ? r["min_sequence_number"].get<int64_t>() : 0;
  m.added_snapshot_id = r.at("added_snapshot_id").get<int64_t>();
  m.added_files_count = static_cast<int>(Count(r, "added_files_count", "added_data_files_count"));
  m.existing_files_count = static_cast<int>(Count(r, "existing_files_count", "existing_data_files_count"));
  m.deleted_files_count = static_cast<int>(Count(r, "deleted_files_count", "deleted_data_files_count"));
  m.added_rows_count = Count(r, "added_rows_count", "added_rows_count");
  m.existing_rows_count = Count(r, "existing_rows_count", "existing_rows_count");
  m.deleted_rows_count = Count(r, "deleted_rows_count", "deleted_rows_count");
  m.partitions = r.value("partitions", json());
  return m;
}

}  // namespace

Result<std::vector<ManifestFile>> ReadManifestList(io::FileSystem* fs, const std::string& uri) {
  ARROW_ASSIGN_OR_RAISE(auto bytes, fs->ReadFile(LocalPath(fs, uri)));
  ARROW_ASSIGN_OR_RAISE(auto contents, avro::ReadContainer(bytes, uri));
  std::vector<ManifestFile> list;
  for (const auto& r : contents.records) {
    ARROW_ASSIGN_OR_RAISE(auto m, util::GuardJson("Manifest list " + uri, [&] { return ManifestFileFromJson(r); }));
    list.push_back(std::move(m));
  }
  return list;
}

}  // namespace sluice::iceberg
