// The Iceberg sink through the public API: toTable() / format("iceberg"), catalogs from the
// session conf, batch reads with read().table(), restart on the same checkpoint, refusals, and an
// Iceberg table as the static side of a stream-static join.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <filesystem>
#include <map>

#include "integration/stateful_events.h"
#include "integration/test_util.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

std::string Rows(int64_t first, int64_t n) {
  std::string out = "[";
  for (int64_t i = first; i < first + n; ++i) {
    out += (i > first ? "," : "") + std::string("{\"id\":") + std::to_string(i) + ",\"name\":\"n" + std::to_string(i) +
           "\"}";
  }
  return out + "]";
}

std::shared_ptr<Session> LakeSession(const TempDir& dir) {
  auto session = Session::Make();
  session->setConf("sluice.sql.catalog.lake.type", "sql");
  session->setConf("sluice.sql.catalog.lake.uri", "sqlite:///" + dir.Sub("catalog.db"));
  session->setConf("sluice.sql.catalog.lake.warehouse", dir.Sub("wh"));
  session->setConf("sluice.sql.catalog.local.warehouse", dir.Sub("local-wh"));
  return session;
}

Result<StreamingQuery> Start(const DataFrame& df, const std::string& ckpt, const std::string& table) {
  return df.writeStream().option("checkpointLocation", ckpt).trigger(AvailableNow()).toTable(table);
}

std::vector<int64_t> ReadIds(const std::shared_ptr<Session>& session, const std::string& table) {
  auto df = session->read().table(table);
  EXPECT_OK(df);
  auto rows = df->collect();
  EXPECT_OK(rows);
  return SortedInts(*rows, "id");
}

TEST(IcebergStream, ToTableCreatesTheTableAndRestartsContinueExactlyOnce) {
  TempDir dir;
  auto session = LakeSession(dir);
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 5)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, Start(input.toDF(), dir.Sub("ckpt"), "lake.db.events"));
    ASSERT_OK(q.awaitTermination());
  }
  ASSERT_OK(input.addJson(Rows(5, 3)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, Start(input.toDF(), dir.Sub("ckpt"), "lake.db.events"));
    ASSERT_OK(q.awaitTermination());
    EXPECT_THAT(q.lastProgress(), HasSubstr("IcebergSink[lake.db.events]"));
  }
  EXPECT_EQ(ReadIds(session, "lake.db.events"), Range(0, 8));
  ASSERT_OK_AND_ASSIGN(auto df, session->read().format("iceberg").load("lake.db.events"));
  EXPECT_EQ(df.schema()->field(0)->name(), "id");
  auto filtered = df.filter(col("id") >= lit(int64_t{6})).collect();
  ASSERT_OK(filtered.status());
  EXPECT_EQ(SortedInts(*filtered, "id"), Range(6, 8));
}

TEST(IcebergStream, TwoPartNamesGoToTheLocalHadoopCatalog) {
  TempDir dir;
  auto session = LakeSession(dir);
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 4)).status());
  ASSERT_OK_AND_ASSIGN(auto q, input.toDF()
                                   .writeStream()
                                   .format("iceberg")
                                   .option("checkpointLocation", dir.Sub("ckpt"))
                                   .trigger(AvailableNow())
                                   .start("db.events"));
  ASSERT_OK(q.awaitTermination());
  EXPECT_TRUE(fs::exists(dir.Sub("local-wh/db/events/metadata/v2.metadata.json")));
  EXPECT_EQ(ReadIds(session, "local.db.events"), Range(0, 4));
}

TEST(IcebergStream, AQueryWhoseColumnsDoNotMatchTheTableIsRefusedAtStart) {
  TempDir dir;
  auto session = LakeSession(dir);
  MemoryStream a(session, "id BIGINT, name STRING");
  ASSERT_OK(a.addJson(Rows(0, 1)).status());
  ASSERT_OK_AND_ASSIGN(auto q, Start(a.toDF(), dir.Sub("ckpt-a"), "lake.db.events"));
  ASSERT_OK(q.awaitTermination());
  MemoryStream b(session, "id STRING, name STRING");
  auto refused = Start(b.toDF(), dir.Sub("ckpt-b"), "lake.db.events");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("column 'id' is string in the query but long"))
      << refused.status().ToString();
  auto missing = session->read().table("lake.db.nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("lake.db.nope does not exist"));
}

TEST(IcebergStream, MergeSchemaLetsAStreamAddANullableColumnToAnExistingTable) {
  TempDir dir;
  auto session = LakeSession(dir);
  MemoryStream a(session, "id BIGINT, name STRING");
  ASSERT_OK(a.addJson(Rows(0, 3)).status());
  ASSERT_OK_AND_ASSIGN(auto q, Start(a.toDF(), dir.Sub("ckpt-a"), "lake.db.events"));
  ASSERT_OK(q.awaitTermination());

  MemoryStream b(session, "id BIGINT, name STRING, score DOUBLE");
  ASSERT_OK(b.addJson(R"([{"id":3,"name":"n3","score":1.5},{"id":4,"name":"n4","score":2.5}])").status());
  auto refused = Start(b.toDF(), dir.Sub("ckpt-b"), "lake.db.events");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("column 'score'")) << refused.status().ToString();
  EXPECT_THAT(refused.status().message(), HasSubstr("mergeSchema")) << refused.status().ToString();

  ASSERT_OK_AND_ASSIGN(auto q2, b.toDF()
                                    .writeStream()
                                    .option("checkpointLocation", dir.Sub("ckpt-b"))
                                    .option("mergeSchema", "true")
                                    .option("allowOtherQueries", "true")  // a second query, on purpose
                                    .trigger(AvailableNow())
                                    .toTable("lake.db.events"));
  ASSERT_OK(q2.awaitTermination());
  EXPECT_EQ(ReadIds(session, "lake.db.events"), Range(0, 5));
  ASSERT_OK_AND_ASSIGN(auto df, session->read().table("lake.db.events"));
  ASSERT_OK_AND_ASSIGN(auto nulls, df.filter(col("score").isNull()).collect());
  EXPECT_EQ(SortedInts(nulls, "id"), Range(0, 3));
  ASSERT_OK_AND_ASSIGN(auto scored, df.filter(col("score") > lit(2.0)).collect());
  EXPECT_EQ(SortedInts(scored, "id"), std::vector<int64_t>{4});
}

TEST(IcebergStream, ARestartAfterTheCatalogWasDeletedIsRefusedAndWritesNothing) {
  TempDir dir;
  auto session = LakeSession(dir);
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 5)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, Start(input.toDF(), dir.Sub("ckpt"), "lake.db.events"));
    ASSERT_OK(q.awaitTermination());
  }
  ASSERT_OK(input.addJson(Rows(5, 3)).status());
  fs::remove(dir.Sub("catalog.db"));
  auto refused = Start(input.toDF(), dir.Sub("ckpt"), "lake.db.events");
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("Iceberg table lake.db.events does not exist, but checkpoint '" +
                                                    fs::absolute(dir.Sub("ckpt")).string() +
                                                    "' committed batches up to 0 into it"));
  EXPECT_FALSE(session->read().table("lake.db.events").ok());  // no new, empty table
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/offsets/1")));
}

TEST(IcebergStream, ADeletedCheckpointMetadataNextToItsTableIsRefusedNotANewQuery) {
  TempDir dir;
  auto session = LakeSession(dir);
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 4)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, Start(input.toDF(), dir.Sub("ckpt"), "lake.db.events"));
    ASSERT_OK(q.awaitTermination());
  }
  fs::remove(dir.Sub("ckpt/metadata"));
  auto refused = Start(input.toDF(), dir.Sub("ckpt"), "lake.db.events");
  ASSERT_FALSE(refused.ok());
  // Named as the deleted file it is; no new query id, and the logs are left as they were.
  EXPECT_THAT(refused.status().message(), HasSubstr("but no 'metadata' file: it was deleted"));
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/metadata")));
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/offsets/0")));
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/commits/0")));
  EXPECT_EQ(ReadIds(session, "lake.db.events"), (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST(IcebergStream, ARefusedFirstStartWritesNothingIntoTheCheckpoint) {
  TempDir dir;
  auto session = LakeSession(dir);
  MemoryStream a(session, "id BIGINT, name STRING");
  ASSERT_OK(a.addJson(Rows(0, 3)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, Start(a.toDF(), dir.Sub("ckpt-a"), "lake.db.events"));
    ASSERT_OK(q.awaitTermination());
  }
  MemoryStream b(session, "id BIGINT, name STRING");
  ASSERT_OK(b.addJson(Rows(10, 2)).status());
  auto refused = Start(b.toDF(), dir.Sub("ckpt-b"), "lake.db.events");  // another query's table
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("allowOtherQueries"));
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt-b/metadata")));
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt-b/sink")));
  // The corrected query (here also a changed plan) starts on the same checkpoint.
  ASSERT_OK_AND_ASSIGN(auto q, b.toDF()
                                   .filter(col("id") > lit(int64_t{10}))
                                   .writeStream()
                                   .option("checkpointLocation", dir.Sub("ckpt-b"))
                                   .option("allowOtherQueries", "true")
                                   .trigger(AvailableNow())
                                   .toTable("lake.db.events"));
  ASSERT_OK(q.awaitTermination());
  EXPECT_EQ(ReadIds(session, "lake.db.events"), (std::vector<int64_t>{0, 1, 2, 11}));
}

// The static side of a stream-static join is an Iceberg table: each batch joins the table's
// current snapshot, and the offsets log records which one.
TEST(IcebergStream, AnIcebergTableIsTheStaticSideOfAJoinAndEachBatchRecordsItsSnapshot) {
  TempDir dir;
  auto session = LakeSession(dir);
  MemoryStream users(session, "id BIGINT, name STRING");
  ASSERT_OK(users.addJson(Rows(0, 2)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, Start(users.toDF(), dir.Sub("users-ckpt"), "lake.db.users"));
    ASSERT_OK(q.awaitTermination());
  }
  MemoryStream clicks(session, "id BIGINT, v BIGINT");
  ASSERT_OK_AND_ASSIGN(auto dim, session->read().table("lake.db.users"));
  ASSERT_FALSE(dim.isStreaming());
  DataFrame joined = clicks.toDF().join(dim, "id", "left");
  ASSERT_OK(joined.status());
  std::map<int64_t, std::vector<std::string>> batches;
  auto run = [&]() -> Status {
    ARROW_ASSIGN_OR_RAISE(auto q, joined.writeStream()
                                      .option("checkpointLocation", dir.Sub("join-ckpt"))
                                      .foreachBatch([&batches](const std::shared_ptr<arrow::Table>& t, int64_t id) {
                                        batches[id] = RowLines(t);
                                        return Status::OK();
                                      })
                                      .trigger(AvailableNow())
                                      .start());
    return q.awaitTermination();
  };
  ASSERT_OK(clicks.addJson(R"([{"id":0,"v":1},{"id":3,"v":2}])").status());
  ASSERT_OK(run());
  // A new snapshot of the dimension: the next batch sees id 3.
  ASSERT_OK(users.addJson(Rows(3, 1)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, Start(users.toDF(), dir.Sub("users-ckpt"), "lake.db.users"));
    ASSERT_OK(q.awaitTermination());
  }
  ASSERT_OK(clicks.addJson(R"([{"id":3,"v":4}])").status());
  ASSERT_OK(run());
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0], (std::vector<std::string>{"0|1|n0", "3|2|null"}));
  EXPECT_EQ(batches[1], (std::vector<std::string>{"3|4|n3"}));
  const std::string first = ReadText(dir.Sub("join-ckpt/offsets/0"));
  const std::string second = ReadText(dir.Sub("join-ckpt/offsets/1"));
  EXPECT_THAT(first, HasSubstr("{\"snapshot\":"));
  EXPECT_THAT(second, HasSubstr("{\"snapshot\":"));
  EXPECT_NE(first.substr(first.find("{\"snapshot\":")), second.substr(second.find("{\"snapshot\":")))
      << "the two batches joined different snapshots";
}

}  // namespace
}  // namespace sluice::testing
