// The physical layer's contract: `explain` prints exactly the operators that run, each stateful
// operator describes its own state, and the output-mode setting parses once.
#include <gtest/gtest.h>

#include <sstream>

#include "api/access.h"
#include "exec/plan_executor.h"
#include "exec/physical_planner.h"
#include "plan/output_mode.h"
#include "sluice/sluice.h"
#include "support/status.h"
#include "unit/test_util_arrow.h"

namespace sluice::exec {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string FirstWord(const std::string& line) {
  const size_t begin = line.find_first_not_of(' ');
  return line.substr(begin, line.find(' ', begin) - begin);
}

class PhysicalPlanTest : public ::testing::Test {
 protected:
  std::shared_ptr<Session> session_ = Session::Make();
  MemoryStream input_{session_, "id BIGINT, name STRING, ts TIMESTAMP"};
  DataFrame events_ = input_.toDF();

  std::shared_ptr<arrow::Table> Rows() const {
    auto batch = sluice::testing::BatchFromJson(events_.schema(), R"([
      {"id": 1, "name": "a", "ts": "2024-01-01 10:00:00"},
      {"id": 2, "name": "b", "ts": "2024-01-01 10:00:03"},
      {"id": 3, "name": "a", "ts": "2024-01-01 10:00:04"},
      {"id": 1, "name": "a", "ts": "2024-01-01 10:00:00"}])");
    return arrow::Table::FromRecordBatches({batch}).ValueOrDie();
  }

  // Runs `df`'s plan as one streaming micro-batch (complete mode, in-memory state) and checks
  // that explain's lines are, in order, the operators that ran; returns their names.
  void ExpectExplainIsWhatRuns(const DataFrame& df, const std::vector<std::string>& names) {
    ASSERT_OK(df.status());
    ASSERT_OK_AND_ASSIGN(auto physical, PlanPhysical(*api::PlanOf(df)));
    const std::string explain = DescribePhysicalPlan(*api::PlanOf(df));
    EXPECT_EQ(explain, physical->Explain());

    auto stores = MakeMemoryStateStores(2);
    ExecContext ctx;
    ctx.streaming = true;
    ctx.output_mode = plan::OutputMode::kComplete;
    ctx.stores = stores.get();
    ASSERT_OK_AND_ASSIGN(auto output, ExecutePhysicalPlan(*physical, {Rows()}, &ctx));
    EXPECT_TRUE(output->schema()->Equals(*api::PlanOf(df)->schema, false));
    EXPECT_GT(output->num_rows(), 0);

    const auto lines = Lines(explain);
    ASSERT_EQ(lines.size(), ctx.operators_run.size()) << explain;
    std::vector<std::string> ran_names;
    for (size_t i = 0; i < lines.size(); ++i) {
      EXPECT_EQ(lines[i].substr(lines[i].find_first_not_of(' ')), ctx.operators_run[i]->Describe());
      ran_names.push_back(FirstWord(lines[i]));
    }
    EXPECT_EQ(ran_names, names) << explain;
    EXPECT_EQ(ctx.operators.size(), physical->stateful().size());
  }
};

TEST_F(PhysicalPlanTest, StatelessExplainIsWhatRuns) {
  ExpectExplainIsWhatRuns(events_.filter(col("id") > lit(1)).withColumn("upper", upper(col("name"))),
                          {"ProjectExec", "FilterExec", "ScanExec"});
}

TEST_F(PhysicalPlanTest, AggregateExplainIsWhatRuns) {
  auto counts = events_.withWatermark("ts", "10 seconds")
                    .groupBy({window(col("ts"), "10 seconds"), col("name")})
                    .agg({count(col("*")).alias("n")});
  ExpectExplainIsWhatRuns(counts, {"StateStoreSaveExec", "EventTimeWatermarkExec", "ScanExec"});
}

TEST_F(PhysicalPlanTest, SessionWindowExplainIsWhatRuns) {
  auto sessions = events_.withWatermark("ts", "10 seconds")
                      .groupBy({col("name"), session_window(col("ts"), "5 seconds")})
                      .agg({count(col("*")).alias("n")});
  ExpectExplainIsWhatRuns(sessions, {"SessionWindowStateStoreSaveExec", "EventTimeWatermarkExec", "ScanExec"});
}

TEST_F(PhysicalPlanTest, DedupExplainIsWhatRuns) {
  ExpectExplainIsWhatRuns(events_.withWatermark("ts", "10 seconds").dropDuplicates({"id", "ts"}),
                          {"StreamingDeduplicateExec", "EventTimeWatermarkExec", "ScanExec"});
  ExpectExplainIsWhatRuns(events_.withWatermark("ts", "10 seconds").dropDuplicatesWithinWatermark({"name"}),
                          {"StreamingDeduplicateWithinWatermarkExec", "EventTimeWatermarkExec", "ScanExec"});
}

TEST_F(PhysicalPlanTest, UnionAllRunsBothInputsAndWidensNumbersByPosition) {
  MemoryStream other{session_, "k INT, label STRING, at TIMESTAMP"};
  DataFrame both = events_.unionAll(other.toDF());
  ASSERT_OK(both.status());
  const auto& schema = *both.schema();
  ASSERT_EQ(schema.num_fields(), 3);
  EXPECT_EQ(schema.field(0)->name(), "id");
  EXPECT_EQ(schema.field(0)->type()->id(), arrow::Type::INT64) << "INT widened to BIGINT";
  EXPECT_EQ(schema.field(2)->name(), "ts") << "names from the first input";
  ASSERT_OK_AND_ASSIGN(auto physical, PlanPhysical(*api::PlanOf(both)));
  const auto lines = Lines(physical->Explain());
  ASSERT_EQ(lines.size(), 4u) << physical->Explain();
  EXPECT_EQ(FirstWord(lines[0]), "UnionExec");
  EXPECT_EQ(FirstWord(lines[2]), "ProjectExec") << "the INT side is cast to BIGINT";

  auto other_rows = arrow::Table::FromRecordBatches({sluice::testing::BatchFromJson(other.toDF().schema(), R"([
      {"k": 7, "label": "x", "at": "2024-01-01 11:00:00"}, {"k": 8, "label": null, "at": null}])")}).ValueOrDie();
  auto stores = MakeMemoryStateStores(2);
  ExecContext ctx;
  ctx.streaming = true;
  ctx.stores = stores.get();
  ASSERT_OK_AND_ASSIGN(auto output, ExecutePhysicalPlan(*physical, {Rows(), other_rows}, &ctx));
  std::vector<int64_t> got;
  for (const auto& chunk : output->GetColumnByName("id")->chunks()) {
    auto a = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < a->length(); ++i) got.push_back(a->Value(i));
  }
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3, 1, 7, 8}));
  EXPECT_TRUE(output->field(1)->nullable());

  auto static_rows = session_->createDataFrame(Rows());
  ASSERT_OK(static_rows.status());
  DataFrame mixed = events_.unionAll(*static_rows);
  EXPECT_THAT(mixed.status().message(), ::testing::HasSubstr("UNION ALL of a streaming and a static input"));
  DataFrame mismatch = events_.unionAll(events_.select({col("name"), col("id"), col("ts")}));
  EXPECT_THAT(mismatch.status().message(),
              ::testing::HasSubstr("column 1 is 'id' bigint in the first input but 'name' string in the second"));
}

TEST_F(PhysicalPlanTest, SortAndLimitExplainIsWhatRunsAndOrderTheCompleteResult) {
  auto top = events_.groupBy({col("name")})
                 .agg({count(col("*")).alias("n")})
                 .orderBy({{col("n"), /*ascending=*/false}, col("name")})
                 .limit(1);
  ExpectExplainIsWhatRuns(top, {"LimitExec", "SortExec", "StateStoreSaveExec", "ScanExec"});

  ASSERT_OK_AND_ASSIGN(auto physical, PlanPhysical(*api::PlanOf(top)));
  auto stores = MakeMemoryStateStores(2);
  ExecContext ctx;
  ctx.streaming = true;
  ctx.output_mode = plan::OutputMode::kComplete;
  ctx.stores = stores.get();
  ASSERT_OK_AND_ASSIGN(auto output, ExecutePhysicalPlan(*physical, {Rows()}, &ctx));
  ASSERT_EQ(output->num_rows(), 1);  // a: 3 rows, b: 1 row
  EXPECT_EQ(output->GetColumnByName("name")->GetScalar(0).ValueOrDie()->ToString(), "a");
  EXPECT_EQ(output->GetColumnByName("n")->GetScalar(0).ValueOrDie()->ToString(), "3");
}

TEST_F(PhysicalPlanTest, StreamsSortAndLimitOnlyInCompleteModeOverAnAggregation) {
  const DataFrame counts = events_.groupBy({col("name")}).agg({count(col("*")).alias("n")});
  const DataFrame sorted = counts.orderBy({col("n")});
  const DataFrame unaggregated_sort = events_.orderBy({col("id")});
  const DataFrame limited = counts.limit(2);
  const DataFrame unaggregated_limit = events_.limit(2);
  auto check = [](const DataFrame& df, plan::OutputMode mode) { return plan::CheckOutputMode(*api::PlanOf(df), mode); };
  EXPECT_OK(check(sorted, plan::OutputMode::kComplete));
  EXPECT_THAT(check(sorted, plan::OutputMode::kUpdate).message(),
              ::testing::HasSubstr("Sorting is not supported on streaming DataFrames/Datasets"));
  EXPECT_THAT(check(unaggregated_sort, plan::OutputMode::kAppend).message(), ::testing::HasSubstr("Sorting is not supported"));
  EXPECT_OK(check(limited, plan::OutputMode::kComplete));
  EXPECT_THAT(check(limited, plan::OutputMode::kUpdate).message(),
              ::testing::HasSubstr("Limits are not supported on streaming DataFrames/Datasets in Update output mode"));
  EXPECT_THAT(check(unaggregated_limit, plan::OutputMode::kAppend).message(),
              ::testing::HasSubstr("Append output mode is not supported"));
  EXPECT_FALSE(counts.limit(-1).ok());
}

// Operator ids follow the logical plan's stateful nodes, bottom-up, and each operator's state
// description is the text existing checkpoints hold in state/<op>/_metadata.
TEST_F(PhysicalPlanTest, StatefulOperatorsDescribeTheirOwnState) {
  auto df = events_.withWatermark("ts", "10 seconds")
                .dropDuplicates({"id", "ts"})
                .groupBy({window(col("ts"), "10 seconds"), col("name")})
                .agg({count(col("*")).alias("n"), max(col("id")).alias("top")});
  ASSERT_OK(df.status());
  ASSERT_OK_AND_ASSIGN(auto physical, PlanPhysical(*api::PlanOf(df)));
  ASSERT_EQ(physical->stateful().size(), 2u);
  ASSERT_EQ(physical->watermarks().size(), 1u);

  const auto dedup = physical->stateful()[0]->StateMetadata(3);
  EXPECT_EQ(dedup.operator_id, 0);
  EXPECT_EQ(dedup.num_partitions, 3);
  EXPECT_EQ(dedup.operator_name, "dedupe");
  EXPECT_EQ(dedup.key_schema, "[id bigint, ts timestamp]");
  EXPECT_EQ(dedup.value_schema, "[]");

  const auto agg = physical->stateful()[1]->StateMetadata(3);
  EXPECT_EQ(agg.operator_id, 1);
  EXPECT_EQ(agg.operator_name, "stateStoreSave");
  EXPECT_EQ(agg.key_schema, "[tumbling window(ts, 10000 ms), name] watermarked [ts]");
  EXPECT_EQ(agg.value_schema, "[count(1) AS n : n bigint, max(id) AS top : top bigint]");
}

TEST(OutputModeTest, ParsesOnceCaseInsensitivelyAndNamesABadValue) {
  ASSERT_OK_AND_ASSIGN(auto mode, plan::ParseOutputMode("Update"));
  EXPECT_EQ(mode, plan::OutputMode::kUpdate);
  ASSERT_OK_AND_ASSIGN(mode, plan::ParseOutputMode("COMPLETE"));
  EXPECT_EQ(mode, plan::OutputMode::kComplete);
  EXPECT_STREQ(plan::OutputModeName(plan::OutputMode::kAppend), "append");
  auto bad = plan::ParseOutputMode("upsert");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'upsert'"), std::string::npos) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("append, complete, update"), std::string::npos);
}

}  // namespace
}  // namespace sluice::exec
