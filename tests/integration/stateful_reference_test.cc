// Reference tests for event-time stateful queries: seeded random streams with disorder, late
// events and duplicates, cut into micro-batches, go through the engine and through a small
// reference of the rules (Spark 3.4+) fed the same batches; the outputs (exact rows, each
// window once) and numRowsDroppedByWatermark must agree. Complete mode must equal the batch
// query after every batch, and the result must not depend on spark.sql.shuffle.partitions.
//
// The rules the reference implements:
//   - watermark = max event time seen - delay, computed at the end of batch N, used by batch
//     N+1, never moving back; batch 0 drops nothing as late;
//   - in batch N a row is late (dropped, counted) when what it belongs to was closed by the
//     watermark batch N-1 used: a window whose end <= it; a session whose time + gap <= it; a
//     dedup row whose event time <= it;
//   - windows / sessions are emitted (append) and evicted when end <= batch N's watermark;
//     dedup keys are evicted when their event time (WithinWatermark: first time + delay) <= it;
//   - an availableNow run ends with a no-data batch when the watermark moved past the one its
//     last batch used.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "integration/stateful_events.h"
#include "integration/test_util.h"
#include "sluice/sluice.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

enum class Kind { kTumbling, kSliding, kSession, kDedup, kDedupWithin };

constexpr int64_t kDelay = 5;   // watermark delay, seconds
constexpr int64_t kSize = 10;   // window size
constexpr int64_t kSlide = 5;   // sliding window slide
constexpr int64_t kGap = 4;     // session gap
constexpr int64_t kNone = std::numeric_limits<int64_t>::min() / 4;

std::string KindName(Kind k) {
  switch (k) {
    case Kind::kTumbling: return "Tumbling";
    case Kind::kSliding: return "Sliding";
    case Kind::kSession: return "Session";
    case Kind::kDedup: return "Dedup";
    case Kind::kDedupWithin: return "DedupWithinWatermark";
  }
  return "?";
}

DataFrame Build(Kind kind, const DataFrame& events) {
  DataFrame marked = events.withWatermark("ts", std::to_string(kDelay) + " seconds");
  const std::vector<Column> aggs = {count(col("*")).alias("n"), sum(col("v")).alias("total")};
  switch (kind) {
    case Kind::kTumbling: return marked.groupBy({window(col("ts"), "10 seconds"), col("k")}).agg(aggs);
    case Kind::kSliding: return marked.groupBy({window(col("ts"), "10 seconds", "5 seconds"), col("k")}).agg(aggs);
    case Kind::kSession: return marked.groupBy({col("k"), session_window(col("ts"), "4 seconds")}).agg(aggs);
    case Kind::kDedup: return marked.dropDuplicates({"id", "ts"});
    case Kind::kDedupWithin: return marked.dropDuplicatesWithinWatermark({"id"});
  }
  return events;
}

int64_t FloorMod(int64_t a, int64_t b) { return ((a % b) + b) % b; }

// The rules above, for one query, over whole seconds after kBaseSecs.
class Reference {
 public:
  explicit Reference(Kind kind) : kind_(kind) {}

  /// Runs one availableNow query over `batches` (one micro-batch each), then the no-data batch.
  void AvailableNowRun(const std::vector<std::vector<Event>>& batches) {
    for (const auto& b : batches) Batch(b);
    if (watermark_ > used_) Batch({});
  }

  std::vector<std::string> Output() const {
    auto out = output_;
    std::sort(out.begin(), out.end());
    return out;
  }
  const std::vector<int64_t>& DroppedPerBatch() const { return dropped_; }

 private:
  struct Agg {
    int64_t n = 0;
    int64_t total = 0;
  };
  struct Sess {
    int64_t start, end;
    Agg agg;
  };

  void Batch(const std::vector<Event>& rows) {
    const int64_t late = batches_ == 0 ? kNone : used_;  // the watermark the previous batch used
    const int64_t evict = watermark_;
    int64_t dropped = 0;
    switch (kind_) {
      case Kind::kTumbling:
      case Kind::kSliding: {
        const int64_t slide = kind_ == Kind::kTumbling ? kSize : kSlide;
        for (const auto& e : rows) {
          for (int64_t start = e.secs - FloorMod(e.secs, slide); start > e.secs - kSize; start -= slide) {
            if (start + kSize <= late) {
              ++dropped;
              continue;
            }
            Agg& a = windows_[{start + kSize, start, e.k}];
            ++a.n;
            a.total += e.v;
          }
        }
        for (auto it = windows_.begin(); it != windows_.end() && std::get<0>(it->first) <= evict;) {
          const auto& [end, start, k] = it->first;
          output_.push_back(std::to_string(start) + "|" + std::to_string(end) + "|" + k + "|" +
                            std::to_string(it->second.n) + "|" + std::to_string(it->second.total));
          it = windows_.erase(it);
        }
        break;
      }
      case Kind::kSession: {
        for (const auto& e : rows) {
          if (e.secs + kGap <= late) {
            ++dropped;
            continue;
          }
          auto& list = sessions_[e.k];
          list.push_back({e.secs, e.secs + kGap, {1, e.v}});
          // A session takes every session (or event) that starts at or before its end (Spark).
          std::stable_sort(list.begin(), list.end(), [](const Sess& a, const Sess& b) { return a.start < b.start; });
          std::vector<Sess> merged;
          for (const auto& s : list) {
            if (!merged.empty() && s.start <= merged.back().end) {
              merged.back().end = std::max(merged.back().end, s.end);
              merged.back().agg.n += s.agg.n;
              merged.back().agg.total += s.agg.total;
            } else {
              merged.push_back(s);
            }
          }
          list = merged;
        }
        for (auto& [k, list] : sessions_) {
          std::vector<Sess> open;
          for (const auto& s : list) {
            if (s.end <= evict) {
              output_.push_back(k + "|" + std::to_string(s.start) + "|" + std::to_string(s.end) + "|" +
                                std::to_string(s.agg.n) + "|" + std::to_string(s.agg.total));
            } else {
              open.push_back(s);
            }
          }
          list = open;
        }
        break;
      }
      case Kind::kDedup:
      case Kind::kDedupWithin: {
        for (const auto& e : rows) {
          if (e.secs <= late) {
            ++dropped;
            continue;
          }
          if (kind_ == Kind::kDedup) {
            if (!seen_.emplace(std::to_string(e.id) + "@" + std::to_string(e.secs), e.secs).second) continue;
          } else {
            if (!seen_.emplace(std::to_string(e.id), e.secs + kDelay).second) continue;
          }
          output_.push_back(std::to_string(e.id) + "|" + e.k + "|" + std::to_string(e.v) + "|" + std::to_string(e.secs));
        }
        for (auto it = seen_.begin(); it != seen_.end();) {
          it = it->second <= evict ? seen_.erase(it) : std::next(it);
        }
        break;
      }
    }
    for (const auto& e : rows) max_seen_ = std::max(max_seen_, e.secs);
    if (!rows.empty()) watermark_ = std::max(watermark_, max_seen_ - kDelay);
    used_ = evict;
    ++batches_;
    dropped_.push_back(dropped);
  }

  Kind kind_;
  int64_t batches_ = 0;
  int64_t max_seen_ = kNone;
  int64_t watermark_ = -kBaseSecs;  // for the next batch; it starts at the epoch, as the engine's
  int64_t used_ = kNone;       // the watermark the last batch used
  std::map<std::tuple<int64_t, int64_t, std::string>, Agg> windows_;  // (end, start, k)
  std::map<std::string, std::vector<Sess>> sessions_;
  std::map<std::string, int64_t> seen_;  // dedup key -> the time it can be evicted at
  std::vector<std::string> output_;
  std::vector<int64_t> dropped_;
};

// numRowsDroppedByWatermark of the (single) stateful operator, per batch of `q`.
std::vector<int64_t> DroppedPerBatch(const StreamingQuery& q) {
  std::vector<int64_t> out;
  for (const auto& p : q.recentProgress()) {
    auto j = nlohmann::json::parse(p);
    out.push_back(j["stateOperators"].empty() ? -1 : j["stateOperators"][0]["numRowsDroppedByWatermark"].get<int64_t>());
  }
  return out;
}

// Runs `df` into the memory table "out" as one availableNow query on checkpoint `ckpt`.
Result<StreamingQuery> RunToMemory(const DataFrame& df, const std::string& mode, const std::string& ckpt) {
  ARROW_ASSIGN_OR_RAISE(auto q, df.writeStream()
                                    .format("memory")
                                    .queryName("out")
                                    .outputMode(mode)
                                    .option("checkpointLocation", ckpt)
                                    .trigger(AvailableNow())
                                    .start());
  ARROW_RETURN_NOT_OK(q.awaitTermination());
  return q;
}

// One engine run of `kind` into the memory table "out" (append mode, availableNow).
struct EngineRun {
  TempDir dir;
  std::shared_ptr<Session> session = Session::Make();
  std::vector<int64_t> dropped;

  explicit EngineRun(int partitions) { session->setConf("spark.sql.shuffle.partitions", std::to_string(partitions)); }

  Status Run(const DataFrame& df) {
    ARROW_ASSIGN_OR_RAISE(auto q, RunToMemory(df, "append", dir.Sub("ckpt")));
    for (int64_t d : DroppedPerBatch(q)) dropped.push_back(d);
    return Status::OK();
  }
  std::vector<std::string> Output() { return RowLines(session->memoryTable("out").ValueOrDie()); }
};

// Each batch in its own availableNow run over a memory stream (so every data batch is
// followed by a no-data batch when it moved the watermark).
struct MemoryStreamResult {
  std::vector<std::string> rows;
  std::vector<int64_t> dropped;
};
MemoryStreamResult RunBatchPerRun(Kind kind, const std::vector<std::vector<Event>>& batches, int partitions) {
  EngineRun run(partitions);
  MemoryStream input(run.session, kEventSchema);
  const DataFrame df = Build(kind, input.toDF());
  for (const auto& b : batches) {
    EXPECT_OK(input.addJson(JsonArray(b)));
    Status st = run.Run(df);
    EXPECT_OK(st);
  }
  return {run.Output(), run.dropped};
}

struct RefCase {
  Kind kind;
  uint32_t seed;
};

class StatefulReferenceTest : public ::testing::TestWithParam<RefCase> {};

TEST_P(StatefulReferenceTest, OneBatchPerRunMatchesTheReference) {
  const auto batches = Cut(RandomEvents(GetParam().seed, 80), 8);
  auto got = RunBatchPerRun(GetParam().kind, batches, 2);
  Reference ref(GetParam().kind);
  for (const auto& b : batches) ref.AvailableNowRun({b});
  EXPECT_EQ(got.rows, ref.Output());
  EXPECT_EQ(got.dropped, ref.DroppedPerBatch());
  EXPECT_GT(ref.Output().size(), 5u);
  int64_t total_dropped = 0;
  for (int64_t d : ref.DroppedPerBatch()) total_dropped += d;
  EXPECT_GT(total_dropped, 0) << "the stream should have late rows";
}

TEST_P(StatefulReferenceTest, FilesWithMaxFilesPerTriggerAcrossTwoRunsMatchTheReference) {
  const auto batches = Cut(RandomEvents(GetParam().seed + 100, 90), 9);
  EngineRun run(3);
  fs::create_directories(run.dir.Sub("in"));
  const auto t0 = fs::file_time_type::clock::now() - std::chrono::hours(1);
  auto write = [&](size_t first, size_t last) {
    for (size_t f = first; f < last; ++f) {
      const std::string name = "part-" + std::to_string(100 + f) + ".json";
      WriteInputFile(run.dir.Sub("in"), name, JsonLines(batches[f]));
      fs::last_write_time(run.dir.Sub("in") + "/" + name, t0 + std::chrono::seconds(f));
    }
  };
  ASSERT_OK_AND_ASSIGN(
      auto events,
      run.session->readStream().format("json").schema(kEventSchema).option("maxFilesPerTrigger", "1").load(run.dir.Sub("in")));
  const DataFrame df = Build(GetParam().kind, events);
  write(0, 4);
  ASSERT_OK(run.Run(df));
  write(4, batches.size());
  ASSERT_OK(run.Run(df));

  Reference ref(GetParam().kind);
  ref.AvailableNowRun({batches.begin(), batches.begin() + 4});
  ref.AvailableNowRun({batches.begin() + 4, batches.end()});
  EXPECT_EQ(run.Output(), ref.Output());
  EXPECT_EQ(run.dropped, ref.DroppedPerBatch());
}

std::vector<RefCase> RefCases() {
  std::vector<RefCase> out;
  for (Kind k : {Kind::kTumbling, Kind::kSliding, Kind::kSession, Kind::kDedup, Kind::kDedupWithin}) {
    for (uint32_t seed : {1u, 2u, 3u}) out.push_back({k, seed});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Seeds, StatefulReferenceTest, ::testing::ValuesIn(RefCases()),
                         [](const ::testing::TestParamInfo<RefCase>& info) {
                           return KindName(info.param.kind) + "Seed" + std::to_string(info.param.seed);
                         });

TEST(StatefulReference, SameRowsWithOneTwoOrFiveShufflePartitions) {
  const auto batches = Cut(RandomEvents(11, 80), 6);
  for (Kind kind : {Kind::kTumbling, Kind::kSliding, Kind::kSession, Kind::kDedup, Kind::kDedupWithin}) {
    const auto one = RunBatchPerRun(kind, batches, 1);
    EXPECT_FALSE(one.rows.empty()) << KindName(kind);
    for (int p : {2, 5}) {
      const auto other = RunBatchPerRun(kind, batches, p);
      EXPECT_EQ(other.rows, one.rows) << KindName(kind) << " with " << p << " partitions";
      EXPECT_EQ(other.dropped, one.dropped) << KindName(kind) << " with " << p << " partitions";
    }
  }
}

// Complete mode: after every batch, the whole result equals the batch query over every row so
// far (read from JSON files by session->read()).
struct CompleteCase {
  std::string name;
  std::function<DataFrame(const DataFrame&)> build;
};

class StatefulCompleteTest : public ::testing::TestWithParam<CompleteCase> {};

TEST_P(StatefulCompleteTest, EqualsTheBatchQueryAfterEveryBatch) {
  const auto batches = Cut(RandomEvents(21, 60), 5);
  TempDir dir;
  auto session = Session::Make();
  session->setConf("spark.sql.shuffle.partitions", "3");
  MemoryStream input(session, kEventSchema);
  const DataFrame streaming = GetParam().build(input.toDF());
  ASSERT_OK(streaming.status());
  for (size_t b = 0; b < batches.size(); ++b) {
    ASSERT_OK(input.addJson(JsonArray(batches[b])).status());
    ASSERT_OK(RunToMemory(streaming, "complete", dir.Sub("ckpt")).status());
    WriteInputFile(dir.Sub("static"), "part-" + std::to_string(b) + ".json", JsonLines(batches[b]));
    ASSERT_OK_AND_ASSIGN(auto all, session->read().format("json").schema(kEventSchema).load(dir.Sub("static")));
    ASSERT_OK_AND_ASSIGN(auto expected, GetParam().build(all).collect());
    ASSERT_OK_AND_ASSIGN(auto got, session->memoryTable("out"));
    ASSERT_EQ(RowLines(got), RowLines(expected)) << "after batch " << b;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Queries, StatefulCompleteTest,
    ::testing::Values(
        CompleteCase{"GroupByKey",
                     [](const DataFrame& d) {
                       return d.groupBy({col("k")}).agg({count(col("*")).alias("n"), sum(col("v")).alias("total"),
                                                         min(col("ts")).alias("first_ts"), max(col("v")).alias("top")});
                     }},
        CompleteCase{"TumblingWindow",
                     [](const DataFrame& d) {
                       return d.groupBy({window(col("ts"), "10 seconds"), col("k")})
                           .agg({count(col("*")).alias("n"), sum(col("v")).alias("total")});
                     }},
        CompleteCase{"SlidingWindow",
                     [](const DataFrame& d) {
                       return d.groupBy({window(col("ts"), "10 seconds", "5 seconds")})
                           .agg({count(col("*")).alias("n"), countDistinct(col("k")).alias("keys")});
                     }},
        CompleteCase{"SessionWindow",
                     [](const DataFrame& d) {
                       return d.groupBy({col("k"), session_window(col("ts"), "4 seconds")})
                           .agg({count(col("*")).alias("n"), sum(col("v")).alias("total")});
                     }},
        CompleteCase{"GlobalAggregate",
                     [](const DataFrame& d) {
                       return d.groupBy(std::vector<Column>{}).agg({count(col("*")).alias("n"), sum(col("v")).alias("total")});
                     }}),
    [](const ::testing::TestParamInfo<CompleteCase>& info) { return info.param.name; });

// In complete mode a watermark drops no row: complete mode keeps and emits every group, so no
// window is ever closed and no row is "late" (Spark's StateStoreSaveExec filters late rows
// only in Append/Update), and the result stays equal to the batch query's.
TEST(StatefulReference, CompleteModeWithAWatermarkDropsNoRowAsLate) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, kEventSchema);
  auto df = input.toDF()
                .withWatermark("ts", "0 seconds")
                .groupBy({window(col("ts"), "10 seconds")})
                .agg({count(col("*")).alias("n")});
  auto run = [&] { return RunToMemory(df, "complete", dir.Sub("ckpt")).status(); };
  ASSERT_OK(input.addJson(JsonArray({Event{1, "a", 1, 100}})).status());
  ASSERT_OK(run());  // batch 0, then a no-data batch that uses watermark 100 s
  ASSERT_OK(input.addJson(JsonArray({Event{2, "a", 1, 5}})).status());
  ASSERT_OK(run());  // batch 2: the event at 5 s is behind the watermark, but complete mode keeps all
  ASSERT_OK_AND_ASSIGN(auto got, session->memoryTable("out"));
  EXPECT_EQ(RowLines(got), (std::vector<std::string>{"0|10|1", "100|110|1"}));
}

}  // namespace
}  // namespace sluice::testing
