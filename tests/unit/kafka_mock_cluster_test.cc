// The Kafka source's offset planning and the sink's transactional path against librdkafka's
// mock cluster (rd_kafka_mock_cluster_new: an in-process broker, no Java, no network beyond
// loopback). The real-broker tests (tests/kafka/) cover kill -9 and broker restarts.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <arrow/api.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/file_system.h"
#include "sink/kafka_sink.h"
#include "source/kafka_source.h"
#include "source/kafka_source_options.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice {
namespace {

using nlohmann::json;

// One mock broker, alive for the test; producing goes through a plain librdkafka producer.
class MockCluster {
 public:
  MockCluster() {
    char err[256];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
    handle_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    cluster_ = rd_kafka_mock_cluster_new(handle_, 1);
    bootstrap_ = rd_kafka_mock_cluster_bootstraps(cluster_);
  }
  ~MockCluster() {
    if (producer_) rd_kafka_destroy(producer_);
    rd_kafka_mock_cluster_destroy(cluster_);
    rd_kafka_destroy(handle_);
  }
  const std::string& bootstrap() const { return bootstrap_; }

  void CreateTopic(const std::string& topic, int partitions) {
    ASSERT_EQ(rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, 1), RD_KAFKA_RESP_ERR_NO_ERROR);
  }
  // `n` records "<prefix><i>" to one partition, flushed.
  void Produce(const std::string& topic, int32_t partition, const std::string& prefix, int n) {
    if (!producer_) {
      char err[256];
      rd_kafka_conf_t* conf = rd_kafka_conf_new();
      rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap_.c_str(), err, sizeof err);
      producer_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    }
    for (int i = 0; i < n; ++i) {
      const std::string v = prefix + std::to_string(i);
      ASSERT_EQ(rd_kafka_producev(producer_, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                                  RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                  RD_KAFKA_V_VALUE(const_cast<char*>(v.data()), v.size()), RD_KAFKA_V_END),
                RD_KAFKA_RESP_ERR_NO_ERROR);
    }
    ASSERT_EQ(rd_kafka_flush(producer_, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
  }

 private:
  rd_kafka_t* handle_ = nullptr;
  rd_kafka_t* producer_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
  std::string bootstrap_;
};

plan::SourceSpec KafkaSpec(const std::string& bootstrap, std::map<std::string, std::string> options) {
  plan::SourceSpec spec;
  spec.format = "kafka";
  spec.streaming = true;
  spec.options.Set("kafka.bootstrap.servers", bootstrap);
  for (const auto& [k, v] : options) spec.options.Set(k, v);
  return spec;
}

std::vector<std::string> Values(const arrow::Table& t) {
  std::vector<std::string> out;
  auto col = t.GetColumnByName("value");
  for (const auto& chunk : col->chunks()) {
    const auto& a = static_cast<const arrow::BinaryArray&>(*chunk);
    for (int64_t i = 0; i < a.length(); ++i) out.emplace_back(a.GetView(i));
  }
  return out;
}

class KafkaMockClusterTest : public ::testing::Test {
 protected:
  source::SourceContext Context(const std::string& dir) {
    source::SourceContext ctx;
    ctx.fs = io::LocalFileSystem();
    ctx.metadata_dir = dir;
    ctx.clock_ms = [this] { return now_ms_; };
    ctx.query_id = "5c7d0f4e-mock";
    return ctx;
  }
  MockCluster mock_;
  testing::TempDir tmp_;
  int64_t now_ms_ = 1000;
};

// maxOffsetsPerTrigger shares the limit by backlog (Spark's rateLimit), the end offsets are
// Spark's JSON, and the recorded range reads back exactly its records, again on a redo.
TEST_F(KafkaMockClusterTest, RateLimitedRangesReadExactlyTheirRecords) {
  mock_.CreateTopic("events", 2);
  mock_.Produce("events", 0, "a", 30);
  mock_.Produce("events", 1, "b", 10);
  ASSERT_OK_AND_ASSIGN(auto src, source::MakeKafkaSource(KafkaSpec(mock_.bootstrap(), {{"subscribe", "events"},
                                                                                       {"startingOffsets", "earliest"},
                                                                                       {"maxOffsetsPerTrigger", "8"}}),
                                                         Context(tmp_.Sub("src"))));
  ASSERT_OK_AND_ASSIGN(auto end1, src->LatestOffset(std::nullopt, /*limited=*/true));
  ASSERT_TRUE(end1.has_value());
  EXPECT_EQ(*end1, json::parse(R"({"events":{"0":6,"1":2}})"));  // 8 * 30/40 and 8 * 10/40
  ASSERT_OK_AND_ASSIGN(auto rows, src->GetBatch(std::nullopt, *end1));
  EXPECT_EQ(Values(*rows), (std::vector<std::string>{"a0", "a1", "a2", "a3", "a4", "a5", "b0", "b1"}));
  ASSERT_OK_AND_ASSIGN(auto again, src->GetBatch(std::nullopt, *end1));  // a redone batch
  EXPECT_EQ(Values(*again), Values(*rows));

  ASSERT_OK_AND_ASSIGN(auto end2, src->LatestOffset(end1, /*limited=*/true));
  EXPECT_EQ(*end2, json::parse(R"({"events":{"0":12,"1":4}})"));
  ASSERT_OK_AND_ASSIGN(auto unlimited, src->LatestOffset(end1, /*limited=*/false));  // Trigger.Once
  EXPECT_EQ(*unlimited, json::parse(R"({"events":{"0":30,"1":10}})"));
  ASSERT_OK_AND_ASSIGN(auto rest, src->GetBatch(end1, *unlimited));
  EXPECT_EQ(rest->num_rows(), 32);

  // A new source on the same checkpoint directory starts where the first one recorded
  // (sources/<i>/0), not at "latest" again.
  ASSERT_OK_AND_ASSIGN(auto restarted,
                       source::MakeKafkaSource(KafkaSpec(mock_.bootstrap(), {{"subscribe", "events"},
                                                                            {"startingOffsets", "latest"}}),
                                               Context(tmp_.Sub("src"))));
  ASSERT_OK_AND_ASSIGN(auto first, restarted->LatestOffset(std::nullopt, true));
  ASSERT_OK_AND_ASSIGN(auto replay, restarted->GetBatch(std::nullopt, *first));
  EXPECT_EQ(replay->num_rows(), 40);
}

// minOffsetsPerTrigger + maxTriggerDelay on an injected clock: a trigger with fewer new offsets
// than the minimum is skipped until the delay has passed since the last batch.
TEST_F(KafkaMockClusterTest, MinOffsetsPerTriggerWaitsForDataOrTheDelay) {
  mock_.CreateTopic("slow", 2);
  ASSERT_OK_AND_ASSIGN(auto src, source::MakeKafkaSource(KafkaSpec(mock_.bootstrap(), {{"subscribe", "slow"},
                                                                                       {"starting_offsets", "earliest"},
                                                                                       {"min_offsets_per_trigger", "10"},
                                                                                       {"maxTriggerDelay", "10s"}}),
                                                         Context(tmp_.Sub("src"))));
  mock_.Produce("slow", 0, "x", 4);
  mock_.Produce("slow", 1, "y", 2);
  ASSERT_OK_AND_ASSIGN(auto skipped, src->LatestOffset(std::nullopt, true));
  EXPECT_FALSE(skipped.has_value()) << "6 new offsets < minOffsetsPerTrigger 10, 1 s < maxTriggerDelay";
  mock_.Produce("slow", 1, "z", 4);
  now_ms_ = 2000;
  ASSERT_OK_AND_ASSIGN(auto end1, src->LatestOffset(std::nullopt, true));
  ASSERT_TRUE(end1.has_value()) << "10 new offsets reach the minimum";
  EXPECT_EQ(*end1, json::parse(R"({"slow":{"0":4,"1":6}})"));

  mock_.Produce("slow", 0, "w", 3);
  now_ms_ = 11999;  // 9.999 s after the last batch
  ASSERT_OK_AND_ASSIGN(auto still, src->LatestOffset(end1, true));
  EXPECT_EQ(*still, *end1) << "3 new offsets, delay not over: the trigger is skipped";
  EXPECT_EQ(src->metrics().custom.at("maxOffsetsBehindLatest"), "3");
  now_ms_ = 12000;
  ASSERT_OK_AND_ASSIGN(auto end2, src->LatestOffset(end1, true));
  EXPECT_EQ(*end2, json::parse(R"({"slow":{"0":7,"1":6}})")) << "maxTriggerDelay passed: 3 offsets are enough";
  ASSERT_OK_AND_ASSIGN(auto once, src->LatestOffset(end1, /*limited=*/false));
  EXPECT_EQ(*once, *end2) << "Trigger.Once reads everything regardless of the minimum";
}

TEST_F(KafkaMockClusterTest, MissingTopicAndPartitionsAreNamed) {
  mock_.CreateTopic("two", 2);
  ASSERT_OK_AND_ASSIGN(auto src, source::MakeKafkaSource(KafkaSpec(mock_.bootstrap(),
                                                                   {{"subscribe", "two"},
                                                                    {"startingOffsets", R"({"two":{"0":0}})"}}),
                                                         Context(tmp_.Sub("src"))));
  auto st = src->LatestOffset(std::nullopt, true).status();
  EXPECT_THAT(st.message(), ::testing::HasSubstr("option 'startingOffsets' has no offset for two-1"));
}

// The sink's two delivery guarantees, read back by a read_committed consumer. Exactly-once: each
// batch is one transaction and a batch id the sink has committed is not produced again.
// At-least-once: a redone batch is produced again. (Recognising a batch after a restart reads
// the transaction's committed group offsets, which librdkafka's mock cluster does not keep;
// tests/kafka/test_kafka_sink.py proves that on a real broker.)
TEST_F(KafkaMockClusterTest, SinkCommitsEachBatchOnceUnlessAtLeastOnce) {
  auto batch = [](std::vector<std::string> values) {
    arrow::StringBuilder b;
    EXPECT_TRUE(b.AppendValues(values).ok());
    return arrow::Table::Make(arrow::schema({arrow::field("value", arrow::utf8())}), {b.Finish().ValueOrDie()});
  };
  auto read = [&](const std::string& topic) -> std::vector<std::string> {
    plan::SourceSpec spec;
    spec.format = "kafka";
    spec.options.Set("kafka.bootstrap.servers", mock_.bootstrap());
    spec.options.Set("subscribe", topic);
    spec.options.Set("kafka.isolation.level", "read_committed");
    auto rows = source::ReadKafkaStatic(spec, io::LocalFileSystem());
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? Values(**rows) : std::vector<std::string>{};
  };
  for (const std::string guarantee : {"exactly-once", "at-least-once"}) {
    SCOPED_TRACE(guarantee);
    const std::string topic = "out-" + guarantee;
    mock_.CreateTopic(topic, 1);
    sink::SinkSpec spec;
    spec.format = "kafka";
    spec.options.Set("kafka.bootstrap.servers", mock_.bootstrap());
    spec.options.Set("topic", topic);
    spec.options.Set("delivery.guarantee", guarantee);
    sink::SinkContext ctx;
    ctx.fs = io::LocalFileSystem();
    ctx.query_id = "3f1e2d7a-" + guarantee;
    ASSERT_OK_AND_ASSIGN(auto sink, sink::MakeKafkaSink(spec, ctx));
    EXPECT_EQ(sink->idempotent(), guarantee == "exactly-once");
    ASSERT_OK(sink->AddBatch(0, batch({"r0", "r1"})));
    ASSERT_OK(sink->AddBatch(0, batch({"r0", "r1"})));  // batch 0 redone
    ASSERT_OK(sink->AddBatch(1, batch({"r2"})));
    if (guarantee == "exactly-once") {
      EXPECT_EQ(read(topic), (std::vector<std::string>{"r0", "r1", "r2"}));
    } else {
      EXPECT_EQ(read(topic), (std::vector<std::string>{"r0", "r1", "r0", "r1", "r2"}));
    }
  }
}

}  // namespace
}  // namespace sluice
