// Stream-stream joins through the C++ API: every join type over two memory streams with a
// range condition, outer rows emitted once the watermark passes them (in the no-data batch
// that only moves the watermark), state per side in progress, restarts between batches, a
// window/event-time key equality, the start-up refusals, the max watermark policy, and eviction
// by the state's time entries (a key's later rows kept in place; state written without them).
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <map>
#include <tuple>

#include "api/access.h"
#include "integration/stateful_events.h"
#include "integration/test_util.h"
#include "plan/expr.h"
#include "sluice/sluice.h"
#include "state/state_file.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

// {"id":..,"v":..,"ts":..} with ts `secs` after kBaseSecs, under the given column names.
std::string Rows(const std::string& id, const std::string& v, const std::string& ts,
                 const std::vector<std::tuple<std::string, int64_t, int64_t>>& rows) {
  std::string out = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    Event e{0, std::get<0>(rows[i]), std::get<1>(rows[i]), std::get<2>(rows[i])};
    std::string j = EventJson(e);  // {"id":0,"k":..,"v":..,"ts":..}
    j = "{\"" + id + "\"" + j.substr(j.find(",\"k\"") + 4);
    j.replace(j.find("\"v\""), 3, "\"" + v + "\"");
    j.replace(j.find("\"ts\""), 4, "\"" + ts + "\"");
    out += (i ? "," : "") + j;
  }
  return out + "]";
}

// `t` + `secs` seconds, as the SQL front end writes t + INTERVAL 'n' SECOND.
Column PlusSeconds(const Column& t, int64_t secs) {
  auto i64 = [](int64_t x) { return plan::Expr::Literal(std::make_shared<arrow::Int64Scalar>(x)); };
  return api::MakeColumn(plan::Expr::Call("add_interval", {api::ExprOf(t), i64(0), i64(0), i64(secs * 1000000)}));
}

struct StreamJoinFixture {
  TempDir dir;
  std::shared_ptr<Session> session = Session::Make();
  MemoryStream imps{session, "id STRING, iv BIGINT, its TIMESTAMP"};
  MemoryStream clicks{session, "cid STRING, cv BIGINT, cts TIMESTAMP"};
  std::map<int64_t, std::vector<std::string>> batches;
  std::string last_progress;

  StreamJoinFixture() { session->setConf("spark.sql.shuffle.partitions", "2"); }

  DataFrame Left() const { return imps.toDF().withWatermark("its", "10 seconds"); }
  DataFrame Right() const { return clicks.toDF().withWatermark("cts", "10 seconds"); }
  // id = cid AND cts BETWEEN its AND its + 20 seconds
  Column Condition() const {
    return col("id") == col("cid") && col("cts") >= col("its") && col("cts") <= PlusSeconds(col("its"), 20);
  }
  DataFrame Joined(const std::string& how) const { return Left().join(Right(), Condition(), how); }

  void AddImps(const std::vector<std::tuple<std::string, int64_t, int64_t>>& rows) {
    ASSERT_OK(imps.addJson(Rows("id", "iv", "its", rows)).status());
  }
  void AddClicks(const std::vector<std::tuple<std::string, int64_t, int64_t>>& rows) {
    ASSERT_OK(clicks.addJson(Rows("cid", "cv", "cts", rows)).status());
  }

  // One availableNow run on the checkpoint (a restart after the first), each batch's rows kept.
  Status Run(const DataFrame& df, const std::string& mode = "append") {
    ARROW_ASSIGN_OR_RAISE(auto q, df.writeStream()
                                      .outputMode(mode)
                                      .option("checkpointLocation", dir.Sub("ckpt"))
                                      .foreachBatch([this](const std::shared_ptr<arrow::Table>& t, int64_t id) {
                                        batches[id] = RowLines(t);
                                        return Status::OK();
                                      })
                                      .trigger(AvailableNow())
                                      .start());
    ARROW_RETURN_NOT_OK(q.awaitTermination());
    last_progress = q.lastProgress();
    return Status::OK();
  }

  std::vector<std::string> All() const {
    std::vector<std::string> out;
    for (const auto& [id, rows] : batches) out.insert(out.end(), rows.begin(), rows.end());
    std::sort(out.begin(), out.end());
    return out;
  }
};

// Two runs (a restart between them): batch 0 has a@0, b@0, x@0 | a@5, b@50, y@3; the second
// run adds c@100 | c@101 and its no-data batch moves the watermark to 90 s: left rows with
// its <= 70 s - 1 ms and right rows with cts <= 90 s - 1 ms are evicted.
std::vector<std::string> RunTwoPhases(StreamJoinFixture* f, const std::string& how) {
  f->AddImps({{"a", 1, 0}, {"b", 2, 0}, {"x", 3, 0}});
  f->AddClicks({{"a", 10, 5}, {"b", 20, 50}, {"y", 30, 3}});
  DataFrame df = f->Joined(how);
  EXPECT_TRUE(df.ok()) << df.status();
  EXPECT_TRUE(f->Run(df).ok()) << how;
  f->AddImps({{"c", 4, 100}});
  f->AddClicks({{"c", 40, 101}});
  Status st = f->Run(df);
  EXPECT_TRUE(st.ok()) << how << ": " << st;
  return f->All();
}

TEST(StreamStreamJoin, EveryJoinTypeWithARangeCondition) {
  const std::map<std::string, std::vector<std::string>> expected = {
      {"inner", {"a|1|0|a|10|5", "c|4|100|c|40|101"}},
      {"left_outer", {"a|1|0|a|10|5", "b|2|0|null|null|null", "c|4|100|c|40|101", "x|3|0|null|null|null"}},
      {"right_outer", {"a|1|0|a|10|5", "c|4|100|c|40|101", "null|null|null|b|20|50", "null|null|null|y|30|3"}},
      {"full_outer", {"a|1|0|a|10|5", "b|2|0|null|null|null", "c|4|100|c|40|101", "null|null|null|b|20|50",
                      "null|null|null|y|30|3", "x|3|0|null|null|null"}},
      {"left_semi", {"a|1|0", "c|4|100"}},
  };
  for (const auto& [how, rows] : expected) {
    StreamJoinFixture f;
    EXPECT_EQ(RunTwoPhases(&f, how), rows) << how;
  }
}

TEST(StreamStreamJoin, OuterRowsComeInTheBatchThatOnlyMovesTheWatermark) {
  StreamJoinFixture f;
  RunTwoPhases(&f, "left_outer");
  // Run 1: batch 0 (a matched); batch 1 (no data: watermark -10 s) evicts nothing.
  // Run 2: batch 2 (c matched); batch 3 (no data: watermark 90 s) emits b and x.
  ASSERT_EQ(f.batches.size(), 4u);
  EXPECT_EQ(f.batches[0], (std::vector<std::string>{"a|1|0|a|10|5"}));
  EXPECT_TRUE(f.batches[1].empty());
  EXPECT_EQ(f.batches[2], (std::vector<std::string>{"c|4|100|c|40|101"}));
  EXPECT_EQ(f.batches[3], (std::vector<std::string>{"b|2|0|null|null|null", "x|3|0|null|null|null"}));
  // State after batch 3: c on each side; evicted: a, b, x (left) and a, b, y (right).
  EXPECT_THAT(f.last_progress, HasSubstr("\"operatorName\":\"symmetricHashJoin\""));
  EXPECT_THAT(f.last_progress, HasSubstr("\"numRowsTotal\":2"));
  EXPECT_THAT(f.last_progress, HasSubstr("\"numRowsRemoved\":6"));
  EXPECT_THAT(f.last_progress, HasSubstr("\"numLeftStateRows\":1"));
  EXPECT_THAT(f.last_progress, HasSubstr("\"numRightStateRows\":1"));
  EXPECT_THAT(f.last_progress, HasSubstr("\"numLeftRowsEvicted\":3"));
  EXPECT_THAT(f.last_progress, HasSubstr("\"numRightRowsEvicted\":3"));
}

TEST(StreamStreamJoin, LateRowsAreDroppedAndCounted) {
  StreamJoinFixture f;
  RunTwoPhases(&f, "inner");
  // The watermark is now 90 s: a click at 60 s is late (the previous batch's watermark, 90 s,
  // is already in force for the batch after the no-data one).
  f.AddClicks({{"c", 50, 60}});
  f.AddImps({{"d", 5, 200}});
  ASSERT_OK(f.Run(f.Joined("inner")));
  EXPECT_EQ(f.All(), (std::vector<std::string>{"a|1|0|a|10|5", "c|4|100|c|40|101"}));
  EXPECT_THAT(f.last_progress, HasSubstr("\"numRowsDroppedByWatermark\":1"));
}

TEST(StreamStreamJoin, SameBatchPairsAreJoinedOnceAndMatchesAcrossBatches) {
  StreamJoinFixture f;
  DataFrame df = f.Joined("inner");
  f.AddImps({{"a", 1, 0}, {"a", 2, 1}});
  f.AddClicks({{"a", 10, 2}});
  ASSERT_OK(f.Run(df));
  f.AddClicks({{"a", 20, 3}});
  ASSERT_OK(f.Run(df));
  EXPECT_EQ(f.All(), (std::vector<std::string>{"a|1|0|a|10|2", "a|1|0|a|20|3", "a|2|1|a|10|2", "a|2|1|a|20|3"}));
}

TEST(StreamStreamJoin, EventTimeKeyEqualityEvictsByKey) {
  StreamJoinFixture f;
  DataFrame df = f.Left().join(f.Right(), col("id") == col("cid") && col("its") == col("cts"), "left");
  ASSERT_OK(df.status());
  EXPECT_THAT(api::PhysicalPlanText(df), HasSubstr("left state evicted when key its <= watermark"));
  f.AddImps({{"a", 1, 0}, {"b", 2, 0}});
  f.AddClicks({{"a", 10, 0}});
  ASSERT_OK(f.Run(df));
  f.AddImps({{"c", 3, 100}});
  f.AddClicks({{"c", 30, 100}});
  ASSERT_OK(f.Run(df));
  EXPECT_EQ(f.All(), (std::vector<std::string>{"a|1|0|a|10|0", "b|2|0|null|null|null", "c|3|100|c|30|100"}));
}

TEST(StreamStreamJoin, RefusedAtStartWithTheMissingPieceNamed) {
  StreamJoinFixture f;
  auto start_error = [&](const DataFrame& df, const std::string& mode) {
    auto q = df.writeStream().outputMode(mode).format("memory").queryName("q").start();
    if (!q.ok()) return q.status().message();
    EXPECT_OK(q->stop());
    return std::string("started");
  };
  // Update mode gives the same rows as append (Spark 4 runs it too); complete has nothing to
  // complete without an aggregation.
  EXPECT_EQ(start_error(f.Joined("inner"), "update"), "started");
  EXPECT_THAT(start_error(f.Joined("inner"), "complete"), HasSubstr("Complete output mode not supported"));
  EXPECT_THAT(start_error(f.imps.toDF().join(f.Right(), f.Condition(), "left"), "append"),
              HasSubstr("the left input has no watermark"));
  EXPECT_THAT(start_error(f.Left().join(f.Right(), col("id") == col("cid"), "left"), "append"),
              HasSubstr("Stream-stream LeftOuter join between two streaming DataFrame/Datasets is not supported "
                        "without a watermark in the join keys"));
  // cts >= its bounds the right side only: fine for a right outer join, not for a left one.
  Column right_bound = col("id") == col("cid") && col("cts") >= col("its");
  EXPECT_THAT(start_error(f.Left().join(f.Right(), right_bound, "left"), "append"),
              HasSubstr("bound the left input's watermarked event time"));
  EXPECT_EQ(start_error(f.Left().join(f.Right(), right_bound, "right"), "append"), "started");
  EXPECT_THAT(f.Left().join(f.Right(), f.Condition(), "left_anti").status().message(),
              HasSubstr("left_anti join between two streaming DataFrames/Datasets is not supported"));
  // An inner join needs no watermark (its state is never evicted).
  EXPECT_OK(f.imps.toDF().join(f.clicks.toDF(), col("id") == col("cid")).status());
}

TEST(StreamStreamJoin, MaxWatermarkPolicyFollowsTheFasterInput) {
  StreamJoinFixture f;
  f.session->setConf("spark.sql.streaming.multipleWatermarkPolicy", "max");
  DataFrame df = f.Joined("left");
  // Only the right stream moves on: with max its watermark (90 s) decides, so the left rows
  // (a@0 unmatched) are emitted although the left input has seen nothing new.
  f.AddImps({{"a", 1, 0}});
  f.AddClicks({{"z", 10, 0}});
  ASSERT_OK(f.Run(df));
  f.AddClicks({{"z", 20, 100}});
  ASSERT_OK(f.Run(df));
  EXPECT_EQ(f.All(), (std::vector<std::string>{"a|1|0|null|null|null"}));
  // With min the slow left input holds the watermark back: nothing is emitted.
  StreamJoinFixture g;
  DataFrame dg = g.Joined("left");
  g.AddImps({{"a", 1, 0}});
  g.AddClicks({{"z", 10, 0}});
  ASSERT_OK(g.Run(dg));
  g.AddClicks({{"z", 20, 100}});
  ASSERT_OK(g.Run(dg));
  EXPECT_TRUE(g.All().empty());
}

// Rewrites the state files under `dir`, the join's time entries and their marker (keys whose
// first byte is 0x00-0x02) replaced by what `edit` gives (nullopt: dropped); returns how many
// it saw.
int EditTimeEntries(const std::string& dir, const std::function<std::optional<std::string>(std::string_view)>& edit) {
  int seen = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext != ".delta" && ext != ".snapshot") continue;
    const auto kind = ext == ".delta" ? state::StateFileKind::kDelta : state::StateFileKind::kSnapshot;
    const int64_t version = std::stoll(e.path().stem().string());
    state::StateFileWriter out(kind, version);
    const Status read = state::ReadStateFile(
        e.path().string(), ReadText(e.path().string()), kind, version, [&](std::string_view k, const std::string_view* v) {
          if (!k.empty() && static_cast<unsigned char>(k[0]) <= 2 && v) {
            ++seen;
            if (auto edited = edit(k)) out.Put(k, *edited);
          } else if (v) {
            out.Put(k, *v);
          } else {
            out.Remove(k);
          }
        });
    EXPECT_OK(read);
    WriteText(e.path().string(), out.Finish());
  }
  return seen;
}

// The state as a sluice from before the time entries left it.
int StripTimeEntries(const std::string& dir) {
  return EditTimeEntries(dir, [](std::string_view) { return std::nullopt; });
}

// Key a has rows at 0, 30 and 80 s. The watermark 70 s (min of 70 and 90) expires the first two
// (left rows go at its <= 50 s - 1 ms), emitted null-extended; a@80 moves to index 0 and still
// matches a click at 95 s after the restart, and the watermark 190 s then expires it too. With
// `old_state`, the state written by the first run loses its time entries before the second.
std::vector<std::string> RunKeyWithMixedTimes(StreamJoinFixture* f, bool old_state) {
  DataFrame df = f->Joined("left");
  EXPECT_OK(df.status());
  f->AddImps({{"a", 1, 0}, {"a", 3, 30}, {"a", 2, 80}});
  f->AddClicks({{"z", 10, 100}});
  EXPECT_OK(f->Run(df));
  if (old_state) {
    EXPECT_GT(StripTimeEntries(f->dir.Sub("ckpt/state")), 0);
  }
  f->AddImps({{"y", 4, 200}});
  f->AddClicks({{"a", 20, 95}, {"z", 30, 300}});
  EXPECT_OK(f->Run(df));
  return f->All();
}

TEST(StreamStreamJoin, EvictionLeavesAKeysLaterRowsInPlace) {
  for (const std::string provider : {"file", "rocksdb"}) {
    for (bool old_state : {false, true}) {
      SCOPED_TRACE(provider + (old_state ? ", state without time entries" : ""));
      StreamJoinFixture f;
      f.session->setConf("spark.sql.streaming.stateStore.providerClass", provider);
      EXPECT_EQ(RunKeyWithMixedTimes(&f, old_state),
                (std::vector<std::string>{"a|1|0|null|null|null", "a|2|80|a|20|95", "a|3|30|null|null|null"}));
      ASSERT_EQ(f.batches.size(), 4u);
      std::sort(f.batches[1].begin(), f.batches[1].end());
      EXPECT_EQ(f.batches[1], (std::vector<std::string>{"a|1|0|null|null|null", "a|3|30|null|null|null"}));
      // Batch 3 (watermark 190 s): a@80 (matched) goes from the left; z@100 and a@95 from the right.
      EXPECT_THAT(f.last_progress, HasSubstr("\"numLeftStateRows\":1"));
      EXPECT_THAT(f.last_progress, HasSubstr("\"numRightStateRows\":1"));
      EXPECT_THAT(f.last_progress, HasSubstr("\"numLeftRowsEvicted\":1"));
      EXPECT_THAT(f.last_progress, HasSubstr("\"numRightRowsEvicted\":2"));
    }
  }
}

// b@49.950 s and c@49.9995 s share a 100 ms time entry that the first eviction bound (49.999 s)
// ends inside: b goes, c stays with the entry and goes once the watermark passes it.
TEST(StreamStreamJoin, RowsAfterTheBoundInTheSameTimeEntryStay) {
  StreamJoinFixture f;
  DataFrame df = f.Joined("left");
  ASSERT_OK(df.status());
  ASSERT_OK(f.imps.addJson(R"([{"id":"b","iv":2,"its":"2026-01-01T00:00:49.950"},)"
                           R"({"id":"c","iv":3,"its":"2026-01-01T00:00:49.9995"},)"
                           R"({"id":"y","iv":4,"its":"2026-01-01T00:01:20"}])").status());
  f.AddClicks({{"z", 10, 100}});
  ASSERT_OK(f.Run(df));
  ASSERT_EQ(f.batches.size(), 2u);
  ASSERT_EQ(f.batches[1].size(), 1u);
  EXPECT_THAT(f.batches[1][0], ::testing::StartsWith("b|2|"));
  EXPECT_THAT(f.last_progress, HasSubstr("\"numLeftStateRows\":2"));
  f.AddImps({{"w", 5, 200}});
  f.AddClicks({{"z", 20, 300}});
  ASSERT_OK(f.Run(df));
  ASSERT_EQ(f.batches.size(), 4u);
  std::sort(f.batches[3].begin(), f.batches[3].end());
  ASSERT_EQ(f.batches[3].size(), 2u);
  EXPECT_THAT(f.batches[3][0], ::testing::StartsWith("c|3|"));
  EXPECT_EQ(f.batches[3][1], "y|4|80|null|null|null");
  EXPECT_THAT(f.last_progress, HasSubstr("\"numLeftStateRows\":1"));
}

// A time entry cut short is reported with the operator, partition and side, not skipped.
TEST(StreamStreamJoin, DamagedTimeEntryIsReportedWhereItIs) {
  StreamJoinFixture f;
  DataFrame df = f.Joined("left");
  ASSERT_OK(df.status());
  f.AddImps({{"a", 1, 0}, {"y", 4, 80}});
  f.AddClicks({{"z", 10, 100}});
  ASSERT_OK(f.Run(df));
  // Every time entry now lists a cut-short key.
  EXPECT_GT(EditTimeEntries(f.dir.Sub("ckpt/state"), [](std::string_view k) -> std::optional<std::string> {
              if (k[0] == '\x02') return std::string("11");     // the marker: both sides complete
              return std::string("\x00\x00\x00\x02" "a", 5);  // a key said to be 2 bytes long, 1 there
            }),
            0);
  f.AddImps({{"w", 5, 200}});
  f.AddClicks({{"z", 20, 300}});
  const Status st = f.Run(df);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("stream-stream join state of operator 0 partition"));
  EXPECT_THAT(st.message(), HasSubstr("malformed time entry on the"));
  EXPECT_THAT(st.message(), HasSubstr("restore it or start from a new checkpointLocation"));
}

}  // namespace
}  // namespace sluice::testing
