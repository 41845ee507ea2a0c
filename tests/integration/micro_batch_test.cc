// The batch protocol end to end on the memory source and memory sink: checkpoint layout,
// restart, redo after a failure between sink and commit, refusals, retention, triggers.
#include <arrow/api.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>

#include "api/access.h"
#include "integration/test_util.h"
#include "io/fault_injection.h"
#include "sluice/sluice.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

std::string Rows(int64_t first, int64_t count) {
  std::string out = "[";
  for (int64_t i = first; i < first + count; ++i) {
    out += (i > first ? "," : "") + std::string("{\"id\":") + std::to_string(i) + ",\"name\":\"n" + std::to_string(i) + "\"}";
  }
  return out + "]";
}

Result<StreamingQuery> StartToMemory(const DataFrame& df, const std::string& ckpt, const std::string& table,
                                     Trigger trigger = AvailableNow()) {
  return df.writeStream().format("memory").queryName(table).option("checkpointLocation", ckpt).trigger(trigger).start();
}

TEST(MicroBatch, WritesOffsetsBeforeAndCommitAfterEachBatch) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 3)).status());
  ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
  ASSERT_OK(q.awaitTermination());
  for (const char* f : {"metadata", "offsets/0", "commits/0", "lock"}) {
    EXPECT_TRUE(fs::exists(dir.Sub("ckpt/") + f)) << f;
  }
  std::ifstream in(dir.Sub("ckpt/offsets/0"));
  std::string version, meta, offset;
  std::getline(in, version);
  std::getline(in, meta);
  std::getline(in, offset);
  EXPECT_EQ(version, "v1");
  EXPECT_THAT(meta, HasSubstr("\"batchWatermarkMs\":0"));
  EXPECT_EQ(offset, "3");  // memory source offsets are row counts
  ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 3));
  EXPECT_THAT(q.lastProgress(), HasSubstr("\"batchId\":0"));
}

TEST(MicroBatch, RestartOnSameCheckpointContinuesWithoutGapOrDuplicate) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 5)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
    ASSERT_OK(q.awaitTermination());
  }
  ASSERT_OK(input.addJson(Rows(5, 4)).status());
  ASSERT_OK_AND_ASSIGN(auto q2, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
  ASSERT_OK(q2.awaitTermination());
  ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 9));
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/commits/1")));
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/offsets/2")));
}

TEST(MicroBatch, FailureBetweenSinkAndCommitRedoesTheBatchOnce) {
  TempDir dir;
  io::FaultSpec spec;
  spec.point = "after_sink_commit";
  spec.action = io::FaultSpec::Action::kFail;
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), spec);
  auto session = api::MakeSession(faulty);
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 4)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
    Status st = q.awaitTermination();
    ASSERT_FALSE(st.ok());
    EXPECT_THAT(st.message(), HasSubstr("injected fault"));
    ASSERT_TRUE(q.exception().has_value());
  }
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/offsets/0")));
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/commits/0")));
  // The restart re-runs batch 0 with the same offsets; the sink already has it.
  ASSERT_OK(input.addJson(Rows(4, 2)).status());
  ASSERT_OK_AND_ASSIGN(auto q2, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
  ASSERT_OK(q2.awaitTermination());
  ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 6));
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/commits/0")));
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/commits/1")));
}

TEST(MicroBatch, ForeachBatchSeesTheSameBatchIdAndRowsOnRedo) {
  TempDir dir;
  io::FaultSpec spec;
  spec.point = "after_sink_commit";
  spec.action = io::FaultSpec::Action::kFail;
  auto session = api::MakeSession(std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), spec));
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 3)).status());
  std::vector<std::pair<int64_t, int64_t>> calls;  // (batch id, rows)
  auto run = [&] {
    return input.toDF()
        .writeStream()
        .foreachBatch([&](const std::shared_ptr<arrow::Table>& t, int64_t id) {
          calls.emplace_back(id, t->num_rows());
          return Status::OK();
        })
        .option("checkpointLocation", dir.Sub("ckpt"))
        .trigger(AvailableNow())
        .start();
  };
  ASSERT_OK_AND_ASSIGN(auto q, run());
  EXPECT_FALSE(q.awaitTermination().ok());
  ASSERT_OK(input.addJson(Rows(3, 1)).status());
  ASSERT_OK_AND_ASSIGN(auto q2, run());
  ASSERT_OK(q2.awaitTermination());
  std::vector<std::pair<int64_t, int64_t>> expected = {{0, 3}, {0, 3}, {1, 1}};
  EXPECT_EQ(calls, expected);
}

// current_timestamp() is the batch's recorded batchTimestampMs: one value for every row of a
// batch, and a redo reads it back from offsets/N (here rewritten between the runs, so the
// redo can only see 1700000000000 if it took the value from the log, not from the clock).
TEST(MicroBatch, CurrentTimestampIsTheRecordedBatchTimestampOnRedo) {
  TempDir dir;
  io::FaultSpec spec;
  spec.point = "after_sink_commit";
  spec.action = io::FaultSpec::Action::kFail;
  auto session = api::MakeSession(std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), spec));
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 3)).status());
  struct Seen {
    int64_t batch_id;
    std::set<int64_t> micros;
    std::set<int32_t> days;
  };
  std::vector<Seen> seen;
  auto run = [&] {
    return input.toDF()
        .select({col("id"), api::MakeColumn(plan::Expr::Call("current_timestamp", {})).alias("now"),
                 api::MakeColumn(plan::Expr::Call("current_date", {})).alias("today")})
        .writeStream()
        .foreachBatch([&](const std::shared_ptr<arrow::Table>& t, int64_t id) {
          Seen s{id, {}, {}};
          auto now = std::static_pointer_cast<arrow::TimestampArray>(t->GetColumnByName("now")->chunk(0));
          auto today = std::static_pointer_cast<arrow::Date32Array>(t->GetColumnByName("today")->chunk(0));
          for (int64_t i = 0; i < now->length(); ++i) {
            s.micros.insert(now->Value(i));
            s.days.insert(today->Value(i));
          }
          seen.push_back(s);
          return Status::OK();
        })
        .option("checkpointLocation", dir.Sub("ckpt"))
        .trigger(AvailableNow())
        .start();
  };
  ASSERT_OK_AND_ASSIGN(auto q, run());
  EXPECT_FALSE(q.awaitTermination().ok());
  ASSERT_EQ(seen.size(), 1u);
  ASSERT_EQ(seen[0].micros.size(), 1u);  // one value per batch
  // The first run used the timestamp it wrote ahead in offsets/0.
  std::string log;
  {
    std::ifstream in(dir.Sub("ckpt/offsets/0"));
    log.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string recorded = "\"batchTimestampMs\":" + std::to_string(*seen[0].micros.begin() / 1000);
  ASSERT_THAT(log, HasSubstr(recorded));
  log.replace(log.find(recorded), recorded.size(), "\"batchTimestampMs\":1700000000000");
  { std::ofstream(dir.Sub("ckpt/offsets/0"), std::ios::trunc) << log; }

  ASSERT_OK(input.addJson(Rows(3, 2)).status());
  ASSERT_OK_AND_ASSIGN(auto q2, run());
  ASSERT_OK(q2.awaitTermination());
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[1].batch_id, 0);
  EXPECT_EQ(seen[1].micros, std::set<int64_t>{1700000000000000});
  EXPECT_EQ(seen[1].days, std::set<int32_t>{19675});  // 2023-11-14, the UTC date of that instant
  EXPECT_EQ(seen[2].batch_id, 1);
  ASSERT_EQ(seen[2].micros.size(), 1u);
  EXPECT_GE(*seen[2].micros.begin(), *seen[0].micros.begin());  // batch 1 takes a new time
}

// As Spark allows: a changed filter or projection continues from the checkpoint (only new rows);
// adding or removing a stateful operation is refused with the reason.
TEST(MicroBatch, AStatelessChangeResumesAndAStatefulOneIsRefused) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 3)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
    ASSERT_OK(q.awaitTermination());
  }
  ASSERT_OK(input.addJson(Rows(3, 3)).status());
  {
    auto changed = input.toDF().filter(col("id") != lit(int64_t{4})).select({col("id"), col("name")});
    ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(changed, dir.Sub("ckpt"), "t"));
    ASSERT_OK(q.awaitTermination());
  }
  ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), (std::vector<int64_t>{0, 1, 2, 3, 5}));  // 0..2 once, 4 filtered

  auto counted = input.toDF().groupBy({col("name")}).agg({count(col("*")).alias("n")});
  auto refused = counted.writeStream().format("memory").queryName("t").outputMode("complete")
                     .option("checkpointLocation", dir.Sub("ckpt")).trigger(AvailableNow()).start();
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("holds the state of 0 stateful operator(s)"));
  EXPECT_THAT(refused.status().message(), HasSubstr("the changed query has 1"));

  TempDir agg_dir;
  {
    ASSERT_OK_AND_ASSIGN(auto q, counted.writeStream().format("memory").queryName("c").outputMode("complete")
                                     .option("checkpointLocation", agg_dir.Sub("ckpt")).trigger(AvailableNow()).start());
    ASSERT_OK(q.awaitTermination());
  }
  auto without = StartToMemory(input.toDF(), agg_dir.Sub("ckpt"), "c");
  ASSERT_FALSE(without.ok());
  EXPECT_THAT(without.status().message(), HasSubstr("holds the state of 1 stateful operator(s)"));
}

TEST(MicroBatch, RefusesACheckpointOfAnotherQuery) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 2)).status());
  {
    ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
    ASSERT_OK(q.awaitTermination());
  }
  // Another sink.
  auto r2 = StartToMemory(input.toDF(), dir.Sub("ckpt"), "other_table");
  ASSERT_FALSE(r2.ok());
  EXPECT_THAT(r2.status().message(), HasSubstr("sink"));
  // Another source.
  MemoryStream input2(session, "id BIGINT, label STRING");
  auto r3 = StartToMemory(input2.toDF(), dir.Sub("ckpt"), "t");
  ASSERT_FALSE(r3.ok());
  EXPECT_THAT(r3.status().message(), HasSubstr("source 0"));
}

TEST(MicroBatch, RefusesASecondLiveRunOnTheSameCheckpoint) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t", ProcessingTime(50)));
  auto second = StartToMemory(input.toDF(), dir.Sub("ckpt"), "t", ProcessingTime(50));
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.status().message(), HasSubstr("is in use by pid " + std::to_string(::getpid())))
      << second.status().message();
  ASSERT_OK(q.stop());
  // Once the first run stopped, the checkpoint is free again.
  ASSERT_OK_AND_ASSIGN(auto third, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
  ASSERT_OK(third.awaitTermination());
}

TEST(MicroBatch, TakesOverTheLockOfADeadRun) {
  TempDir dir;
  fs::create_directories(dir.Sub("ckpt"));
  {
    std::ofstream lock(dir.Sub("ckpt/lock"));
    lock << R"({"pid":999999,"host":"gone","runId":"dead"})";
  }
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 1)).status());
  ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t"));
  ASSERT_OK(q.awaitTermination());
  std::ifstream lock(dir.Sub("ckpt/lock"));
  std::string content((std::istreambuf_iterator<char>(lock)), std::istreambuf_iterator<char>());
  EXPECT_THAT(content, HasSubstr("\"pid\":" + std::to_string(::getpid())));
}

TEST(MicroBatch, KeepsOnlyTheLastMinBatchesToRetainLogEntries) {
  TempDir dir;
  auto session = Session::Make();
  session->setConf("sluice.sql.streaming.minBatchesToRetain", "3");
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t", ProcessingTime(0)));
  for (int i = 0; i < 10; ++i) {
    ASSERT_OK(input.addJson(Rows(i, 1)).status());
    ASSERT_OK(q.processAllAvailable());
  }
  ASSERT_OK(q.stop());
  int offsets = 0;
  for (const auto& e : fs::directory_iterator(dir.Sub("ckpt/offsets"))) offsets += e.path().filename().string()[0] != '.';
  EXPECT_EQ(offsets, 4);  // 9 and the 3 before it
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/offsets/9")));
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/offsets/5")));
  ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 10));
}

TEST(MicroBatch, ProcessingTimeTriggerRunsNewDataUntilStopped) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t", ProcessingTime(20)));
  EXPECT_TRUE(q.isActive());
  ASSERT_OK(input.addJson(Rows(0, 2)).status());
  ASSERT_OK(q.processAllAvailable());
  ASSERT_OK(input.addJson(Rows(2, 2)).status());
  ASSERT_OK(q.processAllAvailable());
  ASSERT_OK(q.stop());
  EXPECT_FALSE(q.isActive());
  ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 4));
  EXPECT_FALSE(q.exception().has_value());
}

// Sets an environment variable for the life of the object, then puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = ::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

std::vector<std::string> TemporaryCheckpoints(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("sluice-temporary-checkpoint-", 0) == 0) out.push_back(e.path().string());
  }
  return out;
}

TEST(MicroBatch, WithoutACheckpointLocationAMemorySinkUsesATemporaryOneInTmpdir) {
  TempDir dir;
  fs::create_directories(dir.Sub("tmp"));
  ScopedEnv tmpdir("TMPDIR", dir.Sub("tmp"));
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK_AND_ASSIGN(auto q,
                       input.toDF().writeStream().format("memory").queryName("t").trigger(ProcessingTime(20)).start());
  ASSERT_OK(input.addJson(Rows(0, 2)).status());
  ASSERT_OK(q.processAllAvailable());
  auto made = TemporaryCheckpoints(dir.Sub("tmp"));
  ASSERT_EQ(made.size(), 1u);
  EXPECT_TRUE(fs::exists(made[0] + "/commits/0")) << made[0];
  ASSERT_OK(q.stop());
  EXPECT_TRUE(TemporaryCheckpoints(dir.Sub("tmp")).empty()) << "removed when the query ends";
  ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("t"));
  EXPECT_EQ(SortedInts(rows, "id"), Range(0, 2));
}

TEST(MicroBatch, ATemporaryCheckpointThatCannotBeMadeSaysWhereAndWhatToDo) {
  TempDir dir;
  ScopedEnv tmpdir("TMPDIR", dir.Sub("missing"));
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  auto q = input.toDF().writeStream().format("memory").queryName("t").trigger(AvailableNow()).start();
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.status().message(), HasSubstr(dir.Sub("missing")));
  EXPECT_THAT(q.status().message(), HasSubstr("No such file or directory"));
  EXPECT_THAT(q.status().message(), HasSubstr("checkpointLocation"));
}

TEST(MicroBatch, OnceRunsExactlyOneBatch) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 2)).status());
  ASSERT_OK(input.addJson(Rows(2, 2)).status());
  ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "t", Once()));
  ASSERT_OK(q.awaitTermination());
  EXPECT_TRUE(fs::exists(dir.Sub("ckpt/commits/0")));
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/offsets/1")));
  ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("t"));
  EXPECT_EQ(rows->num_rows(), 4);
}

TEST(MicroBatch, StreamingQueryReportsIdsAndName) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  ASSERT_OK(input.addJson(Rows(0, 1)).status());
  ASSERT_OK_AND_ASSIGN(auto q, StartToMemory(input.toDF(), dir.Sub("ckpt"), "events"));
  ASSERT_OK(q.awaitTermination());
  EXPECT_EQ(q.name(), "events");
  EXPECT_EQ(q.id().size(), 36u);
  ASSERT_OK(input.addJson(Rows(1, 1)).status());
  ASSERT_OK_AND_ASSIGN(auto q2, StartToMemory(input.toDF(), dir.Sub("ckpt"), "events"));
  ASSERT_OK(q2.awaitTermination());
  EXPECT_EQ(q2.id(), q.id());        // the id lives in the checkpoint
  EXPECT_NE(q2.runId(), q.runId());  // a run id is new for every start
}

TEST(MicroBatch, RefusesBadWriterSettingsBeforeAnyBatch) {
  TempDir dir;
  auto session = Session::Make();
  MemoryStream input(session, "id BIGINT, name STRING");
  auto r = input.toDF().writeStream().format("memory").queryName("t").outputMode("complete").start();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("Complete output mode not supported"));
  auto r2 = input.toDF().writeStream().format("kafkaa").start();
  ASSERT_FALSE(r2.ok());
  EXPECT_THAT(r2.status().message(), HasSubstr("Unknown sink format 'kafkaa'"));
  auto r3 = input.toDF().writeStream().format("memory").start();
  ASSERT_FALSE(r3.ok());
  EXPECT_THAT(r3.status().message(), HasSubstr("queryName"));
  auto r4 = input.toDF().writeStream().format("memory").queryName("t").outputMode("sideways").start();
  ASSERT_FALSE(r4.ok());
  EXPECT_THAT(r4.status().message(), HasSubstr("Unknown output mode 'sideways'"));
}

}  // namespace
}  // namespace sluice::testing
