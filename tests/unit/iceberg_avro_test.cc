// The hand-written Avro encoder/decoder and container framing (src/iceberg/avro.*): known
// byte encodings from the Avro specification, and round trips of every type the manifests use.
#include <gtest/gtest.h>

#include "iceberg/avro.h"
#include "iceberg/manifest.h"
#include "support/status.h"

namespace sluice::iceberg::avro {
namespace {

using ::testing::HasSubstr;

std::string Hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string LongBytes(int64_t v) {
  std::string out;
  WriteLong(v, &out);
  return out;
}

TEST(IcebergAvro, ZigZagVarintsMatchTheSpecification) {
  // Avro spec, "Binary Encoding": 0 -> 00, -1 -> 01, 1 -> 02, -2 -> 03, 2 -> 04, -64 -> 7f, 64 -> 80 01
  EXPECT_EQ(Hex(LongBytes(0)), "00");
  EXPECT_EQ(Hex(LongBytes(-1)), "01");
  EXPECT_EQ(Hex(LongBytes(1)), "02");
  EXPECT_EQ(Hex(LongBytes(-2)), "03");
  EXPECT_EQ(Hex(LongBytes(2)), "04");
  EXPECT_EQ(Hex(LongBytes(-64)), "7f");
  EXPECT_EQ(Hex(LongBytes(64)), "8001");
  for (int64_t v : {INT64_MIN, INT64_MAX, int64_t{-300}, int64_t{123456789012345}}) {
    std::string b = LongBytes(v);
    size_t pos = 0;
    auto back = ReadLong(b, &pos);
    ASSERT_OK(back);
    EXPECT_EQ(*back, v);
    EXPECT_EQ(pos, b.size());
  }
}

TEST(IcebergAvro, RecordEncodingMatchesTheSpecificationExample) {
  // {"a": 27 (long), "b": "foo"} -> 36 06 66 6f 6f (Avro spec, "Complex Types" record example)
  auto type = ParseSchema(std::string(
      R"({"type":"record","name":"test","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]})"));
  ASSERT_OK(type);
  std::string out;
  ASSERT_OK(Encode(**type, {{"a", 27}, {"b", "foo"}}, &out));
  EXPECT_EQ(Hex(out), "3606666f6f");
}

TEST(IcebergAvro, UnionsArraysMapsBytesRoundTrip) {
  const std::string schema = R"({"type":"record","name":"r","fields":[
    {"name":"opt","type":["null","long"]},
    {"name":"none","type":["null","string"]},
    {"name":"arr","type":{"type":"array","items":"int"}},
    {"name":"m","type":{"type":"map","values":"double"}},
    {"name":"b","type":"bytes"},
    {"name":"fx","type":{"type":"fixed","name":"f4","size":4}},
    {"name":"flag","type":"boolean"},
    {"name":"fl","type":"float"},
    {"name":"empty","type":{"type":"record","name":"e","fields":[]}}]})";
  auto type = ParseSchema(schema);
  ASSERT_OK(type);
  json value = {{"opt", -5},
                {"none", nullptr},
                {"arr", {1, 2, 3}},
                {"m", {{"x", 1.5}}},
                {"b", json::binary({0, 255, 7})},
                {"fx", json::binary({1, 2, 3, 4})},
                {"flag", true},
                {"fl", 0.25},
                {"empty", json::object()}};
  std::string out;
  ASSERT_OK(Encode(**type, value, &out));
  size_t pos = 0;
  auto back = Decode(**type, out, &pos);
  ASSERT_OK(back);
  EXPECT_EQ(pos, out.size());
  EXPECT_EQ(*back, value);
}

// Found by fuzzing: a block count of INT64_MIN (a negative count means "byte size follows")
// was negated, which overflows; it is refused as damaged data.
TEST(IcebergAvro, ABlockCountThatCannotBeNegatedIsRefused) {
  auto type = ParseSchema(std::string(R"({"type":"array","items":"int"})"));
  ASSERT_OK(type);
  // zigzag(INT64_MIN) = 2^64 - 1: nine 0xff bytes then 0x01.
  const std::string data = std::string(9, '\xff') + std::string("\x01\x00", 2);
  size_t pos = 0;
  auto back = Decode(**type, data, &pos);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("block count out of range"));
}

// Found by fuzzing: an array of nulls takes no bytes per item, so a damaged count of a billion
// items grew memory without bound; a count larger than the bytes left is refused.
TEST(IcebergAvro, ABlockLongerThanTheDataLeftIsRefused) {
  auto type = ParseSchema(std::string(R"({"type":"array","items":"null"})"));
  ASSERT_OK(type);
  const std::string data = std::string("\x80\xa8\xd6\xb9\x07", 5) + std::string(1, '\0');  // zigzag(10^9), then 0
  size_t pos = 0;
  auto back = Decode(**type, data, &pos);
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("is longer than the"));
  const std::string three = std::string("\x06\x00", 2);  // 3 nulls, then the end
  pos = 0;
  EXPECT_FALSE(Decode(**type, three, &pos).ok());  // 3 items, 1 byte left: refused as damage too
}

TEST(IcebergAvro, EncodingAValueThatDoesNotFitNamesTheField) {
  auto type = ParseSchema(std::string(R"({"type":"record","name":"r","fields":[{"name":"n","type":"int"}]})"));
  ASSERT_OK(type);
  std::string out;
  Status st = Encode(**type, {{"n", "text"}}, &out);
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("record.n"));
  st = Encode(**type, {{"n", int64_t{1} << 40}}, &out);
  EXPECT_THAT(st.message(), HasSubstr("out of int range"));
}

TEST(IcebergAvro, ContainerKeepsHeaderKeysAndSchemaTextVerbatim) {
  const std::string& schema = sluice::iceberg::ManifestFileAvroSchema();
  json record = {{"manifest_path", "file:///t/m.avro"}, {"manifest_length", 100}, {"partition_spec_id", 0},
                 {"content", 0}, {"sequence_number", 3}, {"min_sequence_number", 1}, {"added_snapshot_id", 42},
                 {"added_files_count", 1}, {"existing_files_count", 0}, {"deleted_files_count", 0},
                 {"added_rows_count", 10}, {"existing_rows_count", 0}, {"deleted_rows_count", 0},
                 {"partitions", json::array()}, {"key_metadata", nullptr}};
  auto bytes = WriteContainer(schema, {{"format-version", "2"}, {"snapshot-id", "42"}}, {record, record});
  ASSERT_OK(bytes);
  EXPECT_EQ(bytes->substr(0, 4), std::string("Obj\x01", 4));
  auto read = ReadContainer(*bytes, "test");
  ASSERT_OK(read);
  EXPECT_EQ(read->metadata["avro.schema"], schema);
  EXPECT_EQ(read->metadata["avro.codec"], "null");
  EXPECT_EQ(read->metadata["format-version"], "2");
  ASSERT_EQ(read->records.size(), 2u);
  EXPECT_EQ(read->records[1]["added_snapshot_id"], 42);
  EXPECT_THAT(schema, HasSubstr("\"field-id\":500"));
  EXPECT_THAT(schema, HasSubstr("\"element-id\":508"));
}

TEST(IcebergAvro, TruncatedContainerIsRefusedWithItsName) {
  auto bytes = WriteContainer(R"({"type":"record","name":"r","fields":[{"name":"a","type":"long"}]})", {},
                              {{{"a", 1}}});
  ASSERT_OK(bytes);
  auto read = ReadContainer(bytes->substr(0, bytes->size() - 5), "file:///x/snap.avro");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("file:///x/snap.avro"));
}

}  // namespace
}  // namespace sluice::iceberg::avro
