// Rate and socket sources, progress, status, listeners and the query manager.
#include <arrow/api.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "api/access.h"
#include "integration/test_util.h"
#include "io/fault_injection.h"
#include "source/rate_source.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

using nlohmann::json;

Result<DataFrame> RateMicroBatch(const std::shared_ptr<Session>& s, int64_t rows_per_batch) {
  return s->readStream()
      .format("rate-micro-batch")
      .option("rowsPerBatch", rows_per_batch)
      .option("startTimestamp", "1700000000000")
      .option("advanceMillisPerBatch", "1000")
      .load();
}

std::vector<int64_t> TimestampsMs(const std::shared_ptr<arrow::Table>& t) {
  std::vector<std::pair<int64_t, int64_t>> rows;  // (value, ts)
  auto v = t->GetColumnByName("value");
  auto ts = t->GetColumnByName("timestamp");
  for (int c = 0; c < v->num_chunks(); ++c) {
    auto vs = std::static_pointer_cast<arrow::Int64Array>(v->chunk(c));
    auto tss = std::static_pointer_cast<arrow::TimestampArray>(ts->chunk(c));
    for (int64_t i = 0; i < vs->length(); ++i) rows.emplace_back(vs->Value(i), tss->Value(i) / 1000);
  }
  std::sort(rows.begin(), rows.end());
  std::vector<int64_t> out;
  for (auto& r : rows) out.push_back(r.second);
  return out;
}

TEST(RateSource, MicroBatchVariantIsDeterministicAcrossAFailureAndRedo) {
  TempDir dir;
  auto run = [&](std::shared_ptr<Session> s, const std::string& table) -> Result<std::shared_ptr<arrow::Table>> {
    ARROW_ASSIGN_OR_RAISE(auto df, RateMicroBatch(s, 5));
    std::shared_ptr<arrow::Table> seen;
    ARROW_ASSIGN_OR_RAISE(auto q, df.writeStream().format("memory").queryName(table)
                                      .option("checkpointLocation", dir.Sub("ckpt-" + table)).trigger(Once()).start());
    Status st = q.awaitTermination();
    if (!st.ok()) return st;
    return s->memoryTable(table);
  };
  // Reference: three clean batches.
  auto clean = Session::Make();
  std::vector<std::shared_ptr<arrow::Table>> ref;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(auto t, run(clean, "ref"));
    ref.push_back(t);
  }
  // Batch 1 fails after the sink and is redone by the next run.
  io::FaultSpec spec = io::FaultSpec::Parse("point=after_sink_commit,hits=2,action=fail").ValueOrDie();
  auto faulty = api::MakeSession(std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), spec));
  ASSERT_OK(run(faulty, "x").status());
  EXPECT_FALSE(run(faulty, "x").ok());
  auto fresh = Session::Make();  // a new process would have a new session
  ASSERT_OK_AND_ASSIGN(auto redone, run(fresh, "x"));
  ASSERT_OK_AND_ASSIGN(auto after, run(fresh, "x"));
  ASSERT_OK_AND_ASSIGN(auto ref_all, ref.back()->CombineChunks());
  EXPECT_EQ(ref_all->num_rows(), 15);
  // The memory table of the fresh session holds batch 1 (redone) and batch 2.
  ASSERT_EQ(after->num_rows(), 10);
  EXPECT_EQ(SortedInts(after, "value"), Range(5, 15));
  auto ref_ts = TimestampsMs(ref_all);
  auto got_ts = TimestampsMs(after);
  EXPECT_EQ(got_ts, std::vector<int64_t>(ref_ts.begin() + 5, ref_ts.end()));
  EXPECT_EQ(got_ts.front(), 1700000001000);  // batch 1 starts one advance after startTimestamp
}

TEST(RateSource, RowsPerSecondFollowsTheClockAndRampsUp) {
  EXPECT_EQ(source::RateValueAtSecond(0, 10, 0), 0);
  EXPECT_EQ(source::RateValueAtSecond(3, 10, 0), 30);
  // Ramp-up over 4 seconds: 2, 4, 6, 8 rows, then 10 per second.
  EXPECT_EQ(source::RateValueAtSecond(4, 10, 4), 2 + 4 + 6 + 8);
  EXPECT_EQ(source::RateValueAtSecond(6, 10, 4), 20 + 20);
}

TEST(RateSource, RejectsBadOptionsByName) {
  auto s = Session::Make();
  auto a = s->readStream().format("rate").option("rowsPerSecond", "-1").load();
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr("rowsPerSecond"));
  auto b = s->readStream().format("rate-micro-batch").load();
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("rowsPerBatch"));
  auto c = s->readStream().format("rate").option("rowsPerSec", "1").load();
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("rowsPerSec'"));
  auto d = s->readStream().format("rate").load("/tmp");
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("takes no path"));
}

class RecordingListener : public StreamingQueryListener {
 public:
  void onQueryStarted(const QueryStartedEvent& e) override { Add("started:" + e.name); }
  void onQueryProgress(const QueryProgressEvent& e) override {
    Add("progress:" + std::to_string(json::parse(e.progress)["batchId"].get<int64_t>()));
  }
  void onQueryIdle(const QueryIdleEvent& /*e*/) override { Add("idle"); }
  void onQueryTerminated(const QueryTerminatedEvent& e) override {
    Add(e.exception ? "terminated:error" : "terminated:ok");
  }
  std::vector<std::string> Events() {
    std::lock_guard<std::mutex> lock(mu_);
    return events_;
  }

 private:
  void Add(std::string e) {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(e));
  }
  std::mutex mu_;
  std::vector<std::string> events_;
};

TEST(Listener, EventsArriveInOrderStartedProgressTerminated) {
  TempDir dir;
  auto s = Session::Make();
  auto listener = std::make_shared<RecordingListener>();
  s->streams().addListener(listener);
  MemoryStream input(s, "id BIGINT");
  ASSERT_OK(input.addJson(R"([{"id":1},{"id":2}])").status());
  ASSERT_OK(input.addJson(R"([{"id":3}])").status());
  ASSERT_OK_AND_ASSIGN(auto q, input.toDF().writeStream().format("memory").queryName("events")
                                   .trigger(AvailableNow()).start());
  ASSERT_OK(q.awaitTermination());
  EXPECT_EQ(listener->Events(), (std::vector<std::string>{"started:events", "progress:0", "terminated:ok"}));
}

TEST(Listener, IdleTriggersAreReportedAndFailuresCarryTheError) {
  TempDir dir;
  auto s = Session::Make();
  s->setConf("sluice.sql.streaming.noDataProgressEventInterval", "1");
  auto listener = std::make_shared<RecordingListener>();
  s->streams().addListener(listener);
  MemoryStream input(s, "id BIGINT");
  ASSERT_OK_AND_ASSIGN(auto q, input.toDF().writeStream()
                                   .foreachBatch([](const std::shared_ptr<arrow::Table>&, int64_t) {
                                     return Status::IOError("downstream unavailable");
                                   })
                                   .trigger(ProcessingTime(5)).start());
  ASSERT_OK(q.processAllAvailable());  // an idle trigger
  ASSERT_OK(input.addJson(R"([{"id":1}])").status());
  Status st = q.awaitTermination();
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("downstream unavailable"));
  EXPECT_THAT(st.message(), HasSubstr("batch 0"));
  auto events = listener->Events();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.front(), "started:");
  EXPECT_EQ(events[1], "idle");
  EXPECT_EQ(events.back(), "terminated:error");
  EXPECT_FALSE(q.isActive());
  ASSERT_TRUE(q.exception().has_value());
  EXPECT_EQ(q.status().message, "Stopped");
}

TEST(QueryManager, TracksActiveQueriesAndRefusesDuplicates) {
  TempDir dir;
  auto s = Session::Make();
  MemoryStream a(s, "id BIGINT"), b(s, "id BIGINT");
  ASSERT_OK_AND_ASSIGN(auto qa, a.toDF().writeStream().format("memory").queryName("a")
                                    .option("checkpointLocation", dir.Sub("a")).start());
  ASSERT_OK_AND_ASSIGN(auto qb, b.toDF().writeStream().format("memory").queryName("b")
                                    .option("checkpointLocation", dir.Sub("b")).start());
  EXPECT_EQ(s->streams().active().size(), 2u);
  ASSERT_TRUE(s->streams().get(qa.id()).has_value());
  EXPECT_EQ(s->streams().get(qa.id())->name(), "a");
  // Same name while active.
  auto dup_name = b.toDF().writeStream().format("memory").queryName("a").option("checkpointLocation", dir.Sub("c")).start();
  ASSERT_FALSE(dup_name.ok());
  EXPECT_THAT(dup_name.status().message(), HasSubstr("name 'a'"));
  // Same checkpoint while active.
  auto dup_ckpt = a.toDF().writeStream().format("memory").queryName("a2").option("checkpointLocation", dir.Sub("a")).start();
  ASSERT_FALSE(dup_ckpt.ok());
  EXPECT_THAT(dup_ckpt.status().message(), HasSubstr("in use"));

  ASSERT_OK_AND_ASSIGN(bool none, s->streams().awaitAnyTermination(50));
  EXPECT_FALSE(none);
  ASSERT_OK(qb.stop());
  ASSERT_OK_AND_ASSIGN(bool one, s->streams().awaitAnyTermination(5000));
  EXPECT_TRUE(one);
  EXPECT_EQ(s->streams().active().size(), 1u);
  s->streams().resetTerminated();
  ASSERT_OK_AND_ASSIGN(bool again, s->streams().awaitAnyTermination(50));
  EXPECT_FALSE(again);
  ASSERT_OK(qa.stop());
  EXPECT_TRUE(s->streams().active().empty());
}

TEST(Progress, HasSparksFieldsAndRecentProgressKeepsTheLastN) {
  TempDir dir;
  auto s = Session::Make();
  s->setConf("sluice.sql.streaming.numRecentProgressUpdates", "2");
  MemoryStream input(s, "id BIGINT");
  ASSERT_OK_AND_ASSIGN(auto q, input.toDF().writeStream().format("memory").queryName("p").start());
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(input.addJson("[{\"id\":" + std::to_string(i) + "}]").status());
    ASSERT_OK(q.processAllAvailable());
  }
  auto recent = q.recentProgress();
  ASSERT_EQ(recent.size(), 2u);
  auto p = json::parse(recent.back());
  EXPECT_EQ(p["batchId"], 2);
  for (const char* key : {"id", "runId", "name", "timestamp", "batchId", "batchDuration", "numInputRows",
                          "inputRowsPerSecond", "processedRowsPerSecond", "durationMs", "stateOperators", "sources",
                          "sink"}) {
    EXPECT_TRUE(p.contains(key)) << key;
  }
  for (const char* key : {"addBatch", "getBatch", "latestOffset", "queryPlanning", "triggerExecution", "walCommit",
                          "commitOffsets"}) {
    EXPECT_TRUE(p["durationMs"].contains(key)) << key;
  }
  for (const char* key : {"description", "startOffset", "endOffset", "latestOffset", "numInputRows"}) {
    EXPECT_TRUE(p["sources"][0].contains(key)) << key;
  }
  EXPECT_EQ(p["sources"][0]["startOffset"], 2);
  EXPECT_EQ(p["sources"][0]["endOffset"], 3);
  EXPECT_EQ(p["sink"]["numOutputRows"], 1);
  EXPECT_EQ(p["name"], "p");
  EXPECT_EQ(json::parse(q.status().json())["isTriggerActive"].is_boolean(), true);
  ASSERT_OK(q.stop());
}

// A one-connection line server on an ephemeral loopback port.
class LineServer {
 public:
  LineServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    ::listen(fd_, 1);
  }
  ~LineServer() {
    if (client_ >= 0) ::close(client_);
    ::close(fd_);
  }
  int port() const { return port_; }
  void Accept() { client_ = ::accept(fd_, nullptr, nullptr); }
  void Send(const std::string& text) { (void)!::write(client_, text.data(), text.size()); }

 private:
  int fd_, client_ = -1, port_;
};

TEST(SocketSource, ReadsLinesAndSaysItCannotReplay) {
  LineServer server;
  auto s = Session::Make();
  std::thread accept([&] { server.Accept(); });
  ASSERT_OK_AND_ASSIGN(auto df, s->readStream().format("socket").option("host", "127.0.0.1")
                                    .option("port", std::to_string(server.port())).load());
  ASSERT_OK_AND_ASSIGN(auto q, df.writeStream().format("memory").queryName("lines").start());
  accept.join();
  server.Send("hello\nworld\n");
  // Lines arrive asynchronously: poll until both are in.
  for (int i = 0; i < 200; ++i) {
    ASSERT_OK(q.processAllAvailable());
    auto rows = s->memoryTable("lines");
    if (rows.ok() && (*rows)->num_rows() == 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_OK_AND_ASSIGN(auto rows, s->memoryTable("lines"));
  EXPECT_EQ(rows->num_rows(), 2);
  ASSERT_OK(q.stop());
  auto refused = s->readStream().format("socket").option("host", "127.0.0.1").option("port", "1").load();
  ASSERT_OK(refused.status());  // options are fine; connecting happens at start
  auto start = refused->writeStream().format("memory").queryName("nope").start();
  ASSERT_FALSE(start.ok());
  EXPECT_THAT(start.status().message(), HasSubstr("127.0.0.1:1"));
}

}  // namespace
}  // namespace sluice::testing
