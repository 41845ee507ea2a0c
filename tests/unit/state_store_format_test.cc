// The state store's fixed contracts: the file format's framing and checksum, the partitioning
// hash (golden values that must never change), and the operator metadata refusal.
#include <arrow/io/memory.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "state/operator_metadata.h"
#include "state/partitioning.h"
#include "state/state_file.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::state {
namespace {

using ::testing::HasSubstr;

using sluice::testing::TempDir;

struct Record {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const Record& o) const { return key == o.key && value == o.value; }
};

Result<std::vector<Record>> Parse(const std::string& data, StateFileKind kind = StateFileKind::kDelta,
                                  int64_t version = 7) {
  std::vector<Record> out;
  ARROW_RETURN_NOT_OK(ReadStateFile("/ckpt/state/0/0/7.delta", data, kind, version,
                                    [&](std::string_view k, const std::string_view* v) {
                                      out.push_back({std::string(k), v ? std::optional<std::string>(*v) : std::nullopt});
                                    }));
  return out;
}

std::string SampleDelta() {
  StateFileWriter w(StateFileKind::kDelta, 7);
  w.Put("alpha", "1");
  w.Remove("beta");
  w.Put(std::string("\0k", 2), std::string(300, 'x'));
  w.Put("empty", "");
  return w.Finish();
}

TEST(StateFile, RoundTripsPutsAndRemovalsInOrder) {
  auto records = Parse(SampleDelta()).ValueOrDie();
  std::vector<Record> expected = {{"alpha", "1"}, {"beta", std::nullopt}, {std::string("\0k", 2), std::string(300, 'x')},
                                  {"empty", ""}};
  EXPECT_EQ(records, expected);
  EXPECT_EQ(SampleDelta().substr(0, 8), "SLUICEST");
  EXPECT_TRUE(Parse(StateFileWriter(StateFileKind::kDelta, 7).Finish()).ValueOrDie().empty());
}

TEST(StateFile, TheRecordCountReachesTheReaderBeforeTheFirstRecord) {
  const std::string data = SampleDelta();
  arrow::io::BufferReader reader(std::make_shared<arrow::Buffer>(std::string_view(data)));
  std::vector<std::string> events;
  ASSERT_OK(ReadStateFile(
      "/ckpt/state/0/0/7.delta", &reader, StateFileKind::kDelta, 7,
      [&](std::string_view k, const std::string_view*) { events.push_back(std::string(k)); },
      [&](uint64_t records) { events.push_back("count " + std::to_string(records)); }));
  EXPECT_EQ(events, (std::vector<std::string>{"count 4", "alpha", "beta", std::string("\0k", 2), "empty"}));
}

// A trailer whose record count (checksum fixed up to match) is more than the file can hold: the
// count a reader sizes its table by is capped by the file's size, and reading to the end still
// reports the mismatch.
TEST(StateFile, ARecordCountBeyondTheFileSizeIsCappedAndReported) {
  std::string data = SampleDelta();
  const size_t trailer = data.size() - 24;  // records u64, length u64, crc u32, end magic
  const uint64_t claimed = 1'000'000'000'000;
  for (int b = 0; b < 8; ++b) data[trailer + b] = static_cast<char>((claimed >> (8 * b)) & 0xFF);
  const uint32_t crc = Crc32c(std::string_view(data).substr(0, data.size() - 8));
  for (int b = 0; b < 4; ++b) data[data.size() - 8 + b] = static_cast<char>((crc >> (8 * b)) & 0xFF);
  arrow::io::BufferReader reader(std::make_shared<arrow::Buffer>(std::string_view(data)));
  uint64_t count = 0;
  Status st = ReadStateFile(
      "/ckpt/state/0/0/7.delta", &reader, StateFileKind::kDelta, 7, [](std::string_view, const std::string_view*) {},
      [&](uint64_t records) { count = records; });
  EXPECT_LE(count, data.size() / 5);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("trailer says 1000000000000"));
}

TEST(StateFile, EveryTruncationIsDetectedAndNamesTheFile) {
  const std::string data = SampleDelta();
  for (size_t len = 0; len < data.size(); ++len) {
    auto r = Parse(data.substr(0, len));
    ASSERT_FALSE(r.ok()) << "prefix of " << len << " bytes was accepted";
    EXPECT_THAT(r.status().message(), HasSubstr("/ckpt/state/0/0/7.delta"));
  }
}

TEST(StateFile, EveryCorruptedByteIsDetected) {
  const std::string data = SampleDelta();
  for (size_t i = 0; i < data.size(); ++i) {
    std::string bad = data;
    bad[i] = static_cast<char>(bad[i] ^ 0x5a);
    EXPECT_FALSE(Parse(bad).ok()) << "corruption at byte " << i << " was accepted";
  }
}

TEST(StateFile, RefusesTheWrongKindVersionOrANewerFormat) {
  const std::string data = SampleDelta();
  EXPECT_THAT(Parse(data, StateFileKind::kSnapshot).status().message(), HasSubstr("expected a snapshot file"));
  EXPECT_THAT(Parse(data, StateFileKind::kDelta, 8).status().message(), HasSubstr("holds version 7, expected 8"));
  std::string newer = data;
  newer[8] = 2;  // format version 2, checksum unchanged: the version check comes first
  EXPECT_THAT(Parse(newer).status().message(), HasSubstr("newer sluice"));
  StateFileWriter snap(StateFileKind::kSnapshot, 7);
  snap.Put("k", "v");
  EXPECT_EQ(Parse(snap.Finish(), StateFileKind::kSnapshot).ValueOrDie(), (std::vector<Record>{{"k", "v"}}));
}

TEST(StateFile, Crc32cMatchesTheCastagnoliCheckValue) { EXPECT_EQ(Crc32c("123456789"), 0xE3069283u); }

TEST(StatePartitioning, HashAndPartitionsAreStableGoldenValues) {
  // Checkpoints depend on these numbers: never change them.
  EXPECT_EQ(StableHash64(""), 0xefd01f60ba992926ULL);
  EXPECT_EQ(StableHash64("a"), 0x82a2a958a9bece5bULL);
  EXPECT_EQ(StableHash64("hello"), 0xe9c562c0fdb23244ULL);
  EXPECT_EQ(StableHash64("user-42"), 0xa39532c7ab051e8dULL);
  EXPECT_EQ(StableHash64(std::string("\x00\xff\x01", 3)), 0x9400a3ebee5f7e55ULL);
  EXPECT_EQ(PartitionOf("", 4), 2);
  EXPECT_EQ(PartitionOf("a", 4), 3);
  EXPECT_EQ(PartitionOf("hello", 200), 124);
  EXPECT_EQ(PartitionOf("user-42", 200), 53);
  EXPECT_EQ(PartitionOf("anything", 1), 0);
  EXPECT_EQ(PartitionOf("anything", 0), 0);
}

TEST(StatePartitioning, SpreadsSimilarKeysEvenly) {
  // Keys differing only in one byte's high bits must still spread over power-of-two counts.
  std::vector<int> counts(8);
  for (int i = 0; i < 8000; ++i) counts[PartitionOf("key-" + std::to_string(i * 16), 8)]++;
  for (int c : counts) EXPECT_NEAR(c, 1000, 150);
}

StateOperatorMetadata CountByUser() {
  StateOperatorMetadata md;
  md.operator_id = 0;
  md.operator_name = "aggregate";
  md.num_partitions = 2;
  md.key_schema = "user: string";
  md.value_schema = "count: int64";
  return md;
}

TEST(StateOperatorMetadata, WrittenOnceInSparksLayoutAndAcceptedUnchanged) {
  TempDir d;
  auto fs = io::LocalFileSystem();
  ASSERT_OK(WriteOrCheckOperatorMetadata(fs.get(), d.path(), CountByUser()));
  std::ifstream in(d.Sub("state/0/_metadata/metadata"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text,
            "v1\n{\"keySchema\":\"user: string\",\"operatorInfo\":{\"operatorId\":0,\"operatorName\":\"aggregate\"},"
            "\"stateStoreInfo\":[{\"numColsPrefixKey\":0,\"numPartitions\":2,\"storeName\":\"default\"}],"
            "\"valueSchema\":\"count: int64\"}");
  ASSERT_OK(WriteOrCheckOperatorMetadata(fs.get(), d.path(), CountByUser()));
  auto back = ReadOperatorMetadata(fs.get(), d.path(), 0).ValueOrDie();
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->value_schema, "count: int64");
  EXPECT_FALSE(ReadOperatorMetadata(fs.get(), d.path(), 1).ValueOrDie().has_value());
}

TEST(StateOperatorMetadata, RestartWithAChangedOperatorOrSchemaIsRefusedNamingBoth) {
  TempDir d;
  auto fs = io::LocalFileSystem();
  ASSERT_OK(WriteOrCheckOperatorMetadata(fs.get(), d.path(), CountByUser()));

  StateOperatorMetadata dedup = CountByUser();
  dedup.operator_name = "dedup";
  Status st = WriteOrCheckOperatorMetadata(fs.get(), d.path(), dedup);
  ASSERT_TRUE(st.IsInvalid());
  EXPECT_THAT(st.message(), HasSubstr("operator changed from 'aggregate' to 'dedup'")) << st.ToString();

  StateOperatorMetadata sum = CountByUser();
  sum.value_schema = "sum: double";
  st = WriteOrCheckOperatorMetadata(fs.get(), d.path(), sum);
  ASSERT_TRUE(st.IsInvalid());
  EXPECT_THAT(st.message(), HasSubstr("state value schema changed from 'count: int64' to 'sum: double'"))
      << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("operator 0 ('aggregate')")) << st.ToString();

  StateOperatorMetadata wider = CountByUser();
  wider.num_partitions = 4;
  st = CheckCompatible(CountByUser(), wider);
  EXPECT_THAT(st.message(), HasSubstr("number of state partitions changed from 2 to 4")) << st.ToString();

  std::ofstream(d.Sub("state/0/_metadata/metadata")) << "v1\n{not json";
  auto corrupt = ReadOperatorMetadata(fs.get(), d.path(), 0);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_THAT(corrupt.status().message(), HasSubstr(d.Sub("state/0/_metadata/metadata")));
}

}  // namespace
}  // namespace sluice::state
