#include "fuzz/fuzz_targets.h"

#include <arrow/api.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/checkpoint.h"
#include "checkpoint/file_sink_log.h"
#include "checkpoint/metadata_log.h"
#include "iceberg/manifest.h"
#include "io/file_system.h"
#include "source/file_readers.h"
#include "source/json_simdjson_reader.h"
#include "sql/sql_script.h"

namespace sluice::fuzz {
namespace {

// A read-only filesystem in which every path holds the same bytes: lets the parsers that read
// through the filesystem seam (the metadata log, Iceberg manifests) see the fuzzer's input
// without touching the disk. Writes and streams are refused.
class OneFileSystem final : public io::FileSystem {
 public:
  explicit OneFileSystem(std::string content) : content_(std::move(content)) {}

  Result<std::string> ReadFile(const std::string&) override { return content_; }
  Result<std::vector<io::FileInfo>> List(const std::string& dir) override {
    return std::vector<io::FileInfo>{Info(io::JoinPath(dir, "0"))};
  }
  Result<std::vector<io::DirEntry>> ListNames(const std::string&) override {
    return std::vector<io::DirEntry>{io::DirEntry{"0", false}};
  }
  Result<std::optional<io::FileInfo>> Stat(const std::string& path) override {
    return std::optional<io::FileInfo>(Info(path));
  }
  Status MakeDirs(const std::string& dir) override { return ReadOnly(dir); }
  Status Delete(const std::string& path) override { return ReadOnly(path); }
  Status DeleteTree(const std::string& path) override { return ReadOnly(path); }
  Status Rename(const std::string& from, const std::string&, io::EntrySync) override { return ReadOnly(from); }
  Status WriteAtomic(const std::string& path, const std::string&, bool, io::EntrySync) override {
    return ReadOnly(path);
  }
  Status CreateExclusive(const std::string& path, const std::string&) override { return ReadOnly(path); }
  Status SyncDeferred() override { return Status::OK(); }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(const std::string& path) override {
    return ReadOnly(path);
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFile(const std::string& path, io::EntrySync) override {
    return ReadOnly(path);
  }
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(const std::string& path) override {
    return Status::NotImplemented("fuzz filesystem has no input streams: '", path, "'");
  }

 private:
  io::FileInfo Info(const std::string& path) const {
    io::FileInfo info;
    info.path = path;
    info.name = path.substr(path.rfind('/') + 1);
    info.size = static_cast<int64_t>(content_.size());
    return info;
  }
  static Status ReadOnly(const std::string& path) {
    return Status::NotImplemented("fuzz filesystem is read-only: cannot write '", path, "'");
  }
  std::string content_;
};

bool HasControlByte(const std::string& message) {
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) return true;
  }
  return false;
}

// A checkpoint error must describe damaged bytes, never echo them.
std::string Described(const Status& st, const char* parser) {
  if (st.ok() || !HasControlByte(st.message())) return {};
  return std::string(parser) + " echoed a raw control byte: " + st.ToString();
}

std::shared_ptr<arrow::Schema> RecordSchema() {
  static const auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                     arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                     arrow::field("_corrupt_record", arrow::utf8())});
  return schema;
}

// Nested columns, JSON only: a MAP (read by the simdjson reader alone) holding arrays of structs.
std::shared_ptr<arrow::Schema> NestedSchema() {
  static const auto schema = arrow::schema(
      {arrow::field("id", arrow::int64()),
       arrow::field("m", arrow::map(arrow::utf8(), arrow::list(arrow::struct_({arrow::field("x", arrow::float64()),
                                                                                arrow::field("s", arrow::utf8())})))),
       arrow::field("tags", arrow::list(arrow::utf8())), arrow::field("_corrupt_record", arrow::utf8())});
  return schema;
}

// json and csv: every parse mode (and for JSON both readers, the simdjson one and Arrow's, and a
// schema with nested columns); a decoded table must be valid Arrow data (UTF-8 included).
std::string RecordReader(std::string_view input, const char* format) {
  const auto buffer = arrow::Buffer::FromString(std::string(input));
  const bool json = std::string_view(format) == "json";
  struct Pass {
    source::JsonReader reader;
    std::shared_ptr<arrow::Schema> schema;
    const char* name;
  };
  std::vector<Pass> passes = {{source::JsonReader::kSimdjson, RecordSchema(), ""}};
  if (json) {
    passes = {{source::JsonReader::kSimdjson, RecordSchema(), " (simdjson)"},
              {source::JsonReader::kArrow, RecordSchema(), " (arrow)"},
              {source::JsonReader::kSimdjson, NestedSchema(), " (simdjson, nested columns)"}};
  }
  for (const auto& pass : passes) {
    for (auto mode :
         {source::ParseMode::kPermissive, source::ParseMode::kDropMalformed, source::ParseMode::kFailFast}) {
      source::FileFormatOptions options;
      options.mode = mode;
      options.format = format;
      options.header = true;
      options.json_reader = pass.reader;
      auto r = json ? source::ReadJsonLines(buffer, "/fuzz/a.json", pass.schema, options, false)
                    : source::ReadCsv(buffer, "/fuzz/a.csv", pass.schema, options, false);
      if (!r.ok()) continue;
      if (auto st = r->table->ValidateFull(); !st.ok()) {
        return std::string(format) + " reader" + pass.name + " (mode " + std::to_string(static_cast<int>(mode)) +
               ") produced an invalid table: " + st.ToString();
      }
    }
  }
  return {};
}

// The simdjson decoder reads lines of a learned layout without its parser (json_line_shape.h):
// with and without that, the same table or the same decline.
std::string JsonShapes(std::string_view input) {
  const auto buffer = arrow::Buffer::FromString(std::string(input));
  auto schema = *RecordSchema()->RemoveField(RecordSchema()->GetFieldIndex("_corrupt_record"));
  std::string why_shaped, why_parsed;
  auto shaped = source::DecodeJsonLinesSimdjson(buffer, schema, false, &why_shaped, nullptr, nullptr, true);
  auto parsed = source::DecodeJsonLinesSimdjson(buffer, schema, false, &why_parsed, nullptr, nullptr, false);
  if (shaped.ok() != parsed.ok()) {
    return "json layouts: one decode failed: " + shaped.status().ToString() + " / " + parsed.status().ToString();
  }
  if (!shaped.ok()) return {};
  const bool same = (*shaped == nullptr && *parsed == nullptr && why_shaped == why_parsed) ||
                    (*shaped != nullptr && *parsed != nullptr && (*shaped)->Equals(**parsed));
  if (same) return {};
  return "json layouts: lines of a learned layout read differently (" + why_shaped + " / " + why_parsed + ")";
}

std::string Json(std::string_view input) {
  auto bad = RecordReader(input, "json");
  return bad.empty() ? JsonShapes(input) : bad;
}
std::string Csv(std::string_view input) { return RecordReader(input, "csv"); }

// The checkpoint's offsets and commits entries, one line of the file sink log, and a metadata
// log entry with its version line: each parser reads the same bytes.
std::string Checkpoint(std::string_view input) {
  const std::string text(input);
  std::string bad = Described(checkpoint::OffsetSeq::Parse(text, "/ckpt/offsets/3").status(), "offsets");
  if (bad.empty()) bad = Described(checkpoint::CommitEntry::Parse(text, "/ckpt/commits/3").status(), "commits");
  if (bad.empty()) {
    bad = Described(checkpoint::SinkFileStatus::FromJson(text, "/out/_spark_metadata/0").status(), "file sink log");
  }
  if (bad.empty()) {
    checkpoint::MetadataLog log(std::make_shared<OneFileSystem>(text), "/ckpt/offsets");
    bad = Described(log.Get(0).status(), "metadata log");
  }
  return bad;
}

// An Iceberg manifest list and a manifest (Avro container files), read as sluice reads them.
std::string AvroManifest(std::string_view input) {
  OneFileSystem fs{std::string(input)};
  (void)iceberg::ReadManifestList(&fs, "file:///fuzz/metadata/snap-1.avro");
  iceberg::ManifestFile manifest;
  manifest.path = "file:///fuzz/metadata/m0.avro";
  manifest.sequence_number = 1;
  manifest.added_snapshot_id = 1;
  (void)iceberg::ReadManifest(&fs, manifest);
  return {};
}

std::string Sql(std::string_view input) {
  (void)sql::ParseScript(sql::SqlText("fuzz.sql", std::string(input)));
  return {};
}

}  // namespace

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"json", Json}, {"csv", Csv}, {"checkpoint", Checkpoint}, {"avro_manifest", AvroManifest}, {"sql", Sql}};
  return targets;
}

const Target* FindTarget(std::string_view name) {
  for (const auto& t : Targets()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

}  // namespace sluice::fuzz
