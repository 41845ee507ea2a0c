// The Kafka source's options (Spark's names, also in snake_case) and its offsets: Spark's
// JSON form {"topic":{"0":123}}, where each number is the next offset to read.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "io/kafka_client.h"
#include "plan/logical_plan.h"

namespace sluice::source::kafka {

using TopicPartition = std::pair<std::string, int32_t>;
/// Next offset to read per topic-partition.
using PartitionOffsets = std::map<TopicPartition, int64_t>;

/// Spark's special offsets in startingOffsets/endingOffsets JSON.
constexpr int64_t kLatest = -1;
constexpr int64_t kEarliest = -2;

/// startingOffsets / endingOffsets: "earliest", "latest", or per-partition JSON (-2 / -1 allowed);
/// or, from startingOffsetsByTimestamp / startingTimestamp (and the ending ones), a timestamp per
/// partition or one for all: the first offset whose record timestamp is at or after it.
struct OffsetSpec {
  enum class Kind { kEarliest, kLatest, kJson, kByTimestamp, kTimestamp } kind = Kind::kLatest;
  PartitionOffsets json;  // kJson: offsets; kByTimestamp: epoch milliseconds per partition
  int64_t timestamp_ms = 0;  // kTimestamp
  /// A timestamp later than every record of a partition: an error (startingOffsetsByTimestampStrategy
  /// = error, Spark's default for starting offsets) or the partition's latest offset.
  bool no_match_is_latest = false;
};

struct KafkaSourceOptions {
  io::kafka::Settings kafka;        // librdkafka settings (kafka.*)
  std::string bootstrap;            // for messages
  std::vector<std::string> subscribe;                      // subscribe
  std::optional<std::string> pattern_text;                 // subscribePattern
  std::optional<std::regex> pattern;
  std::map<std::string, std::vector<int32_t>> assign;      // assign
  OffsetSpec starting;
  OffsetSpec ending;  // batch reads only
  std::optional<int64_t> max_offsets_per_trigger;
  /// minOffsetsPerTrigger + maxTriggerDelay: a trigger with fewer new offsets than the minimum is
  /// skipped, unless maxTriggerDelay has passed since the last batch started (Spark's rule).
  std::optional<int64_t> min_offsets_per_trigger;
  int64_t max_trigger_delay_ms = 15 * 60 * 1000;
  bool fail_on_data_loss = true;
  bool include_headers = false;
  std::string group_id_prefix = "sluice-kafka-source";
  int poll_timeout_ms = 120000;  // kafkaConsumer.pollTimeoutMs
};

/// Parses and checks the options; `streaming` = readStream() (endingOffsets is refused, as in
/// Spark; startingOffsets defaults to latest) rather than read() (defaults earliest/latest).
Result<KafkaSourceOptions> ParseKafkaSourceOptions(const plan::Options& options, bool streaming);
/// Option check for the source registry (readStream()).
Status ValidateKafkaSourceSpec(const plan::SourceSpec& spec);

/// Spark's offset JSON: {"topic":{"0":123,"1":45}}.
nlohmann::json OffsetsToJson(const PartitionOffsets& offsets);
/// The reverse; `what` names the text in errors ("offsets/3", "option 'startingOffsets'").
Result<PartitionOffsets> OffsetsFromJson(const nlohmann::json& j, const std::string& what);

}  // namespace sluice::source::kafka
