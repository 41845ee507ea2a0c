// Files in, files out through the public API: options, triggers, malformed rows, refusals,
// and the same query as a batch job giving the same answer.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "integration/test_util.h"
#include "io/file_system.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;
const char* kSchema = "id BIGINT, name STRING, price DOUBLE";

Result<DataFrame> JsonStream(const std::shared_ptr<Session>& s, const std::string& dir,
                             std::map<std::string, std::string> options = {}) {
  return s->readStream().format("json").schema(kSchema).options(options).load(dir);
}

int CountEntries(const std::string& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string()[0] != '.';
  return n;
}

TEST(FileStream, AvailableNowHonoursMaxFilesPerTriggerThenStops) {
  TempDir dir;
  for (int f = 0; f < 5; ++f) WriteInputFile(dir.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 3, 3));
  auto s = Session::Make();
  ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in"), {{"maxFilesPerTrigger", "2"}}));
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("parquet").option("path", dir.Sub("out"))
                                   .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  EXPECT_EQ(CountEntries(dir.Sub("ckpt/commits")), 3);  // 2 + 2 + 1 files
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("out")), "id"), Range(0, 15));
  auto progress = nlohmann::json::parse(q.lastProgress());
  EXPECT_EQ(progress["batchId"], 2);
  EXPECT_EQ(progress["numInputRows"], 3);
  EXPECT_EQ(progress["sources"][0]["description"], "FileStreamSource[file://" + dir.Sub("in") + "]");
}

TEST(FileStream, OnceTakesEverythingInOneBatch) {
  TempDir dir;
  for (int f = 0; f < 4; ++f) WriteInputFile(dir.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 2, 2));
  auto s = Session::Make();
  ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in"), {{"maxFilesPerTrigger", "1"}}));
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("json").option("path", dir.Sub("out"))
                                   .option("checkpointLocation", dir.Sub("ckpt")).trigger(Once()).start());
  ASSERT_OK(q.awaitTermination());
  EXPECT_EQ(CountEntries(dir.Sub("ckpt/commits")), 1);
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("out"), "json"), "id"), Range(0, 8));
}

// Spark's spark.sql.streaming.schemaInference: a stream declared without a schema takes the one
// its directory infers when the query is defined. A restart whose files now infer another is
// refused (the checkpoint's stream keeps one schema), saying so.
TEST(FileStream, SchemaInferenceTakesTheDirectorysSchemaWhenTheStreamIsDefined) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "1.json", "{\"name\":\"a\",\"id\":1}\n");
  auto s = Session::Make();
  auto refused = s->readStream().format("json").load(dir.Sub("in"));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("Schema must be specified"));
  EXPECT_THAT(refused.status().message(), HasSubstr("spark.sql.streaming.schemaInference"));
  s->setConf("spark.sql.streaming.schemaInference", "yes");
  refused = s->readStream().format("json").load(dir.Sub("in"));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("for spark.sql.streaming.schemaInference: must be true or false"));
  s->setConf("spark.sql.streaming.schemaInference", "true");
  auto run = [&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(auto df, s->readStream().format("json").load(dir.Sub("in")));
    ARROW_ASSIGN_OR_RAISE(auto q, df.writeStream().format("memory").queryName("t")
                                      .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start());
    return q.awaitTermination();
  };
  ASSERT_OK(run());
  ASSERT_OK_AND_ASSIGN(auto rows, s->memoryTable("t"));
  EXPECT_EQ(rows->schema()->ToString(), "id: int64\nname: string");  // sorted by name, as Spark
  EXPECT_EQ(SortedInts(rows, "id"), Range(1, 2));
  WriteInputFile(dir.Sub("in"), "2.json", "{\"name\":\"b\",\"id\":2}\n");  // the same schema: goes on
  ASSERT_OK(run());
  WriteInputFile(dir.Sub("in"), "3.json", "{\"name\":\"c\",\"id\":3.5}\n");  // id now DOUBLE
  Status st = run();
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("Only the source's schema differs"));
  EXPECT_THAT(st.message(), HasSubstr("[id bigint, name string]"));
}

TEST(FileStream, HiddenAndUnderscoreFilesAreIgnored) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "a.json", JsonRows(0, 2));
  WriteInputFile(dir.Sub("in"), ".inflight.json", JsonRows(100, 2));
  WriteInputFile(dir.Sub("in"), "_SUCCESS", "");
  auto s = Session::Make();
  ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in")));
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("memory").queryName("t").trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  ASSERT_OK_AND_ASSIGN(auto rows, s->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 2));
}

TEST(FileStream, CleanSourceDeletesFilesOnlyAfterTheirBatchCommits) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "a.json", JsonRows(0, 2));
  WriteInputFile(dir.Sub("in"), "b.json", JsonRows(2, 2));
  auto s = Session::Make();
  ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in"), {{"cleanSource", "archive"},
                                                             {"sourceArchiveDir", dir.Sub("archive")}}));
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("parquet").option("path", dir.Sub("out"))
                                   .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  EXPECT_FALSE(fs::exists(dir.Sub("in/a.json")));
  EXPECT_TRUE(fs::exists(dir.Sub("archive") + dir.Sub("in/a.json")));
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("out")), "id"), Range(0, 4));
}

TEST(FileStream, MalformedRowsPermissiveKeepsRowsAsNullsAndCountsThem) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "a.json", "{\"id\":1,\"name\":\"a\",\"price\":1.0}\n{not json\n{\"id\":3,\"name\":\"c\",\"price\":3.0}\n");
  auto s = Session::Make();
  ASSERT_OK_AND_ASSIGN(auto df, s->readStream().format("json")
                                    .schema("id BIGINT, name STRING, price DOUBLE, _corrupt_record STRING")
                                    .load(dir.Sub("in")));
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("memory").queryName("t").trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  ASSERT_OK_AND_ASSIGN(auto rows, s->memoryTable("t"));
  ASSERT_EQ(rows->num_rows(), 3);
  EXPECT_EQ(rows->GetColumnByName("id")->null_count(), 1);
  EXPECT_EQ(rows->GetColumnByName("_corrupt_record")->null_count(), 2);
  auto progress = nlohmann::json::parse(q.lastProgress());
  EXPECT_EQ(progress["sources"][0]["metrics"]["numMalformedRows"], "1");
}

TEST(FileStream, ACorruptParquetFileWedgesTheStreamUnlessIgnoreCorruptFilesSkipsIt) {
  TempDir dir;
  {  // good Parquet files from a batch write, then a file that is not Parquet
    WriteInputFile(dir.Sub("json"), "a.json", JsonRows(0, 4));
    auto s = Session::Make();
    ASSERT_OK_AND_ASSIGN(auto rows, s->read().format("json").schema(kSchema).load(dir.Sub("json")));
    ASSERT_OK(rows.write().format("parquet").save(dir.Sub("in")));
  }
  WriteInputFile(dir.Sub("in"), "zz-corrupt.parquet", "PAR1 this is not a parquet file");
  auto run = [&](std::shared_ptr<Session> s, const std::string& ckpt) -> Result<StreamingQuery> {
    ARROW_ASSIGN_OR_RAISE(auto df, s->readStream().format("parquet").schema(kSchema).load(dir.Sub("in")));
    return df.writeStream().format("memory").queryName("t").option("checkpointLocation", dir.Sub(ckpt))
        .trigger(AvailableNow()).start();
  };
  {
    auto s = Session::Make();
    ASSERT_OK_AND_ASSIGN(auto q, run(s, "ckpt-a"));
    Status st = q.awaitTermination();
    ASSERT_FALSE(st.ok());
    EXPECT_THAT(st.message(), HasSubstr("zz-corrupt.parquet"));
    EXPECT_THAT(st.message(), HasSubstr("ignoreCorruptFiles"));
  }
  auto s = Session::Make();
  s->setConf("spark.sql.files.ignoreCorruptFiles", "true");
  ASSERT_OK_AND_ASSIGN(auto q, run(s, "ckpt-b"));
  ASSERT_OK(q.awaitTermination());
  ASSERT_OK_AND_ASSIGN(auto rows, s->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 4));
  auto progress = nlohmann::json::parse(q.lastProgress());
  EXPECT_EQ(progress["sources"][0]["metrics"]["numSkippedFiles"], "1");
}

TEST(FileStream, ADeletedOrDamagedOffsetsEntryIsNamedNotBlamedOnAnotherQuery) {
  TempDir dir;
  for (int f = 0; f < 2; ++f) WriteInputFile(dir.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 3, 3));
  std::shared_ptr<Session> s;  // outlives each started query (a session stops its queries when it goes)
  auto start = [&]() -> Result<StreamingQuery> {
    s = Session::Make();
    ARROW_ASSIGN_OR_RAISE(auto df, JsonStream(s, dir.Sub("in"), {{"maxFilesPerTrigger", "1"}}));
    return df.writeStream().format("parquet").option("path", dir.Sub("out"))
        .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start();
  };
  {
    ASSERT_OK_AND_ASSIGN(auto q, start());
    ASSERT_OK(q.awaitTermination());
  }
  ASSERT_TRUE(fs::exists(dir.Sub("ckpt/commits/1")));
  const std::string saved = dir.Sub("offsets-1");
  fs::rename(dir.Sub("ckpt/offsets/1"), saved);
  auto refused = start();
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("has commits/1 but not offsets/1 (the offsets log ends at "
                                                    "offsets/0): that entry was deleted"));
  EXPECT_THAT(refused.status().message(), ::testing::Not(HasSubstr("Concurrent update")));

  // Garbage in the entry is described (length, escaped bytes), never printed raw.
  WriteInputFile(dir.Sub("ckpt/offsets"), "1", std::string("\x1b[2J\x01garbage"));
  auto damaged = start();
  ASSERT_FALSE(damaged.ok());
  EXPECT_THAT(damaged.status().message(), HasSubstr("found 12 bytes: '\\x1b[2J\\x01garbage'"));
  EXPECT_EQ(damaged.status().message().find('\x1b'), std::string::npos);
  fs::rename(saved, dir.Sub("ckpt/offsets/1"));
  ASSERT_OK_AND_ASSIGN(auto q, start());
  ASSERT_OK(q.awaitTermination());
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("out")), "id"), Range(0, 6));
}

TEST(FileStream, MalformedRowsDropMalformedDropsThem) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "a.json", "{\"id\":1,\"name\":\"a\",\"price\":1.0}\n{\"id\":\"x\"}}\n{\"id\":3,\"name\":\"c\",\"price\":3.0}\n");
  auto s = Session::Make();
  ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in"), {{"mode", "DROPMALFORMED"}}));
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("memory").queryName("t").trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  ASSERT_OK_AND_ASSIGN(auto rows, s->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), (std::vector<int64_t>{1, 3}));
}

// Projection pushdown: a query decodes only the columns it reads, so (as Spark with a pruned
// schema) a badly typed value in a column it does not read does not make the record malformed.
TEST(FileStream, MalformedRecordsAreJudgedOnTheColumnsTheQueryReads) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "a.json", "{\"id\":1,\"name\":\"a\",\"price\":1.0}\n"
                                          "{\"id\":2,\"name\":\"b\",\"price\":\"two\"}\n{\"id\":3,\"price\":3.0}\n");
  for (auto reader : {"simdjson", "arrow"}) {
    auto s = Session::Make();
    ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in"), {{"mode", "DROPMALFORMED"}, {"jsonReader", reader}}));
    ASSERT_OK_AND_ASSIGN(auto ids, df.select(std::vector<std::string>{"id", "name"}).writeStream().format("memory")
                                       .queryName("ids").trigger(AvailableNow()).start());
    ASSERT_OK(ids.awaitTermination());
    ASSERT_OK_AND_ASSIGN(auto id_rows, s->memoryTable("ids"));
    EXPECT_EQ(SortedInts(id_rows, "id"), (std::vector<int64_t>{1, 2, 3})) << reader;
    EXPECT_EQ(id_rows->schema()->field_names(), (std::vector<std::string>{"id", "name"}));
    ASSERT_OK_AND_ASSIGN(auto priced, df.select(std::vector<std::string>{"id", "price"}).writeStream().format("memory")
                                          .queryName("priced").trigger(AvailableNow()).start());
    ASSERT_OK(priced.awaitTermination());
    ASSERT_OK_AND_ASSIGN(auto priced_rows, s->memoryTable("priced"));
    EXPECT_EQ(SortedInts(priced_rows, "id"), (std::vector<int64_t>{1, 3})) << reader;
  }
}

// The same for an aggregation: it decodes only its grouping columns and its calls' arguments,
// so a record whose unread price is badly typed is still counted (P4-style count by key).
TEST(FileStream, AggregationDecodesOnlyTheColumnsItReads) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "a.json", "{\"id\":1,\"name\":\"a\",\"price\":1.0}\n"
                                          "{\"id\":1,\"name\":\"b\",\"price\":\"two\"}\n{\"id\":3,\"price\":3.0}\n");
  for (auto reader : {"simdjson", "arrow"}) {
    auto s = Session::Make();
    ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in"), {{"mode", "DROPMALFORMED"}, {"jsonReader", reader}}));
    ASSERT_OK_AND_ASSIGN(auto q, df.groupBy(std::vector<std::string>{"id"}).count().writeStream().format("memory")
                                     .queryName("counts").outputMode("complete").trigger(AvailableNow()).start());
    ASSERT_OK(q.awaitTermination());
    ASSERT_OK_AND_ASSIGN(auto rows, s->memoryTable("counts"));
    EXPECT_EQ(SortedInts(rows, "count"), (std::vector<int64_t>{1, 2})) << reader;
    // Summing the price reads it: the record with "two" is dropped.
    ASSERT_OK_AND_ASSIGN(auto q2, df.groupBy(std::vector<std::string>{"id"}).agg({sum(col("price"))}).writeStream()
                                      .format("memory").queryName("sums").outputMode("complete")
                                      .trigger(AvailableNow()).start());
    ASSERT_OK(q2.awaitTermination());
    ASSERT_OK_AND_ASSIGN(auto sums, s->memoryTable("sums"));
    EXPECT_EQ(sums->num_rows(), 2) << reader;
    EXPECT_EQ(SortedInts(sums, "id"), (std::vector<int64_t>{1, 3})) << reader;
  }
}

TEST(FileStream, MalformedRowsFailFastStopsTheQueryNamingFileAndLine) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "bad.json", "{\"id\":1,\"name\":\"a\",\"price\":1.0}\n{\"id\":2,\"name\":\"b\",\"price\":2.0}\n{oops\n");
  auto s = Session::Make();
  ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in"), {{"mode", "FAILFAST"}}));
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("parquet").option("path", dir.Sub("out"))
                                   .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start());
  Status st = q.awaitTermination();
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("bad.json"));
  EXPECT_THAT(st.message(), HasSubstr("line 3"));
  // Nothing was committed: the checkpoint is consistent and the batch will be re-run.
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/offsets/0")));
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/commits/0")));
}

TEST(FileStream, BadInputsAreRefusedWithWhatAndWhere) {
  TempDir dir;
  fs::create_directories(dir.Sub("in"));
  auto s = Session::Make();
  auto no_schema = s->readStream().format("json").load(dir.Sub("in"));
  ASSERT_FALSE(no_schema.ok());
  EXPECT_THAT(no_schema.status().message(), HasSubstr("Schema must be specified"));

  auto bad_format = s->readStream().format("jsonl").schema(kSchema).load(dir.Sub("in"));
  ASSERT_FALSE(bad_format.ok());
  EXPECT_THAT(bad_format.status().message(), HasSubstr("Unknown source format 'jsonl'"));

  auto bad_option = JsonStream(s, dir.Sub("in"), {{"maxFilesPerTriger", "2"}});
  ASSERT_FALSE(bad_option.ok());
  EXPECT_THAT(bad_option.status().message(), HasSubstr("maxFilesPerTriger"));
  EXPECT_THAT(bad_option.status().message(), HasSubstr("maxFilesPerTrigger"));  // the valid list

  auto bad_value = JsonStream(s, dir.Sub("in"), {{"maxFilesPerTrigger", "0"}});
  ASSERT_FALSE(bad_value.ok());
  EXPECT_THAT(bad_value.status().message(), HasSubstr("must be a positive integer"));

  auto missing_dir = JsonStream(s, dir.Sub("nowhere"));
  ASSERT_FALSE(missing_dir.ok());
  EXPECT_THAT(missing_dir.status().message(), HasSubstr(dir.Sub("nowhere")));

  auto bad_ddl = s->readStream().format("json").schema("id BIGINTEGER").load(dir.Sub("in"));
  ASSERT_FALSE(bad_ddl.ok());
  EXPECT_THAT(bad_ddl.status().message(), HasSubstr("BIGINTEGER"));

  ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("in")));
  auto no_ckpt = df.writeStream().format("parquet").option("path", dir.Sub("out")).start();
  ASSERT_FALSE(no_ckpt.ok());
  EXPECT_THAT(no_ckpt.status().message(), HasSubstr("checkpointLocation must be specified"));

  auto no_path = df.writeStream().format("parquet").option("checkpointLocation", dir.Sub("ckpt")).start();
  ASSERT_FALSE(no_path.ok());
  EXPECT_THAT(no_path.status().message(), HasSubstr("path"));

  auto unknown_col = df.select({col("pricee")});
  ASSERT_FALSE(unknown_col.ok());
  EXPECT_THAT(unknown_col.status().message(), HasSubstr("pricee"));
  EXPECT_FALSE(unknown_col.writeStream().format("memory").queryName("x").start().ok());
}

TEST(FileStream, ASourceFolderEqualToOrInsideTheSinkFolderIsRefusedWritingNothing) {
  TempDir dir;
  WriteInputFile(dir.Sub("out/in"), "a.json", JsonRows(0, 2));
  auto s = Session::Make();
  for (const std::string& in : {dir.Sub("out"), dir.Sub("out/in"), dir.Sub("out/in/")}) {
    ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, in));
    auto st = [&]() -> Status {
      ARROW_ASSIGN_OR_RAISE(auto q, df.writeStream().format("json").option("path", dir.Sub("out"))
                                        .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start());
      return q.awaitTermination();
    }();
    ASSERT_FALSE(st.ok()) << in;
    EXPECT_THAT(st.message(), HasSubstr("would read its own output")) << in;
    EXPECT_THAT(st.message(), HasSubstr("source folder file://" + io::AbsolutePath(in))) << in;
    EXPECT_FALSE(fs::exists(dir.Sub("ckpt"))) << in;
    EXPECT_FALSE(fs::exists(dir.Sub("out/_spark_metadata"))) << in;
  }
  // A sibling folder whose name merely starts with the sink's is fine.
  WriteInputFile(dir.Sub("out2"), "a.json", JsonRows(0, 2));
  ASSERT_OK_AND_ASSIGN(auto df, JsonStream(s, dir.Sub("out2")));
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("json").option("path", dir.Sub("out"))
                                   .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("out"), "json"), "id"), Range(0, 2));
}

TEST(FileStream, TheSameQueryAsABatchJobGivesTheSameAnswer) {
  TempDir dir;
  for (int f = 0; f < 3; ++f) WriteInputFile(dir.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 5, 5));
  auto s = Session::Make();
  auto transform = [](const DataFrame& df) {
    return df.filter(col("id") % lit(int64_t{2}) == lit(int64_t{0}))
        .withColumn("label", upper(col("name")))
        .select({col("id"), col("label"), (col("price") * lit(2.0)).alias("double_price")});
  };
  ASSERT_OK_AND_ASSIGN(auto stream, JsonStream(s, dir.Sub("in"), {{"maxFilesPerTrigger", "1"}}));
  ASSERT_OK_AND_ASSIGN(auto q, transform(stream).writeStream().format("memory").queryName("t")
                                   .trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  ASSERT_OK_AND_ASSIGN(auto streamed, s->memoryTable("t"));
  ASSERT_OK_AND_ASSIGN(auto batch_df, s->read().format("json").schema(kSchema).load(dir.Sub("in")));
  ASSERT_OK_AND_ASSIGN(auto batch, transform(batch_df).collect());
  ASSERT_OK_AND_ASSIGN(auto a, streamed->CombineChunks());
  ASSERT_OK_AND_ASSIGN(auto b, batch->CombineChunks());
  EXPECT_EQ(SortedInts(a, "id"), SortedInts(b, "id"));
  EXPECT_TRUE(a->schema()->Equals(*b->schema()));
  EXPECT_EQ(a->num_rows(), 8);
}

}  // namespace
}  // namespace sluice::testing
