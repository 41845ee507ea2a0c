// Iceberg format pieces: schema <-> Arrow with field ids, single-value bound encoding, data
// file metrics, manifests, table metadata JSON and snapshot production.
#include <arrow/api.h>
#include <gtest/gtest.h>
#include <parquet/arrow/reader.h>
#include <parquet/file_reader.h>

#include "iceberg/data_file.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "iceberg/schema.h"
#include "iceberg/snapshot_update.h"
#include "support/status.h"
#include "support/temp_dir.h"
#include "unit/test_util_arrow.h"

namespace sluice::iceberg {
namespace {

using ::testing::HasSubstr;

using sluice::testing::TempDir;

std::shared_ptr<arrow::Schema> AllTypes() {
  return arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("n", arrow::int32()),
                        arrow::field("d", arrow::float64()), arrow::field("f", arrow::float32()),
                        arrow::field("ok", arrow::boolean()), arrow::field("s", arrow::utf8()),
                        arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO)),
                        arrow::field("tz", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                        arrow::field("day", arrow::date32()), arrow::field("amount", arrow::decimal128(10, 2))});
}

std::shared_ptr<arrow::Table> AllTypesRows() {
  auto batch = sluice::testing::BatchFromJson(AllTypes(), R"([
    {"id": 1, "n": 5, "d": 1.5, "f": 2.5, "ok": true, "s": "b", "ts": "2024-01-01 00:00:00", "tz": "2024-01-01 00:00:00", "day": "2024-01-02", "amount": "12.34"},
    {"id": 2, "n": -3, "d": null, "f": 0.5, "ok": false, "s": "a", "ts": "2024-01-01 00:00:01", "tz": "2024-01-01 00:00:01", "day": "2024-01-01", "amount": "-1.00"},
    {"id": 3, "n": null, "d": 7.0, "f": 1.0, "ok": null, "s": "zz", "ts": null, "tz": null, "day": null, "amount": null}])");
  return *arrow::Table::FromRecordBatches({batch});
}

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

TEST(IcebergSchema, ArrowColumnsMapToIcebergTypesWithIds) {
  auto schema = SchemaFromArrow(*AllTypes());
  ASSERT_OK(schema);
  std::vector<std::string> types;
  for (const auto& f : schema->fields) types.push_back(f.type);
  EXPECT_EQ(types, (std::vector<std::string>{"long", "int", "double", "float", "boolean", "string", "timestamp",
                                             "timestamptz", "date", "decimal(10, 2)"}));
  EXPECT_EQ(schema->fields[0].id, 1);
  EXPECT_TRUE(schema->fields[0].required);
  EXPECT_FALSE(schema->fields[1].required);
  auto arrow_schema = ToArrowSchema(*schema);
  ASSERT_OK(arrow_schema);
  EXPECT_EQ((*arrow_schema)->field(9)->metadata()->Get(kFieldIdKey).ValueOr(""), "10");
  EXPECT_TRUE((*arrow_schema)->field(7)->type()->Equals(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")));
  auto back = Schema::FromJson(schema->ToJson());
  ASSERT_OK(back);
  EXPECT_TRUE(back->SameColumns(*schema));
}

TEST(IcebergSchema, MismatchedColumnsAreRefusedByName) {
  auto table = *SchemaFromArrow(*arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8())}));
  auto wrong_type = arrow::schema({arrow::field("id", arrow::utf8()), arrow::field("name", arrow::utf8())});
  Status st = CheckWritable(*wrong_type, table, "lake.db.t");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("column 'id' is string in the query but long"));
  auto extra = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                              arrow::field("x", arrow::int64())});
  st = CheckWritable(*extra, table, "lake.db.t");
  EXPECT_THAT(st.message(), HasSubstr("column 'x'"));
  auto missing = arrow::schema({arrow::field("id", arrow::int64())});
  st = CheckWritable(*missing, table, "lake.db.t");
  EXPECT_THAT(st.message(), HasSubstr("'name' is missing"));
  auto promoted = arrow::schema({arrow::field("name", arrow::utf8()), arrow::field("id", arrow::int32())});
  EXPECT_OK(CheckWritable(*promoted, table, "lake.db.t"));
  auto nonsupported = arrow::schema({arrow::field("l", arrow::list(arrow::int64()))});
  EXPECT_FALSE(SchemaFromArrow(*nonsupported).ok());
}

TEST(IcebergSingleValue, BoundsUseTheSpecsBinaryEncoding) {
  EXPECT_EQ(*SingleValue(arrow::Int32Scalar(1)), Bytes({1, 0, 0, 0}));
  EXPECT_EQ(*SingleValue(arrow::Int64Scalar(-2)), Bytes({0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(*SingleValue(arrow::BooleanScalar(true)), Bytes({1}));
  EXPECT_EQ(*SingleValue(arrow::DoubleScalar(1.0)), Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  EXPECT_EQ(*SingleValue(arrow::FloatScalar(1.0f)), Bytes({0, 0, 0x80, 0x3f}));
  EXPECT_EQ(*SingleValue(arrow::StringScalar("ab")), "ab");
  EXPECT_EQ(*SingleValue(arrow::Date32Scalar(19000)), Bytes({0x38, 0x4a, 0, 0}));
  auto dec = [](int64_t unscaled) { return arrow::Decimal128Scalar(arrow::Decimal128(unscaled), arrow::decimal128(10, 2)); };
  EXPECT_EQ(*SingleValue(dec(1234)), Bytes({0x04, 0xd2}));  // minimal big-endian two's complement
  EXPECT_EQ(*SingleValue(dec(-100)), Bytes({0x9c}));
  EXPECT_EQ(*SingleValue(dec(128)), Bytes({0x00, 0x80}));
  EXPECT_EQ(*SingleValue(dec(0)), Bytes({0x00}));
}

TEST(IcebergDataFile, ParquetCarriesFieldIdsAndMetricsAreExact) {
  TempDir dir;
  auto fs = io::LocalFileSystem();
  auto schema = *SchemaFromArrow(*AllTypes());
  auto rows = *ConformToSchema(*AllTypesRows(), schema, "t");
  auto file = WriteDataFile(fs.get(), {dir.Sub("f.parquet"), FileUri(dir.Sub("f.parquet"))}, *rows, schema);
  ASSERT_OK(file);
  EXPECT_EQ(file->record_count, 3);
  EXPECT_EQ(file->file_size, static_cast<int64_t>(std::filesystem::file_size(dir.Sub("f.parquet"))));
  EXPECT_EQ(file->value_counts.at(3), 3);
  EXPECT_EQ(file->null_value_counts.at(3), 1);
  EXPECT_EQ(file->nan_value_counts.at(3), 0);
  EXPECT_EQ(file->lower_bounds.at(2), Bytes({0xfd, 0xff, 0xff, 0xff}));  // n: -3
  EXPECT_EQ(file->upper_bounds.at(2), Bytes({5, 0, 0, 0}));
  EXPECT_EQ(file->lower_bounds.at(6), "a");
  EXPECT_EQ(file->upper_bounds.at(6), "zz");
  EXPECT_EQ(file->lower_bounds.at(10), Bytes({0x9c}));  // -1.00 -> unscaled -100
  EXPECT_EQ(file->column_sizes.size(), 10u);
  ASSERT_EQ(file->split_offsets.size(), 1u);
  EXPECT_EQ(file->split_offsets[0], 4);

  auto reader = parquet::ParquetFileReader::OpenFile(dir.Sub("f.parquet"));
  auto pq_schema = reader->metadata()->schema();
  for (int c = 0; c < pq_schema->num_columns(); ++c) {
    EXPECT_EQ(pq_schema->Column(c)->schema_node()->field_id(), c + 1);
  }
  auto back = ReadDataFile(fs.get(), *file, schema);
  ASSERT_OK(back);
  EXPECT_TRUE((*back)->Equals(*rows)) << (*back)->ToString() << rows->ToString();
}

// Data files follow the file sink's dictionary rule (util/parquet_dictionary.h): a column of
// distinct values is written plain, a repeating one with a dictionary.
TEST(IcebergDataFile, DictionaryOnlyForColumnsThatRepeat) {
  TempDir dir;
  auto fs = io::LocalFileSystem();
  auto arrow_schema = arrow::schema({arrow::field("id", arrow::int64(), false), arrow::field("s", arrow::utf8())});
  arrow::Int64Builder ids;
  arrow::StringBuilder tags;
  for (int64_t i = 0; i < 5000; ++i) {
    ASSERT_OK(ids.Append(i * 31));
    ASSERT_OK(tags.Append(i % 2 ? "odd" : "even"));
  }
  auto schema = *SchemaFromArrow(*arrow_schema);
  auto rows = *ConformToSchema(*arrow::Table::Make(arrow_schema, {*ids.Finish(), *tags.Finish()}), schema, "t");
  ASSERT_OK(WriteDataFile(fs.get(), {dir.Sub("f.parquet"), FileUri(dir.Sub("f.parquet"))}, *rows, schema));
  auto reader = parquet::ParquetFileReader::OpenFile(dir.Sub("f.parquet"));
  auto group = reader->metadata()->RowGroup(0);
  EXPECT_FALSE(group->ColumnChunk(0)->has_dictionary_page());
  EXPECT_TRUE(group->ColumnChunk(1)->has_dictionary_page());
  auto back = ReadDataFile(fs.get(), *WriteDataFile(fs.get(), {dir.Sub("g.parquet"), FileUri(dir.Sub("g.parquet"))},
                                                   *rows, schema),
                           schema);
  ASSERT_OK(back);
  EXPECT_TRUE((*back)->Equals(*rows));
}

TEST(IcebergManifest, EntriesAndListRoundTripWithInheritance) {
  TempDir dir;
  auto fs = io::LocalFileSystem();
  auto schema = *SchemaFromArrow(*AllTypes());
  DataFile f;
  f.path = "file:///x/a.parquet";
  f.record_count = 7;
  f.file_size = 1000;
  f.value_counts = {{1, 7}};
  f.lower_bounds = {{1, Bytes({1, 0, 0, 0, 0, 0, 0, 0})}};
  ManifestEntry added;
  added.file = f;
  ManifestEntry existing = added;
  existing.status = EntryStatus::kExisting;
  existing.snapshot_id = 5;
  existing.sequence_number = 1;
  existing.file_sequence_number = 1;
  existing.file.path = "file:///x/b.parquet";
  auto m = WriteManifest(fs.get(), {dir.Sub("m.avro"), FileUri(dir.Sub("m.avro"))}, schema, PartitionSpec{},
                         {added, existing}, 9, 2);
  ASSERT_OK(m);
  EXPECT_EQ(m->length, static_cast<int64_t>(std::filesystem::file_size(dir.Sub("m.avro"))));
  EXPECT_EQ(m->added_files_count, 1);
  EXPECT_EQ(m->existing_rows_count, 7);
  EXPECT_EQ(m->min_sequence_number, 1);
  ASSERT_OK(WriteManifestList(fs.get(), dir.Sub("l.avro"), 9, std::nullopt, 2, {*m}));
  auto list = ReadManifestList(fs.get(), io::PathToUri(dir.Sub("l.avro")));
  ASSERT_OK(list);
  ASSERT_EQ(list->size(), 1u);
  auto entries = ReadManifest(fs.get(), (*list)[0]);
  ASSERT_OK(entries);
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].snapshot_id, 9);      // inherited
  EXPECT_EQ((*entries)[0].sequence_number, 2);  // inherited (ADDED)
  EXPECT_EQ((*entries)[1].sequence_number, 1);  // explicit (EXISTING)
  EXPECT_EQ((*entries)[0].file.lower_bounds, f.lower_bounds);
}

TEST(IcebergMetadata, JsonRoundTripKeepsUnknownKeysAndExactIds) {
  auto schema = *SchemaFromArrow(*AllTypes());
  auto m = NewTableMetadata("file:///wh/db/t", schema, {}, 1000);
  m.other["statistics"] = nlohmann::json::array();
  Snapshot s;
  s.snapshot_id = 5123456789012345678;
  s.sequence_number = 1;
  s.manifest_list = "file:///wh/db/t/metadata/snap.avro";
  s.summary = {{"operation", "append"}};
  SetCurrentSnapshot(&m, s, "file:///wh/db/t/metadata/v1.metadata.json", 900);  // clock behind: clamped
  auto text = m.ToJsonText();
  EXPECT_THAT(text, HasSubstr("5123456789012345678"));
  auto back = TableMetadata::Parse(text, "v2");
  ASSERT_OK(back);
  EXPECT_EQ(back->current_snapshot_id, 5123456789012345678);
  EXPECT_EQ(back->CurrentSnapshot()->timestamp_ms, 1000);
  EXPECT_EQ(back->metadata_log.size(), 1u);
  auto j = back->ToJson();
  EXPECT_EQ(j["refs"]["main"]["snapshot-id"], 5123456789012345678);
  EXPECT_EQ(j["last-partition-id"], 999);
  EXPECT_TRUE(j.contains("statistics"));
  EXPECT_FALSE(j.contains("schema"));
}

TEST(IcebergSnapshot, AppendsCarryManifestsAndOverwriteDeletesEveryLiveFile) {
  TempDir dir;
  auto fs = io::LocalFileSystem();
  auto schema = *SchemaFromArrow(*AllTypes());
  auto rows = *ConformToSchema(*AllTypesRows(), schema, "t");
  auto meta = NewTableMetadata(io::PathToUri(dir.path()), schema, {}, NowMs());
  auto add = [&](SnapshotChange::Kind kind, const std::string& name) {
    SnapshotChange c;
    c.kind = kind;
    c.added = {*WriteDataFile(fs.get(), {dir.Sub(name), FileUri(dir.Sub(name))}, *rows, schema)};
    auto next = ApplySnapshotChange(fs.get(), meta, "file:///prev.json", c);
    EXPECT_OK(next);
    meta = *next;
  };
  add(SnapshotChange::Kind::kAppend, "a.parquet");
  add(SnapshotChange::Kind::kAppend, "b.parquet");
  auto summary = meta.CurrentSnapshot()->summary;
  EXPECT_EQ(summary["operation"], "append");
  EXPECT_EQ(summary["total-records"], "6");
  EXPECT_EQ(summary["total-data-files"], "2");
  EXPECT_EQ(summary["total-delete-files"], "0");
  EXPECT_EQ(meta.last_sequence_number, 2);
  EXPECT_EQ(LiveEntries(fs.get(), meta)->size(), 2u);

  add(SnapshotChange::Kind::kOverwrite, "c.parquet");
  summary = meta.CurrentSnapshot()->summary;
  EXPECT_EQ(summary["operation"], "overwrite");
  EXPECT_EQ(summary["deleted-data-files"], "2");
  EXPECT_EQ(summary["deleted-records"], "6");
  EXPECT_EQ(summary["total-records"], "3");
  auto live = *LiveEntries(fs.get(), meta);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].file.path, io::PathToUri(dir.Sub("c.parquet")));
  EXPECT_EQ(meta.snapshots.size(), 3u);
  EXPECT_EQ(meta.snapshots[2].parent_snapshot_id, meta.snapshots[1].snapshot_id);
}

}  // namespace
}  // namespace sluice::iceberg
