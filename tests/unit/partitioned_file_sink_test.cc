// Partitioned file output (sink/partition_path.h): Spark's directory names and escaping, the
// split of a batch by partition values, the file sink's log listing partitioned paths, and
// orphan cleanup inside partition directories.
#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>
#include <parquet/arrow/reader.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "checkpoint/file_sink_log.h"
#include "io/fault_injection.h"
#include "io/file_system.h"
#include "sink/file_sink.h"
#include "sink/partition_path.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::sink {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using sluice::testing::TempDir;

std::shared_ptr<arrow::Array> Json(const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  auto a = arrow::json::ArrayFromJSONString(type, json);
  EXPECT_OK(a);
  return *a;
}

// id, dt (string, with a NULL and an empty value), country.
std::shared_ptr<arrow::Table> Events() {
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("dt", arrow::utf8()),
                               arrow::field("country", arrow::utf8())});
  return arrow::Table::Make(schema, {Json(arrow::int64(), "[1, 2, 3, 4, 5, 6]"),
                                     Json(arrow::utf8(), R"(["2024-05-02", "2024-05-01", null, "2024-05-01", "", "2024-05-02"])"),
                                     Json(arrow::utf8(), R"(["US", "FR", "US", "FR", "US", "US"])")});
}

std::vector<int64_t> Ids(const arrow::Table& t) {
  auto combined = *t.CombineChunks();
  auto ids = std::static_pointer_cast<arrow::Int64Array>(combined->GetColumnByName("id")->chunk(0));
  return std::vector<int64_t>(ids->raw_values(), ids->raw_values() + ids->length());
}

std::vector<std::string> PartFilesUnder(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().filename().string().rfind("part-", 0) == 0) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Committed(const std::string& dir) {
  auto r = checkpoint::ReadCommittedFiles(io::LocalFileSystem(), dir);
  EXPECT_OK(r);
  EXPECT_TRUE(r->has_value());
  auto files = **r;
  std::sort(files.begin(), files.end());
  return files;
}

std::shared_ptr<arrow::Table> ReadParquet(const std::string& path) {
  auto in = *io::LocalFileSystem()->OpenInputFile(path);
  auto reader = *parquet::arrow::OpenFile(in, arrow::default_memory_pool());
  return *reader->ReadTable();
}

SinkSpec PartitionedSpec(const std::string& path, const std::string& partition_by) {
  SinkSpec spec;
  spec.format = "parquet";
  spec.options.Set("path", path);
  spec.options.Set(kPartitionByOption, partition_by);
  return spec;
}

std::unique_ptr<Sink> MakeSink(const SinkSpec& spec, std::shared_ptr<io::FileSystem> fsys = io::LocalFileSystem()) {
  SinkContext ctx;
  ctx.fs = std::move(fsys);
  auto sink = MakeFileSink(spec, ctx);
  EXPECT_OK(sink);
  return std::move(*sink);
}

TEST(PartitionPathTest, EscapesTheCharactersSparkEscapes) {
  EXPECT_EQ(EscapePartitionPathName("2024-05-01"), "2024-05-01");
  EXPECT_EQ(EscapePartitionPathName("a/b:c=d%e"), "a%2Fb%3Ac%3Dd%25e");
  EXPECT_EQ(EscapePartitionPathName("#\"'*?\\{[]^"), "%23%22%27%2A%3F%5C%7B%5B%5D%5E");
  EXPECT_EQ(EscapePartitionPathName(std::string("tab\there\x7f")), "tab%09here%7F");
  // Spaces, '}', '-', and non-ASCII bytes stay as they are (Spark escapes ASCII only).
  EXPECT_EQ(EscapePartitionPathName("new york} \xC3\xA9"), "new york} \xC3\xA9");
}

TEST(PartitionPathTest, SplitsByValueSortedWithNullAndEmptyAsHiveDefault) {
  auto slices = SplitByPartition(*Events(), {"dt"});
  ASSERT_OK(slices);
  ASSERT_EQ(slices->size(), 3u);
  EXPECT_EQ((*slices)[0].dir, "dt=2024-05-01");
  EXPECT_EQ((*slices)[1].dir, "dt=2024-05-02");
  EXPECT_EQ((*slices)[2].dir, "dt=__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(Ids(*(*slices)[0].rows), (std::vector<int64_t>{2, 4}));  // input order kept
  EXPECT_EQ(Ids(*(*slices)[1].rows), (std::vector<int64_t>{1, 6}));
  EXPECT_EQ(Ids(*(*slices)[2].rows), (std::vector<int64_t>{3, 5}));
  for (const auto& s : *slices) {
    EXPECT_EQ(s.rows->schema()->GetFieldIndex("dt"), -1) << "partition column stored in the data";
    EXPECT_EQ(s.rows->num_columns(), 2);
  }
}

TEST(PartitionPathTest, NestsColumnsInTheGivenOrderMatchedIgnoringCase) {
  auto slices = SplitByPartition(*Events(), {"COUNTRY", "dt"});
  ASSERT_OK(slices);
  std::vector<std::string> dirs;
  for (const auto& s : *slices) dirs.push_back(s.dir);
  EXPECT_EQ(dirs, (std::vector<std::string>{"country=FR/dt=2024-05-01", "country=US/dt=2024-05-02",
                                            "country=US/dt=__HIVE_DEFAULT_PARTITION__"}));
  EXPECT_EQ((*slices)[0].rows->num_columns(), 1);
}

TEST(PartitionPathTest, ValuesAreSparkStringCastsOfEachType) {
  auto schema = arrow::schema({arrow::field("d", arrow::date32()), arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                               arrow::field("n", arrow::int32()), arrow::field("b", arrow::boolean()),
                               arrow::field("x", arrow::float64()), arrow::field("v", arrow::utf8())});
  auto t = arrow::Table::Make(schema, {Json(arrow::date32(), "[19844]"),
                                       Json(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), "[1714557600500000]"),
                                       Json(arrow::int32(), "[-7]"), Json(arrow::boolean(), "[true]"),
                                       Json(arrow::float64(), "[1.5]"), Json(arrow::utf8(), R"(["a"])")});
  auto slices = SplitByPartition(*t, {"d", "ts", "n", "b", "x"});
  ASSERT_OK(slices);
  ASSERT_EQ(slices->size(), 1u);
  EXPECT_EQ((*slices)[0].dir, "d=2024-05-01/ts=2024-05-01 10%3A00%3A00.5/n=-7/b=true/x=1.5");
}

TEST(PartitionPathTest, BadColumnsAreRefusedNamingThem) {
  auto missing = SplitByPartition(*Events(), {"day"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("'day' not found"));
  EXPECT_THAT(missing.status().message(), HasSubstr("id, dt, country"));
  auto all = CheckPartitionColumns({"id", "dt", "country"}, *Events()->schema());
  EXPECT_THAT(all.message(), HasSubstr("Cannot use all columns"));
  auto nested = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("tags", arrow::list(arrow::utf8()))});
  EXPECT_THAT(CheckPartitionColumns({"tags"}, *nested).message(), HasSubstr("column 'tags' as a partition column"));

  plan::Options twice;
  twice.Set(kPartitionByOption, "dt, DT");
  EXPECT_THAT(PartitionColumnsOption(twice).status().message(), HasSubstr("twice"));
  plan::Options empty;
  empty.Set(kPartitionByOption, "dt,,country");
  EXPECT_THAT(PartitionColumnsOption(empty).status().message(), HasSubstr("empty column name"));
  plan::Options two;
  two.Set(kPartitionByOption, " dt , country");
  EXPECT_EQ(*PartitionColumnsOption(two), (std::vector<std::string>{"dt", "country"}));
}

TEST(PartitionedFileSinkTest, LogListsPartitionedPathsAndFilesLackThePartitionColumn) {
  TempDir tmp;
  const std::string out = tmp.path() + "/out";
  auto sink = MakeSink(PartitionedSpec(out, "dt"));
  ASSERT_OK(sink->AddBatch(0, Events()));
  const std::string uuid = FileSinkBatchUuid("", 0);
  const std::vector<std::string> expected = {
      out + "/dt=2024-05-01/part-00000-" + uuid + ".c000.snappy.parquet",
      out + "/dt=2024-05-02/part-00000-" + uuid + ".c000.snappy.parquet",
      out + "/dt=__HIVE_DEFAULT_PARTITION__/part-00000-" + uuid + ".c000.snappy.parquet"};
  EXPECT_EQ(PartFilesUnder(out), expected);
  EXPECT_EQ(Committed(out), expected);
  const std::string entry = *io::LocalFileSystem()->ReadFile(out + "/_spark_metadata/0");
  EXPECT_THAT(entry, HasSubstr("\"path\":\"file://" + out + "/dt=2024-05-01/part-00000-"));
  auto first = ReadParquet(expected[0]);
  EXPECT_EQ(first->schema()->GetFieldIndex("dt"), -1);
  EXPECT_EQ(Ids(*first), (std::vector<int64_t>{2, 4}));

  ASSERT_OK(MakeSink(PartitionedSpec(out, "dt"))->AddBatch(0, Events()));  // a redo writes nothing
  EXPECT_EQ(PartFilesUnder(out), expected);
}

TEST(PartitionedFileSinkTest, OrphansInPartitionDirectoriesAreDeletedByTheNextAttemptOnly) {
  TempDir tmp;
  const std::string out = tmp.path() + "/out";
  auto spec = PartitionedSpec(out, "country");
  ASSERT_OK(MakeSink(spec)->AddBatch(0, Events()));
  const auto committed0 = Committed(out);
  ASSERT_EQ(committed0.size(), 2u);

  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(
      io::LocalFileSystem(), *io::FaultSpec::Parse("write=_spark_metadata,action=fail"));
  ASSERT_FALSE(MakeSink(spec, faulty)->AddBatch(1, Events()).ok());
  ASSERT_EQ(PartFilesUnder(out).size(), 4u);  // batch 1's files stay behind, unlisted
  EXPECT_EQ(Committed(out), committed0);
  // Not provably batch 1's: a stray file and another query's file inside a partition directory.
  const std::string stray = out + "/country=US/part-00000-stray.c000.snappy.parquet";
  const std::string other = out + "/country=US/part-00000-" + FileSinkBatchUuid("other", 1) + ".c000.snappy.parquet";
  { std::ofstream(stray) << "x"; }
  { std::ofstream(other) << "x"; }

  ASSERT_OK(MakeSink(spec)->AddBatch(1, Events()));
  auto committed = Committed(out);
  EXPECT_EQ(committed.size(), 4u);
  auto parts = PartFilesUnder(out);
  parts.erase(std::remove_if(parts.begin(), parts.end(), [&](const std::string& p) { return p == stray || p == other; }),
              parts.end());
  EXPECT_EQ(parts, committed);
  EXPECT_TRUE(fs::exists(stray));
  EXPECT_TRUE(fs::exists(other));
}

TEST(PartitionedFileSinkTest, BatchWriteWritesPartitionDirectoriesAndSuccessMarker) {
  TempDir tmp;
  const std::string out = tmp.path() + "/batch";
  plan::Options options;
  options.Set(kPartitionByOption, "country");
  ASSERT_OK(WriteFilesOnce(io::LocalFileSystem(), "json", options, "error", out, Events()));
  EXPECT_TRUE(fs::exists(out + "/_SUCCESS"));
  auto parts = PartFilesUnder(out);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_THAT(parts[0], HasSubstr("/country=FR/part-00000-"));
  EXPECT_THAT(parts[1], HasSubstr("/country=US/part-00000-"));
  const std::string fr = *io::LocalFileSystem()->ReadFile(parts[0]);
  EXPECT_EQ(fr, "{\"id\":2,\"dt\":\"2024-05-01\"}\n{\"id\":4,\"dt\":\"2024-05-01\"}\n");

  options.Set(kPartitionByOption, "nope");
  Status st = WriteFilesOnce(io::LocalFileSystem(), "json", options, "overwrite", out, Events());
  EXPECT_THAT(st.message(), HasSubstr("'nope' not found"));
  EXPECT_TRUE(fs::exists(out + "/_SUCCESS")) << "a refused write must not touch the directory";
}

}  // namespace
}  // namespace sluice::sink
