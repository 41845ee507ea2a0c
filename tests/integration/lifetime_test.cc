// Who owns what while a query runs: a query never outlives the session it writes into, the
// session and its queries form no reference cycle, and dropping the last handle to a query on
// the query's own thread is safe. Run these under AddressSanitizer (LeakSanitizer included):
// before the fixes they were a use-after-free, a leak and a std::terminate.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/access.h"
#include "runtime/query_execution.h"
#include "runtime/query_registry.h"
#include "test_util.h"

namespace sluice {
namespace {

using testing::TempDir;

// A query over rate-micro-batch on a ProcessingTime(0) trigger writes a new batch into the
// memory sink on every trigger, so it is writing when the test tears things down.
Result<StreamingQuery> StartBusyMemoryQuery(const std::shared_ptr<Session>& session, const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(auto df, session->readStream().format("rate-micro-batch").option("rowsPerBatch", 5).load());
  return df.writeStream().format("memory").queryName(name).trigger(ProcessingTime(0)).start();
}

void WaitForBatches(const StreamingQuery& q, size_t n) {
  for (int i = 0; i < 1000 && q.recentProgress().size() < n; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

TEST(LifetimeTest, DestroyingTheSessionStopsItsRunningQueries) {
  std::weak_ptr<Session> weak_session;
  std::optional<StreamingQuery> query;
  {
    auto session = Session::Make();
    weak_session = session;
    ASSERT_OK_AND_ASSIGN(auto q, StartBusyMemoryQuery(session, "busy"));
    WaitForBatches(q, 3);
    ASSERT_GE(q.recentProgress().size(), 3u);
    ASSERT_TRUE(q.isActive());
    query = q;
  }  // the last reference to the session goes here, while the query writes batches
  EXPECT_TRUE(weak_session.expired());
  EXPECT_FALSE(query->isActive()) << "the session's destructor must stop and join its queries";
  EXPECT_OK(query->awaitTermination());
  const size_t batches = query->recentProgress().size();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(query->recentProgress().size(), batches) << "no batch may run after the session is gone";
}

TEST(LifetimeTest, SessionRegistryAndTerminatedQueriesAreFreedTogether) {
  TempDir dir;
  std::weak_ptr<Session> weak_session;
  std::weak_ptr<runtime::QueryRegistry> weak_registry;
  std::weak_ptr<runtime::QueryExecution> weak_execution;
  {
    auto session = Session::Make();
    weak_session = session;
    weak_registry = detail::Access::RegistryOf(*session);
    MemoryStream input(session, "id BIGINT");
    ASSERT_OK(input.addJson(R"([{"id": 1}, {"id": 2}])"));
    ASSERT_OK_AND_ASSIGN(auto q, input.toDF()
                                     .writeStream()
                                     .format("memory")
                                     .queryName("done")
                                     .option("checkpointLocation", dir.Sub("ckpt"))
                                     .trigger(AvailableNow())
                                     .start());
    ASSERT_OK(q.awaitTermination());
    weak_execution = detail::Access::ExecutionOf(q);
    // The registry keeps the terminated query for streams().get(id).
    ASSERT_TRUE(session->streams().get(q.id()).has_value());
    ASSERT_OK_AND_ASSIGN(auto rows, session->memoryTable("done"));
    EXPECT_EQ(rows->num_rows(), 2);
  }
  EXPECT_TRUE(weak_session.expired());
  EXPECT_TRUE(weak_registry.expired()) << "a terminated query must not keep its session's registry alive";
  EXPECT_TRUE(weak_execution.expired());
}

TEST(LifetimeTest, ForeachBatchFunctionHoldingTheSessionDoesNotLeakIt) {
  std::weak_ptr<Session> weak_session;
  int64_t rows_seen = 0;
  {
    auto session = Session::Make();
    weak_session = session;
    MemoryStream input(session, "id BIGINT");
    ASSERT_OK(input.addJson(R"([{"id": 1}, {"id": 2}, {"id": 3}])"));
    ASSERT_OK_AND_ASSIGN(auto q, input.toDF()
                                     .writeStream()
                                     .foreachBatch([session, &rows_seen](const std::shared_ptr<arrow::Table>& rows,
                                                                         int64_t) {
                                       // Holds the session, as a function that reads other tables would.
                                       if (!session) return Status::Invalid("no session");
                                       rows_seen += rows->num_rows();
                                       return Status::OK();
                                     })
                                     .trigger(AvailableNow())
                                     .start());
    ASSERT_OK(q.awaitTermination());
  }
  EXPECT_EQ(rows_seen, 3);
  EXPECT_TRUE(weak_session.expired()) << "a terminated query must let go of its foreachBatch function";
}

// The only handle is dropped by a listener, on the query's thread: the query stops, and its
// thread (which must not run on a destroyed object) finishes on its own.
class DropHandleListener : public StreamingQueryListener {
 public:
  void Hold(StreamingQuery q) {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = std::move(q);
  }
  void onQueryProgress(const QueryProgressEvent&) override {
    std::optional<StreamingQuery> dropped;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!held_) return;
      dropped.swap(held_);
      dropped_on_ = std::this_thread::get_id();
    }
  }  // `dropped`, the last handle, is destroyed here, on the query thread
  std::thread::id dropped_on() {
    std::lock_guard<std::mutex> lock(mu_);
    return dropped_on_;
  }

 private:
  std::mutex mu_;
  std::optional<StreamingQuery> held_;
  std::thread::id dropped_on_;
};

TEST(LifetimeTest, LastHandleDroppedOnTheQueryThreadStopsTheQuery) {
  auto session = Session::Make();
  auto listener = std::make_shared<DropHandleListener>();
  session->streams().addListener(listener);
  std::string id;
  {
    ASSERT_OK_AND_ASSIGN(auto q, StartBusyMemoryQuery(session, "dropped"));
    id = q.id();
    listener->Hold(q);
  }  // from here the listener holds the only handle
  ASSERT_OK_AND_ASSIGN(bool terminated, session->streams().awaitAnyTermination(10000));
  EXPECT_TRUE(terminated);
  EXPECT_NE(listener->dropped_on(), std::thread::id());
  EXPECT_NE(listener->dropped_on(), std::this_thread::get_id());
  EXPECT_TRUE(session->streams().active().empty());
}

}  // namespace
}  // namespace sluice
