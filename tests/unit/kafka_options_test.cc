// The Kafka connectors' option handling and Spark's offset JSON (no broker needed).
#include <gtest/gtest.h>

#include "io/kafka_client.h"
#include "source/kafka_source_options.h"
#include "support/status.h"

namespace sluice {
namespace {

using source::kafka::OffsetSpec;
using ::testing::HasSubstr;

plan::Options Opts(std::initializer_list<std::pair<std::string, std::string>> kv) {
  plan::Options o;
  for (const auto& [k, v] : kv) o.Set(k, v);
  return o;
}

TEST(KafkaOptionsTest, SparkNamesSnakeCaseAndPassthrough) {
  ASSERT_OK_AND_ASSIGN(auto o, source::kafka::ParseKafkaSourceOptions(
                                   Opts({{"bootstrap_servers", "h:1"}, {"subscribe", "a, b"},
                                         {"starting_offsets", R"({"a":{"0":5,"1":-2},"b":{"0":-1}})"},
                                         {"maxOffsetsPerTrigger", "100"}, {"kafka.security.protocol", "SSL"}}),
                                   /*streaming=*/true));
  EXPECT_EQ(o.kafka.at("bootstrap.servers"), "h:1");
  EXPECT_EQ(o.kafka.at("security.protocol"), "SSL");
  EXPECT_EQ(o.subscribe, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(o.starting.kind, OffsetSpec::Kind::kJson);
  EXPECT_EQ(o.starting.json.at({"a", 0}), 5);
  EXPECT_EQ(o.starting.json.at({"a", 1}), source::kafka::kEarliest);
  EXPECT_EQ(o.starting.json.at({"b", 0}), source::kafka::kLatest);
  EXPECT_EQ(*o.max_offsets_per_trigger, 100);
  EXPECT_TRUE(o.fail_on_data_loss);
}

TEST(KafkaOptionsTest, RefusalsNameTheOption) {
  auto parse = [](plan::Options o, bool streaming = true) {
    return source::kafka::ParseKafkaSourceOptions(o, streaming).status();
  };
  EXPECT_THAT(parse(Opts({{"subscribe", "a"}})).message(), HasSubstr("kafka.bootstrap.servers"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}})).message(), HasSubstr("exactly one of"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"assign", R"({"a":[0]})"}})).message(),
              HasSubstr("(2 given)"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"startingOfsets", "earliest"}}))
                  .message(),
              HasSubstr("unknown option 'startingOfsets'"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"kafka.auto.offset.reset", "x"}}))
                  .message(),
              HasSubstr("'kafka.auto.offset.reset' is not supported"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"endingOffsets", "latest"}}))
                  .message(),
              HasSubstr("'endingOffsets' is for batch reads"));
  EXPECT_OK(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"endingOffsets", "latest"}}),
                  /*streaming=*/false));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"startingOffsets", "{bad"}}))
                  .message(),
              HasSubstr("'startingOffsets' must be earliest, latest or JSON"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"maxOffsetsPerTrigger", "0"}}))
                  .message(),
              HasSubstr("must be positive"));
}

TEST(KafkaOptionsTest, TriggerLimitsAndTimestampsInEverySpelling) {
  ASSERT_OK_AND_ASSIGN(auto o, source::kafka::ParseKafkaSourceOptions(
                                   Opts({{"bootstrap_servers", "h:1"}, {"subscribe", "a"},
                                         {"min_offsets_per_trigger", "50"}, {"maxTriggerDelay", "30s"},
                                         {"starting_offsets_by_timestamp", R"({"a":{"0":1700000000000}})"},
                                         {"startingOffsetsByTimestampStrategy", "LATEST"}}),
                                   /*streaming=*/true));
  EXPECT_EQ(*o.min_offsets_per_trigger, 50);
  EXPECT_EQ(o.max_trigger_delay_ms, 30000);
  ASSERT_EQ(o.starting.kind, OffsetSpec::Kind::kByTimestamp);
  EXPECT_EQ(o.starting.json.at({"a", 0}), 1700000000000);
  EXPECT_TRUE(o.starting.no_match_is_latest);

  // startingTimestamp wins over startingOffsetsByTimestamp and startingOffsets, as in Spark.
  ASSERT_OK_AND_ASSIGN(auto t, source::kafka::ParseKafkaSourceOptions(
                                   Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"},
                                         {"startingOffsets", "earliest"}, {"startingTimestamp", "1700000000000"},
                                         {"startingOffsetsByTimestamp", R"({"a":{"0":5}})"}}),
                                   /*streaming=*/true));
  EXPECT_EQ(t.starting.kind, OffsetSpec::Kind::kTimestamp);
  EXPECT_EQ(t.starting.timestamp_ms, 1700000000000);
  EXPECT_FALSE(t.starting.no_match_is_latest);  // Spark's default strategy: error
  EXPECT_EQ(t.max_trigger_delay_ms, 15 * 60 * 1000);  // Spark's default, 15m

  ASSERT_OK_AND_ASSIGN(auto b, source::kafka::ParseKafkaSourceOptions(
                                   Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"},
                                         {"ending_timestamp", "1700000000000"}}),
                                   /*streaming=*/false));
  EXPECT_EQ(b.ending.kind, OffsetSpec::Kind::kTimestamp);
  EXPECT_TRUE(b.ending.no_match_is_latest);

  auto parse = [](plan::Options o, bool streaming = true) {
    return source::kafka::ParseKafkaSourceOptions(o, streaming).status().message();
  };
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"minOffsetsPerTrigger", "10"},
                          {"maxOffsetsPerTrigger", "5"}})),
              HasSubstr("'minOffsetsPerTrigger' (10) is higher than 'maxOffsetsPerTrigger' (5)"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"minOffsetsPerTrigger", "-1"}})),
              HasSubstr("'minOffsetsPerTrigger' must be positive"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"maxTriggerDelay", "soon"}})),
              HasSubstr("maxTriggerDelay"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"}, {"endingTimestamp", "5"}})),
              HasSubstr("'endingTimestamp' and 'endingOffsetsByTimestamp' are for batch reads"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"},
                          {"startingOffsetsByTimestampStrategy", "skip"}})),
              HasSubstr("'startingOffsetsByTimestampStrategy' must be error or latest, not 'skip'"));
  EXPECT_THAT(parse(Opts({{"kafka.bootstrap.servers", "h:1"}, {"subscribe", "a"},
                          {"startingOffsetsByTimestamp", R"({"a":{"0":-3}})"}})),
              HasSubstr("a-0 the timestamp -3"));
}

TEST(KafkaOptionsTest, OffsetsRoundTripAsSparkJson) {
  source::kafka::PartitionOffsets offsets{{{"t", 0}, 12}, {{"t", 10}, 3}, {{"u", 1}, 0}};
  const auto j = source::kafka::OffsetsToJson(offsets);
  EXPECT_EQ(j, nlohmann::json::parse(R"({"t":{"0":12,"10":3},"u":{"1":0}})"));
  ASSERT_OK_AND_ASSIGN(auto back, source::kafka::OffsetsFromJson(j, "offsets/0"));
  EXPECT_EQ(back, offsets);
  EXPECT_THAT(source::kafka::OffsetsFromJson(nlohmann::json::parse(R"({"t":{"x":1}})"), "offsets/3").status().message(),
              HasSubstr("offsets/3"));
}

}  // namespace
}  // namespace sluice
