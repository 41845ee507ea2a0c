// The Kafka client seam shared by the Kafka source and sink (librdkafka's C API): creating
// clients from settings, metadata and offset look-ups with errors that name the bootstrap
// servers, topic and partition at fault. Knows nothing about batches or offsets logs.
#pragma once

#include <arrow/result.h>
#include <arrow/status.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct rd_kafka_s;  // librdkafka's rd_kafka_t

namespace sluice::io::kafka {

using arrow::Result;
using arrow::Status;

/// librdkafka properties (bootstrap.servers, security settings, ...), as given after "kafka.".
using Settings = std::map<std::string, std::string>;

/// Owns an rd_kafka_t; destroying it closes a consumer first.
struct ClientDeleter {
  void operator()(rd_kafka_s* rk) const;
};
using ClientPtr = std::unique_ptr<rd_kafka_s, ClientDeleter>;

enum class ClientType { kProducer, kConsumer };

/// What a producer's delivery reports said (the callback runs inside rd_kafka_poll/flush).
struct DeliveryReport {
  std::atomic<int64_t> failed{0};
  std::mutex mu;
  std::string first_error;  // guarded by mu
};

/// A client with `settings`; `what` ("Kafka source") prefixes configuration errors, which name
/// the setting. Connection problems show up in the first call that needs the broker. A
/// producer given `report` (which must outlive the client) counts failed deliveries there.
Result<ClientPtr> MakeClient(ClientType type, const Settings& settings, const std::string& what,
                             DeliveryReport* report = nullptr);

/// The bootstrap servers of `settings` for messages ("<unset>" when missing).
std::string BootstrapOf(const Settings& settings);

/// Topic -> partition ids (sorted) of every topic the cluster has (internal topics excluded).
/// Retries for `timeout_ms`; then an error naming the bootstrap servers.
Result<std::map<std::string, std::vector<int32_t>>> ListTopics(rd_kafka_s* rk, const std::string& bootstrap,
                                                               int timeout_ms);

/// Asks the cluster for `topic`'s partitions and leaders (empty `topic`: every topic's) and
/// keeps the answer in the client's cache; one try of at most `timeout_ms`, failures ignored
/// (the calls that need the answer report them).
void LoadMetadata(rd_kafka_s* rk, const std::string& topic, int timeout_ms);

/// The partitions of `topic`; an error when the topic does not exist (naming it and the servers).
Result<std::vector<int32_t>> TopicPartitions(rd_kafka_s* rk, const std::string& topic, const std::string& bootstrap,
                                             int timeout_ms);

/// The earliest offset and the next offset to be written (the last stable offset for a
/// read_committed client) of one partition.
struct Watermarks {
  int64_t low = 0;
  int64_t high = 0;
};
Result<Watermarks> QueryWatermarks(rd_kafka_s* rk, const std::string& topic, int32_t partition,
                                   const std::string& bootstrap, int timeout_ms);

/// The first offset of one partition whose record timestamp is at or after `timestamp_ms`
/// (Kafka's offsetsForTimes), or nullopt when every record is older. Retries like
/// QueryWatermarks; then an error naming the partition and the servers.
Result<std::optional<int64_t>> QueryOffsetForTime(rd_kafka_s* rk, const std::string& topic, int32_t partition,
                                                  int64_t timestamp_ms, const std::string& bootstrap, int timeout_ms);

/// How long the connectors retry a broker that does not answer: the client's
/// `socket.timeout.ms` (librdkafka's default, 60 s, when unset).
int RetryTimeoutMs(const Settings& settings);

/// Text of a librdkafka error code.
std::string ErrorText(int err);

}  // namespace sluice::io::kafka

namespace sluice::io::kafka {

/// A Kafka connector's options split in two: its own options under their canonical
/// (camelCase) names, and the librdkafka settings given as "kafka.<setting>".
struct ConnectorOptions {
  std::map<std::string, std::string> own;
  Settings kafka;
  std::optional<std::string> Get(const std::string& canonical) const;
};

/// Splits `entries` (option name -> value, as the user spelled them). Own options are matched
/// case-insensitively in camelCase or snake_case (`startingOffsets`, `starting_offsets`);
/// `bootstrap_servers`/`bootstrapServers` mean `kafka.bootstrap.servers`. An unknown name, or a
/// setting in `refused`, is an error naming it; `what` ("Kafka source") starts the message.
Result<ConnectorOptions> SplitOptions(const std::vector<std::pair<std::string, std::string>>& entries,
                                      const std::vector<std::string>& known, const std::vector<std::string>& refused,
                                      const std::string& what);

}  // namespace sluice::io::kafka
