// Trigger and no-data-batch semantics that change answers, held to Spark 4's behaviour:
// Trigger.Once runs exactly one batch; complete mode runs no no-data batches; a global
// aggregate in update mode emits its initial row on an empty first batch; the first batch's
// progress reports inputRowsPerSecond 0.0.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "integration/stateful_events.h"
#include "integration/test_util.h"
#include "sluice/sluice.h"

namespace sluice::testing {
namespace {

struct QueryRun {
  TempDir dir;
  std::shared_ptr<Session> session = Session::Make();
  MemoryStream input{session, kEventSchema};

  // One run of `df` to a memory table on the fixture's checkpoint; returns its progress list.
  Result<std::vector<std::string>> Start(const DataFrame& df, const std::string& mode, Trigger trigger) {
    ARROW_ASSIGN_OR_RAISE(auto q, df.writeStream()
                                      .format("memory")
                                      .queryName("out")
                                      .outputMode(mode)
                                      .option("checkpointLocation", dir.Sub("ckpt"))
                                      .trigger(trigger)
                                      .start());
    ARROW_RETURN_NOT_OK(q.awaitTermination());
    return q.recentProgress();
  }
  Status Add(const std::vector<Event>& events) {
    std::string json = "[";
    for (size_t i = 0; i < events.size(); ++i) json += (i ? "," : "") + EventJson(events[i]);
    return input.addJson(json + "]").status();
  }
  std::vector<std::string> Out() { return RowLines(session->memoryTable("out").ValueOrDie()); }
};

// The issue's case: 10 s windows, 10 s watermark, a@1 | a@25 | a@9 | a@40, each added and run
// with Trigger.Once. Spark: the run that reads a@25 moves the watermark to 15 but runs no second
// batch, so a@9 (not late for the batch that reads it: it uses watermark 0) joins [0, 10),
// which closes with count 2. A trailing no-data batch would close [0, 10) at count 1.
TEST(SparkTriggerSemantics, OnceRunsExactlyOneBatchEvenWhenTheWatermarkMoved) {
  QueryRun r;
  auto df = r.input.toDF()
                .withWatermark("ts", "10 seconds")
                .groupBy({window(col("ts"), "10 seconds"), col("k")})
                .agg({count(col("*")).alias("n")});
  ASSERT_OK(df.status());
  for (int64_t secs : {1, 25, 9, 40}) {
    ASSERT_OK(r.Add({{0, "a", 1, secs}}));
    ASSERT_OK_AND_ASSIGN(auto progress, r.Start(df, "append", Once()));
    EXPECT_EQ(progress.size(), 1u) << "after a@" << secs;
  }
  EXPECT_EQ(r.Out(), (std::vector<std::string>{"0|10|a|2"}));
}

TEST(SparkTriggerSemantics, OnceWithoutNewDataRunsTheNoDataBatchTheWatermarkNeeds) {
  QueryRun r;
  auto df = r.input.toDF()
                .withWatermark("ts", "0 seconds")
                .groupBy({window(col("ts"), "10 seconds"), col("k")})
                .agg({count(col("*")).alias("n")});
  ASSERT_OK(r.Add({{0, "a", 1, 1}, {1, "a", 1, 12}}));
  ASSERT_OK_AND_ASSIGN(auto first, r.Start(df, "append", Once()));
  EXPECT_EQ(first.size(), 1u);
  EXPECT_TRUE(r.Out().empty());
  ASSERT_OK_AND_ASSIGN(auto second, r.Start(df, "append", Once()));  // no new rows
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(second[0])["numInputRows"], 0);
  EXPECT_EQ(r.Out(), (std::vector<std::string>{"0|10|a|1"}));
}

TEST(SparkTriggerSemantics, CompleteModeRunsNoNoDataBatch) {
  QueryRun r;
  auto df = r.input.toDF()
                .withWatermark("ts", "0 seconds")
                .groupBy({window(col("ts"), "10 seconds"), col("k")})
                .agg({count(col("*")).alias("n")});
  ASSERT_OK(r.Add({{0, "a", 1, 1}, {1, "a", 1, 25}}));
  ASSERT_OK_AND_ASSIGN(auto complete, r.Start(df, "complete", AvailableNow()));
  EXPECT_EQ(complete.size(), 1u);  // the watermark moved to 25, but complete mode has nothing to evict
  // The same in append mode runs the no-data batch that closes [0, 10) and [20, 30) stays open.
  QueryRun a;
  auto adf = a.input.toDF()
                 .withWatermark("ts", "0 seconds")
                 .groupBy({window(col("ts"), "10 seconds"), col("k")})
                 .agg({count(col("*")).alias("n")});
  ASSERT_OK(a.Add({{0, "a", 1, 1}, {1, "a", 1, 25}}));
  ASSERT_OK_AND_ASSIGN(auto append, a.Start(adf, "append", AvailableNow()));
  EXPECT_EQ(append.size(), 2u);
  EXPECT_EQ(a.Out(), (std::vector<std::string>{"0|10|a|1"}));
}

TEST(SparkTriggerSemantics, GlobalAggregateInUpdateModeEmitsItsInitialRowOnAnEmptyFirstBatch) {
  QueryRun r;
  auto df = r.input.toDF().filter(col("v") > lit(100)).groupBy(std::vector<Column>{}).agg({count(col("*")).alias("n")});
  ASSERT_OK(r.Add({{0, "a", 1, 1}}));  // filtered out: batch 0 has no rows for the aggregate
  ASSERT_OK(r.Start(df, "update", AvailableNow()).status());
  EXPECT_EQ(r.Out(), (std::vector<std::string>{"0"}));
  ASSERT_OK(r.Add({{1, "a", 2, 2}}));  // a later empty batch emits nothing more
  ASSERT_OK(r.Start(df, "update", AvailableNow()).status());
  EXPECT_EQ(r.Out(), (std::vector<std::string>{"0"}));
}

TEST(SparkTriggerSemantics, FirstBatchProgressHasInputRowsPerSecondZero) {
  QueryRun r;
  ASSERT_OK(r.Add({{0, "a", 1, 1}}));
  ASSERT_OK_AND_ASSIGN(auto progress, r.Start(r.input.toDF(), "append", AvailableNow()));
  ASSERT_EQ(progress.size(), 1u);
  auto p = nlohmann::json::parse(progress[0]);
  ASSERT_TRUE(p.contains("inputRowsPerSecond"));
  EXPECT_EQ(p["inputRowsPerSecond"], 0.0);
  EXPECT_EQ(p["sources"][0]["inputRowsPerSecond"], 0.0);
}

}  // namespace
}  // namespace sluice::testing
