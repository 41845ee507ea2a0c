// The vectorised aggregation of fixed-width keys (exec/fixed_key_aggregate.h) against the
// generic path, on the same batches: the same output rows in every batch and byte-identical
// state (so checkpoints written by either are read by the other) — with NULL keys, many groups,
// groups that span batches, late rows dropped by the watermark, sliding windows, aggregates
// folded column by column and ones folded row by row, in append, update and complete modes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "api/access.h"
#include "exec/fixed_key_aggregate.h"
#include "exec/physical_planner.h"
#include "exec/plan_executor.h"
#include "plan/output_mode.h"
#include "sluice/sluice.h"
#include "support/status.h"

namespace sluice::exec {
namespace {

constexpr int64_t kBaseUs = 1767225600LL * 1000000;  // 2026-01-01 00:00:00 UTC

struct RunResult {
  std::vector<std::shared_ptr<arrow::Table>> outputs;    // per batch, the output table (one chunk)
  std::map<std::pair<int, std::string>, std::string> state;  // (partition, key) -> value
  int64_t fast_batches = 0;                              // batches the vectorised path took
};

class FixedKeyAggregateTest : public ::testing::Test {
 protected:
  void TearDown() override { SetFixedKeyAggregationEnabled(true); }

  std::shared_ptr<Session> session_ = Session::Make();
  MemoryStream input_{session_, "k BIGINT, i INT, d DATE, ts TIMESTAMP, v BIGINT, x DOUBLE"};
  DataFrame events_ = input_.toDF().withWatermark("ts", "10 seconds");

  // `rows` seeded random rows; times move forward from batch to batch, with some late ones.
  std::shared_ptr<arrow::Table> Batch(int b, int64_t rows, int64_t keys, uint64_t seed) const {
    std::mt19937_64 rng(seed + static_cast<uint64_t>(b));
    auto schema = events_.schema();
    std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
    for (const auto& f : schema->fields()) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), f->type(), &builder).ok());
      builders.push_back(std::move(builder));
    }
    auto null_or = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t k = static_cast<int64_t>(rng() % static_cast<uint64_t>(keys));
      // Most rows in this batch's 30 s; one in ten 40 s earlier (late once the watermark moved).
      int64_t ts = kBaseUs + (b * 30 + static_cast<int64_t>(rng() % 30)) * 1000000 + static_cast<int64_t>(rng() % 1000);
      if (rng() % 10 == 0) ts -= 40 * 1000000;
      auto* kb = static_cast<arrow::Int64Builder*>(builders[0].get());
      EXPECT_TRUE((null_or(5) ? kb->AppendNull() : kb->Append(k)).ok());
      auto* ib = static_cast<arrow::Int32Builder*>(builders[1].get());
      EXPECT_TRUE((null_or(5) ? ib->AppendNull() : ib->Append(static_cast<int32_t>(k % 3) - 1)).ok());
      auto* db = static_cast<arrow::Date32Builder*>(builders[2].get());
      EXPECT_TRUE((null_or(3) ? db->AppendNull() : db->Append(20454 + static_cast<int32_t>(k % 2))).ok());
      auto* tb = static_cast<arrow::TimestampBuilder*>(builders[3].get());
      EXPECT_TRUE((null_or(2) ? tb->AppendNull() : tb->Append(ts)).ok());
      auto* vb = static_cast<arrow::Int64Builder*>(builders[4].get());
      EXPECT_TRUE((null_or(10) ? vb->AppendNull() : vb->Append(static_cast<int64_t>(rng() % 2001) - 1000)).ok());
      auto* xb = static_cast<arrow::DoubleBuilder*>(builders[5].get());
      // Multiples of 1/4: sums are exact whatever the order of addition.
      EXPECT_TRUE((null_or(10) ? xb->AppendNull() : xb->Append(static_cast<double>(rng() % 400) / 4.0)).ok());
    }
    arrow::ArrayVector arrays;
    for (auto& builder : builders) arrays.push_back(builder->Finish().ValueOrDie());
    return arrow::Table::Make(schema, arrays, rows);
  }

  // Runs `df` over `batches` micro-batches with the vectorised path on or off; the watermark
  // follows the rows (max event time - 10 s), the previous batch's drops late rows.
  // `pieces` > 1 hands each micro-batch's rows to the aggregation as that many input batches.
  RunResult RunBatches(const DataFrame& df, plan::OutputMode mode, bool fast, int batches, int64_t rows, int64_t keys,
                 int partitions = 2, int pieces = 1) {
    SetFixedKeyAggregationEnabled(fast);
    RunResult run;
    EXPECT_OK(df.status());
    auto physical = PlanPhysical(*api::PlanOf(df)).ValueOrDie();
    auto stores = MakeMemoryStateStores(partitions);
    const int64_t before = FixedKeyAggregationBatches();
    int64_t late_ms = std::numeric_limits<int64_t>::min();
    for (int b = 0; b < batches; ++b) {
      ExecContext ctx;
      ctx.streaming = true;
      ctx.output_mode = mode;
      ctx.batch_id = b;
      ctx.stores = stores.get();
      ctx.late_watermark_ms = late_ms;
      ctx.eviction_watermark_ms = (kBaseUs / 1000) + b * 30000 - 10000;
      late_ms = ctx.eviction_watermark_ms;
      auto input = Batch(b, rows, keys, 7);
      if (pieces > 1) {
        std::vector<std::shared_ptr<arrow::Table>> slices;
        for (int k = 0; k < pieces; ++k) {
          const int64_t begin = rows * k / pieces, end = rows * (k + 1) / pieces;
          slices.push_back(input->Slice(begin, end - begin));
        }
        input = arrow::ConcatenateTables(slices).ValueOrDie();
      }
      auto out = ExecutePhysicalPlan(*physical, {input}, &ctx);
      EXPECT_OK(out.status());
      if (!out.ok()) return run;
      run.outputs.push_back((*out)->CombineChunks().ValueOrDie());
    }
    for (int p = 0; p < partitions; ++p) {
      auto* store = stores->Get(0, p).ValueOrDie();
      EXPECT_OK(store->ForEach([&](std::string_view k, std::string_view v) {
        run.state[{p, std::string(k)}] = std::string(v);
        return Status::OK();
      }));
    }
    run.fast_batches = FixedKeyAggregationBatches() - before;
    return run;
  }

  // Every row and value (ToString would compare only the first rows of each column).
  static void ExpectSameTable(const arrow::Table& got, const arrow::Table& want, size_t batch) {
    // Table::Equals compares the columns, not the row count the table declares.
    EXPECT_OK(got.ValidateFull());
    EXPECT_EQ(got.num_rows(), want.num_rows()) << "batch " << batch;
    EXPECT_TRUE(got.Equals(want, arrow::EqualOptions::Defaults().nans_equal(true)))
        << "batch " << batch << " (" << got.num_rows() << " vs " << want.num_rows() << " rows):\n"
        << got.ToString() << "\nwant:\n" << want.ToString();
  }

  void ExpectSameAsGeneric(const DataFrame& df, plan::OutputMode mode, int batches = 4, int64_t rows = 3000,
                           int64_t keys = 500) {
    const RunResult generic = RunBatches(df, mode, false, batches, rows, keys);
    const RunResult fast = RunBatches(df, mode, true, batches, rows, keys);
    EXPECT_EQ(generic.fast_batches, 0);
    EXPECT_EQ(fast.fast_batches, batches) << "the vectorised path was not taken";
    ASSERT_EQ(fast.outputs.size(), generic.outputs.size());
    for (size_t b = 0; b < fast.outputs.size(); ++b) ExpectSameTable(*fast.outputs[b], *generic.outputs[b], b);
    EXPECT_EQ(fast.state, generic.state);
    EXPECT_FALSE(fast.state.empty() && mode != plan::OutputMode::kAppend);
  }
};

TEST_F(FixedKeyAggregateTest, TumblingWindowCountMatchesTheGenericPathInAppendMode) {
  ExpectSameAsGeneric(events_.groupBy({window(col("ts"), "10 seconds"), col("k")}).count(), plan::OutputMode::kAppend);
}

TEST_F(FixedKeyAggregateTest, ColumnWiseAggregatesMatchTheGenericPathWithNullKeys) {
  auto df = events_.groupBy({window(col("ts"), "10 seconds"), col("k"), col("i"), col("d")})
                .agg({count(col("*")).alias("n"), count(col("v")).alias("nv"), sum(col("v")).alias("sv"),
                      sum(col("x")).alias("sx"), avg(col("x")).alias("ax"), avg(col("v")).alias("av"),
                      min(col("v")).alias("lo"), max(col("ts")).alias("hi"), min(col("d")).alias("dlo")});
  ExpectSameAsGeneric(df, plan::OutputMode::kAppend);
  ExpectSameAsGeneric(df, plan::OutputMode::kUpdate);
}

TEST_F(FixedKeyAggregateTest, CountsOfNullableIntegerKeysOfEveryWidthMatchTheGenericPath) {
  // Counts alone over integer-like keys are output column by column (a vector per column, made
  // an array once): BIGINT, INT and DATE keys with NULLs, the window's bounds, two counts.
  auto df = events_.groupBy({window(col("ts"), "10 seconds"), col("k"), col("i"), col("d")})
                .agg({count(col("*")).alias("n"), count(col("v")).alias("nv")});
  for (auto mode : {plan::OutputMode::kAppend, plan::OutputMode::kUpdate, plan::OutputMode::kComplete}) {
    ExpectSameAsGeneric(df, mode);
  }
  ExpectSameAsGeneric(input_.toDF().groupBy({col("i"), col("d")}).count(), plan::OutputMode::kComplete);
  // No aggregate at all: the distinct groups alone.
  ExpectSameAsGeneric(events_.groupBy({window(col("ts"), "10 seconds"), col("i")}).agg({}), plan::OutputMode::kAppend);
  ExpectSameAsGeneric(input_.toDF().groupBy({col("k")}).agg({}), plan::OutputMode::kComplete);
  // One partition: its output table is the operator's, as built.
  const auto distinct = input_.toDF().groupBy({col("k")}).agg({});
  const RunResult one = RunBatches(distinct, plan::OutputMode::kComplete, true, 2, 3000, 500, 1);
  const RunResult generic = RunBatches(distinct, plan::OutputMode::kComplete, false, 2, 3000, 500, 1);
  ASSERT_EQ(one.outputs.size(), generic.outputs.size());
  for (size_t b = 0; b < one.outputs.size(); ++b) ExpectSameTable(*one.outputs[b], *generic.outputs[b], b);
}

// A state entry that does not decode while rows are output (complete mode outputs every entry)
// is reported with the operator and the partition whose state holds it, on both output paths:
// counts over integer keys column by column, and the others through builders.
TEST_F(FixedKeyAggregateTest, AStateEntryThatDoesNotDecodeIsReportedWithItsOperatorAndPartition) {
  const DataFrame counts = input_.toDF().groupBy({col("k")}).count();
  const DataFrame sums = input_.toDF().groupBy({col("k")}).agg({sum(col("v")).alias("sv")});
  for (const auto* df : {&counts, &sums}) {
    for (const bool fast : {true, false}) {
      SetFixedKeyAggregationEnabled(fast);
      auto physical = PlanPhysical(*api::PlanOf(*df)).ValueOrDie();
      auto stores = MakeMemoryStateStores(2);
      ExecContext ctx;
      ctx.streaming = true;
      ctx.output_mode = plan::OutputMode::kComplete;
      ctx.stores = stores.get();
      ASSERT_OK(ExecutePhysicalPlan(*physical, {Batch(0, 300, 50, 7)}, &ctx).status());
      // A key of 3 bytes where an encoded BIGINT (or null) takes 9.
      ASSERT_OK(stores->Get(0, 1).ValueOrDie()->Put(std::string("\x01\x02\x03", 3), std::string(16, '\0')));
      auto out = ExecutePhysicalPlan(*physical, {Batch(1, 300, 50, 7)}, &ctx);
      ASSERT_FALSE(out.ok()) << (fast ? "fast" : "generic");
      EXPECT_TRUE(out.status().IsIOError()) << out.status().ToString();
      EXPECT_THAT(out.status().message(), ::testing::HasSubstr("State of operator 0 partition 1 is unreadable: "))
          << out.status().ToString();
    }
  }
}

TEST_F(FixedKeyAggregateTest, RowWiseAggregatesOnFixedKeysMatchTheGenericPath) {
  auto df = events_.groupBy({window(col("ts"), "10 seconds"), col("k")})
                .agg({first(col("x")).alias("fx"), collect_list(col("v")).alias("vs"), countDistinct(col("i")).alias("di"),
                      sum(col("v")).alias("sv")});
  ExpectSameAsGeneric(df, plan::OutputMode::kUpdate);
}

TEST_F(FixedKeyAggregateTest, SlidingWindowsMatchTheGenericPath) {
  ExpectSameAsGeneric(events_.groupBy({window(col("ts"), "10 seconds", "5 seconds"), col("i")})
                          .agg({count(col("*")).alias("n"), max(col("v")).alias("hi")}),
                      plan::OutputMode::kAppend);
}

TEST_F(FixedKeyAggregateTest, WatermarkedGroupingColumnMatchesTheGenericPath) {
  // No window: the watermarked column goes first in the key; late rows are dropped by it.
  ExpectSameAsGeneric(events_.groupBy({col("ts"), col("k")}).count(), plan::OutputMode::kAppend, 4, 2000, 50);
}

TEST_F(FixedKeyAggregateTest, ManyGroupsSpanningBatchesInCompleteMode) {
  // 20,000 keys over 4 batches of 30,000 rows: every group is folded in more than one batch,
  // and the table grows several times.
  ExpectSameAsGeneric(input_.toDF().groupBy({col("k"), col("d")}).agg({count(col("*")).alias("n"), sum(col("v")).alias("s")}),
                      plan::OutputMode::kComplete, 4, 30000, 20000);
}

TEST_F(FixedKeyAggregateTest, InputInSeveralBatchesGivesTheSameRowsAndState) {
  // The vectorised path reads each input batch in place (no concatenation): a micro-batch of 3
  // input batches must give what the same rows in one batch give, on either path, with NULL
  // keys, min/max rows in any of the batches, and counts and sums spanning them.
  auto df = events_.groupBy({window(col("ts"), "10 seconds"), col("k"), col("i")})
                .agg({count(col("*")).alias("n"), count(col("v")).alias("nv"), sum(col("v")).alias("sv"),
                      avg(col("x")).alias("ax"), min(col("v")).alias("lo"), max(col("ts")).alias("hi")});
  for (auto mode : {plan::OutputMode::kAppend, plan::OutputMode::kUpdate}) {
    const RunResult whole = RunBatches(df, mode, true, 3, 3000, 400);
    const RunResult split = RunBatches(df, mode, true, 3, 3000, 400, 2, 3);
    const RunResult generic = RunBatches(df, mode, false, 3, 3000, 400, 2, 3);
    EXPECT_EQ(split.fast_batches, 3);
    ASSERT_EQ(split.outputs.size(), whole.outputs.size());
    for (size_t b = 0; b < whole.outputs.size(); ++b) ExpectSameTable(*split.outputs[b], *whole.outputs[b], b);
    EXPECT_EQ(split.state, whole.state);
    ASSERT_EQ(generic.outputs.size(), whole.outputs.size());
    for (size_t b = 0; b < whole.outputs.size(); ++b) ExpectSameTable(*generic.outputs[b], *whole.outputs[b], b);
    EXPECT_EQ(generic.state, whole.state);
    EXPECT_FALSE(whole.state.empty() && mode == plan::OutputMode::kUpdate);
  }
}

TEST_F(FixedKeyAggregateTest, StringKeysTakeTheGenericPath) {
  MemoryStream named{session_, "name STRING, ts TIMESTAMP"};
  auto df = named.toDF().groupBy({col("name")}).count();
  ASSERT_OK(df.status());
  auto physical = PlanPhysical(*api::PlanOf(df)).ValueOrDie();
  auto stores = MakeMemoryStateStores(1);
  ExecContext ctx;
  ctx.streaming = true;
  ctx.output_mode = plan::OutputMode::kComplete;
  ctx.stores = stores.get();
  auto schema = named.toDF().schema();
  arrow::StringBuilder names;
  ASSERT_OK(names.AppendValues({"a", "b", "a"}));
  arrow::TimestampBuilder ts(schema->field(1)->type(), arrow::default_memory_pool());
  ASSERT_OK(ts.AppendValues({1, 2, 3}));
  auto table = arrow::Table::Make(schema, {names.Finish().ValueOrDie(), ts.Finish().ValueOrDie()});
  const int64_t before = FixedKeyAggregationBatches();
  ASSERT_OK_AND_ASSIGN(auto out, ExecutePhysicalPlan(*physical, {table}, &ctx));
  EXPECT_EQ(out->num_rows(), 2);
  EXPECT_EQ(FixedKeyAggregationBatches(), before);
}

}  // namespace
}  // namespace sluice::exec
