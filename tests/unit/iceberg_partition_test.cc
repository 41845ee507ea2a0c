// Iceberg partition specs: term parsing, binding, the transforms (against the spec's bucket
// hash vectors, Appendix B), directory names, manifest partition tuples and summaries.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "iceberg/avro.h"
#include "iceberg/manifest.h"
#include "iceberg/metadata.h"
#include "iceberg/partition_spec.h"
#include "iceberg/schema.h"
#include "support/status.h"
#include "support/temp_dir.h"
#include "unit/test_util_arrow.h"

namespace sluice::iceberg {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

std::string LongBytes(int64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return s;
}

TEST(IcebergPartition, Murmur3MatchesTheSpecsBucketHashVectors) {
  EXPECT_EQ(Murmur3Hash32(LongBytes(34)), 2017239379);                 // int and long 34
  EXPECT_EQ(Murmur3Hash32(LongBytes(17486)), -653330422);              // date 2017-11-16
  EXPECT_EQ(Murmur3Hash32(LongBytes(1510871468000000)), -2047944441);  // timestamp 2017-11-16T22:31:08
  EXPECT_EQ(Murmur3Hash32("iceberg"), 1210000089);
  EXPECT_EQ(Murmur3Hash32(std::string("\x05\x8c", 2)), -500754589);    // decimal 14.20
  EXPECT_EQ(Murmur3Hash32(std::string("\x00\x01\x02\x03", 4)), -188683207);
}

TEST(IcebergPartition, TermsParseSparkSpellingsAndRefuseNonsenseQuotingTheTerm) {
  auto terms = ParsePartitionTerms("days(ts), bucket(16, id), truncate(4, name), country, HOURS(ts), years(ts)");
  ASSERT_OK(terms);
  std::vector<std::string> text;
  for (const auto& t : *terms) text.push_back(t.ToString());
  EXPECT_EQ(text, (std::vector<std::string>{"day(ts)", "bucket(16, id)", "truncate(4, name)", "country", "hour(ts)",
                                            "year(ts)"}));
  auto swapped = ParsePartitionTerm("truncate(name, 4)");
  ASSERT_OK(swapped);
  EXPECT_EQ(swapped->parameter, 4);
  EXPECT_EQ(swapped->column, "name");
  EXPECT_THAT(ParsePartitionTerm("week(ts)").status().message(), HasSubstr("Unknown partition transform 'week'"));
  EXPECT_THAT(ParsePartitionTerm("bucket(id)").status().message(), HasSubstr("'bucket(id)' takes a number"));
  EXPECT_THAT(ParsePartitionTerm("bucket(0, id)").status().message(), HasSubstr("must be positive"));
  EXPECT_THAT(ParsePartitionTerms("day(ts), days(ts)").status().message(), HasSubstr("day(ts) twice"));
  EXPECT_TRUE(ParsePartitionTerms("  ")->empty());
}

Schema Events() {
  return *SchemaFromArrow(*arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                                          arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                                          arrow::field("d", arrow::date32()), arrow::field("n", arrow::int32())}));
}

TEST(IcebergPartition, BindingGivesIdsFrom1000AndJavaNamesAndRefusesWrongColumns) {
  auto spec = BindPartitionSpec(*ParsePartitionTerms("days(ts), bucket(16, id), truncate(4, name), n"), Events());
  ASSERT_OK(spec);
  EXPECT_EQ(spec->ToJson(), json::parse(R"({"spec-id": 0, "fields": [
      {"source-id": 3, "field-id": 1000, "name": "ts_day", "transform": "day"},
      {"source-id": 1, "field-id": 1001, "name": "id_bucket", "transform": "bucket[16]"},
      {"source-id": 2, "field-id": 1002, "name": "name_trunc", "transform": "truncate[4]"},
      {"source-id": 5, "field-id": 1003, "name": "n", "transform": "identity"}]})"));
  EXPECT_EQ(spec->LastFieldId(), 1003);
  auto back = PartitionSpec::FromJson(spec->ToJson());
  ASSERT_OK(back);
  EXPECT_TRUE(back->SameTerms(*spec));
  EXPECT_EQ(back->Describe(Events()), "day(ts), bucket(16, id), truncate(4, name), n");
  EXPECT_THAT(BindPartitionSpec(*ParsePartitionTerms("day(when)"), Events()).status().message(),
              HasSubstr("column 'when' is not among the table's columns (id, name, ts, d, n)"));
  EXPECT_THAT(BindPartitionSpec(*ParsePartitionTerms("hour(d)"), Events()).status().message(),
              HasSubstr("transform hour does not take column 'd' of type date"));
  EXPECT_EQ(PartitionSpec{}.LastFieldId(), 999);
}

std::shared_ptr<arrow::Table> EventRows() {
  auto schema = *ToArrowSchema(Events());
  auto batch = sluice::testing::BatchFromJson(schema, R"([
    {"id": 34, "name": "iceberg", "ts": "2024-05-01 10:15:00", "d": "2017-11-16", "n": -1},
    {"id": 1, "name": "ice", "ts": "2024-05-01 23:59:59", "d": "1969-12-31", "n": 9},
    {"id": 2, "name": "a b/c", "ts": "1969-12-31 23:00:00", "d": null, "n": 10},
    {"id": 3, "name": null, "ts": null, "d": "2017-11-16", "n": null}])");
  return *arrow::Table::FromRecordBatches({batch});
}

// The partition tuple of each row (one-row parts) under `terms`, with its directory.
std::vector<std::pair<json, std::string>> TupleOfEachRow(const std::string& terms) {
  auto spec = *BindPartitionSpec(*ParsePartitionTerms(terms), Events());
  std::vector<std::pair<json, std::string>> out;
  auto rows = EventRows();
  for (int64_t r = 0; r < rows->num_rows(); ++r) {
    auto parts = SplitByPartitionSpec(*rows->Slice(r, 1), spec, Events());
    EXPECT_OK(parts);
    EXPECT_EQ(parts->size(), 1u);
    out.emplace_back(parts->front().partition, parts->front().dir);
  }
  return out;
}

TEST(IcebergPartition, TimeTransformsFloorAndNameDirectoriesAsIcebergJava) {
  auto t = TupleOfEachRow("day(ts), hour(ts), month(ts), year(d)");
  EXPECT_EQ(t[0].first, json::parse(R"({"ts_day": 19844, "ts_hour": 476266, "ts_month": 652, "d_year": 47})"));
  EXPECT_EQ(t[0].second, "ts_day=2024-05-01/ts_hour=2024-05-01-10/ts_month=2024-05/d_year=2017");
  EXPECT_EQ(t[1].second, "ts_day=2024-05-01/ts_hour=2024-05-01-23/ts_month=2024-05/d_year=1969");
  // Before the epoch: floored, not truncated toward zero.
  EXPECT_EQ(t[2].first, json::parse(R"({"ts_day": -1, "ts_hour": -1, "ts_month": -1, "d_year": null})"));
  EXPECT_EQ(t[2].second, "ts_day=1969-12-31/ts_hour=1969-12-31-23/ts_month=1969-12/d_year=null");
}

TEST(IcebergPartition, BucketTruncateAndIdentityValuesAndEscapedDirectories) {
  auto t = TupleOfEachRow("bucket(16, id), bucket(8, name), bucket(4, d), truncate(3, name), truncate(10, n), name");
  // bucket = (hash & INT_MAX) % N: 34 -> 2017239379 % 16 = 3, "iceberg" -> 1210000089 % 8 = 1,
  // 2017-11-16 -> (-653330422 & INT_MAX) % 4 = 2.
  EXPECT_EQ(t[0].first["id_bucket"], 3);
  EXPECT_EQ(t[0].first["name_bucket"], 1);
  EXPECT_EQ(t[0].first["d_bucket"], 2);
  EXPECT_EQ(t[0].first["name_trunc"], "ice");
  EXPECT_EQ(t[0].first["n_trunc"], -10);
  EXPECT_EQ(t[1].first["n_trunc"], 0);
  EXPECT_EQ(t[2].first["n_trunc"], 10);
  EXPECT_EQ(t[2].second, "id_bucket=" + t[2].first["id_bucket"].dump() + "/name_bucket=" +
                             t[2].first["name_bucket"].dump() + "/d_bucket=null/name_trunc=a+b/n_trunc=10/name=a+b%2Fc");
  EXPECT_TRUE(t[3].first["name"].is_null());
}

TEST(IcebergPartition, SplitKeepsInputOrderWithinAPartitionAndIsDeterministic) {
  auto spec = *BindPartitionSpec(*ParsePartitionTerms("d"), Events());
  auto parts = SplitByPartitionSpec(*EventRows(), spec, Events());
  ASSERT_OK(parts);
  ASSERT_EQ(parts->size(), 3u);  // 2017-11-16 (rows 0 and 3), 1969-12-31, null
  int64_t total = 0;
  for (const auto& p : *parts) {
    total += p.rows->num_rows();
    if (p.dir == "d=2017-11-16") {
      auto ids = std::static_pointer_cast<arrow::Int64Array>(p.rows->column(0)->chunk(0));
      EXPECT_EQ(ids->Value(0), 34);
      EXPECT_EQ(ids->Value(1), 3);
    }
  }
  EXPECT_EQ(total, 4);
}

TEST(IcebergPartition, ManifestsCarryTheTupleAndTheListSummarisesBounds) {
  sluice::testing::TempDir dir;
  auto fs = io::LocalFileSystem();
  const Schema schema = Events();
  auto spec = *BindPartitionSpec(*ParsePartitionTerms("day(ts), name"), schema);
  std::vector<ManifestEntry> entries(3);
  entries[0].file.path = "file:///t/a.parquet";
  entries[0].file.partition = {{"ts_day", 19844}, {"name", "b"}};
  entries[1].file.path = "file:///t/b.parquet";
  entries[1].file.partition = {{"ts_day", 19000}, {"name", nullptr}};
  entries[2].file.path = "file:///t/c.parquet";
  entries[2].file.partition = {{"ts_day", 19900}, {"name", "a"}};
  auto m = WriteManifest(fs.get(), {dir.Sub("m.avro"), FileUri(dir.Sub("m.avro"))}, schema, spec, entries, 7, 1);
  ASSERT_OK(m);
  auto read = ReadManifest(fs.get(), *m);
  ASSERT_OK(read);
  EXPECT_EQ((*read)[1].file.partition, entries[1].file.partition);
  EXPECT_EQ((*read)[2].file.partition, entries[2].file.partition);
  ASSERT_EQ(m->partitions.size(), 2u);
  auto bytes = [](const json& b) { return std::string(b.get_binary().begin(), b.get_binary().end()); };
  EXPECT_FALSE(m->partitions[0]["contains_null"].get<bool>());
  EXPECT_EQ(bytes(m->partitions[0]["lower_bound"]), std::string("\x38\x4a\x00\x00", 4));  // 19000 as 4-byte int
  EXPECT_EQ(bytes(m->partitions[0]["upper_bound"]), std::string("\xbc\x4d\x00\x00", 4));  // 19900
  EXPECT_TRUE(m->partitions[1]["contains_null"].get<bool>());
  EXPECT_EQ(bytes(m->partitions[1]["lower_bound"]), "a");
  EXPECT_EQ(bytes(m->partitions[1]["upper_bound"]), "b");
  // The header names the spec; the entry schema's r102 record holds the partition field ids.
  auto contents = avro::ReadContainer(*fs->ReadFile(dir.Sub("m.avro")), "m.avro");
  ASSERT_OK(contents);
  EXPECT_EQ(json::parse(contents->metadata["partition-spec"]), spec.FieldsJson());
  EXPECT_THAT(contents->metadata["avro.schema"], HasSubstr(R"("field-id":1000)"));
  EXPECT_THAT(contents->metadata["avro.schema"], HasSubstr(R"("logicalType":"date")"));
}

TEST(IcebergPartition, NewTableMetadataRecordsTheSpecAndLastPartitionId) {
  const Schema schema = Events();
  auto spec = *BindPartitionSpec(*ParsePartitionTerms("bucket(16, id), day(ts)"), schema);
  auto m = NewTableMetadata("file:///wh/db/t", schema, {}, 1000, spec);
  auto j = m.ToJson();
  EXPECT_EQ(j["last-partition-id"], 1001);
  EXPECT_EQ(j["default-spec-id"], 0);
  EXPECT_EQ(j["partition-specs"][0], spec.ToJson());
  EXPECT_TRUE(m.Partitioned());
  auto back = m.DefaultPartitionSpec();
  ASSERT_OK(back);
  EXPECT_TRUE(back->SameTerms(spec));
  EXPECT_EQ(NewTableMetadata("file:///wh/db/u", schema, {}, 1000).ToJson()["last-partition-id"], 999);
}

}  // namespace
}  // namespace sluice::iceberg
