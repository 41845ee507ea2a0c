#include "io/kafka_client.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include "util/log.h"
#include "util/numbers.h"

namespace sluice::io::kafka {

void ClientDeleter::operator()(rd_kafka_s* rk) const {
  if (!rk) return;
  if (rd_kafka_type(rk) == RD_KAFKA_CONSUMER) rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
}

std::string ErrorText(int err) { return rd_kafka_err2str(static_cast<rd_kafka_resp_err_t>(err)); }

int RetryTimeoutMs(const Settings& settings) {
  auto it = settings.find("socket.timeout.ms");
  if (it == settings.end()) return 60000;
  auto ms = util::ParseInt32(it->second, "kafka.socket.timeout.ms");
  return ms.ok() && *ms > 0 ? *ms : 60000;
}

std::string BootstrapOf(const Settings& settings) {
  auto it = settings.find("bootstrap.servers");
  return it == settings.end() ? "<unset>" : it->second;
}

namespace {

// librdkafka reports background problems (unreachable brokers) through this callback; they
// surface as errors of the calls that need the broker, so these are only debug lines.
void LogCallback(const rd_kafka_t*, int level, const char* fac, const char* buf) {
  if (level <= 3) util::LogDebug("librdkafka ", fac, ": ", buf);
}

void DeliveryCallback(rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
  if (!m->err || !opaque) return;
  auto* report = static_cast<DeliveryReport*>(opaque);
  if (report->failed++ == 0) {
    std::lock_guard<std::mutex> lock(report->mu);
    report->first_error = rd_kafka_err2str(m->err);
  }
}

}  // namespace

Result<ClientPtr> MakeClient(ClientType type, const Settings& settings, const std::string& what,
                             DeliveryReport* report) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (const auto& [k, v] : settings) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return Status::Invalid(what, ": Kafka setting 'kafka.", k, "' = '", v, "' is refused: ", err);
    }
  }
  rd_kafka_conf_set_log_cb(conf, LogCallback);
  if (report) {
    rd_kafka_conf_set_opaque(conf, report);
    rd_kafka_conf_set_dr_msg_cb(conf, DeliveryCallback);
  }
  rd_kafka_t* rk = rd_kafka_new(type == ClientType::kProducer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER, conf, err,
                                sizeof err);
  if (!rk) {
    rd_kafka_conf_destroy(conf);
    return Status::Invalid(what, ": cannot create a Kafka client: ", err);
  }
  return ClientPtr(rk);
}

Result<std::map<std::string, std::vector<int32_t>>> ListTopics(rd_kafka_s* rk, const std::string& bootstrap,
                                                               int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  rd_kafka_resp_err_t err;
  const rd_kafka_metadata_t* md = nullptr;
  // Bounded retry: a broker that is starting or restarting answers after a while.
  while (true) {
    err = rd_kafka_metadata(rk, /*all_topics=*/1, nullptr, &md, std::min(timeout_ms, 5000));
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::IOError("Kafka brokers at '", bootstrap, "' (kafka.bootstrap.servers) did not answer within ",
                           timeout_ms, " ms: ", rd_kafka_err2str(err));
  }
  std::map<std::string, std::vector<int32_t>> out;
  for (int i = 0; i < md->topic_cnt; ++i) {
    const auto& t = md->topics[i];
    if (t.err != RD_KAFKA_RESP_ERR_NO_ERROR || std::string(t.topic).rfind("__", 0) == 0) continue;
    auto& parts = out[t.topic];
    for (int p = 0; p < t.partition_cnt; ++p) parts.push_back(t.partitions[p].id);
    std::sort(parts.begin(), parts.end());
  }
  rd_kafka_metadata_destroy(md);
  return out;
}

Result<std::vector<int32_t>> TopicPartitions(rd_kafka_s* rk, const std::string& topic, const std::string& bootstrap,
                                             int timeout_ms) {
  ARROW_ASSIGN_OR_RAISE(auto topics, ListTopics(rk, bootstrap, timeout_ms));
  auto it = topics.find(topic);
  if (it == topics.end() || it->second.empty()) {
    return Status::Invalid("Kafka topic '", topic, "' does not exist on '", bootstrap,
                           "' (create it first; sluice does not rely on auto.create.topics)");
  }
  return it->second;
}

void LoadMetadata(rd_kafka_s* rk, const std::string& topic, int timeout_ms) {
  if (timeout_ms <= 0) return;
  rd_kafka_topic_t* rkt = topic.empty() ? nullptr : rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  if (!topic.empty() && !rkt) return;
  const rd_kafka_metadata_t* md = nullptr;
  if (rd_kafka_metadata(rk, rkt ? 0 : 1, rkt, &md, timeout_ms) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_metadata_destroy(md);
  }
  if (rkt) rd_kafka_topic_destroy(rkt);
}

namespace {

int MsLeft(std::chrono::steady_clock::time_point deadline) {
  return static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
}

}  // namespace

Result<Watermarks> QueryWatermarks(rd_kafka_s* rk, const std::string& topic, int32_t partition,
                                   const std::string& bootstrap, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  Watermarks w;
  rd_kafka_resp_err_t err;
  while (true) {
    err = rd_kafka_query_watermark_offsets(rk, topic.c_str(), partition, &w.low, &w.high, std::min(timeout_ms, 5000));
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // Not by what the client cached before a broker restarted: a client that only looks
    // offsets up, never fetching, would otherwise go on answering "Unknown partition".
    LoadMetadata(rk, topic, std::min(MsLeft(deadline), 5000));
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::IOError("Kafka: cannot read the offsets of ", topic, "-", partition, " from '", bootstrap,
                           "' (kafka.bootstrap.servers) within ", timeout_ms, " ms: ", rd_kafka_err2str(err));
  }
  return w;
}

Result<std::optional<int64_t>> QueryOffsetForTime(rd_kafka_s* rk, const std::string& topic, int32_t partition,
                                                  int64_t timestamp_ms, const std::string& bootstrap, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  rd_kafka_resp_err_t err;
  int64_t offset = RD_KAFKA_OFFSET_END;
  while (true) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), partition)->offset = timestamp_ms;
    err = rd_kafka_offsets_for_times(rk, list, std::min(timeout_ms, 5000));
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) err = list->elems[0].err;
    offset = list->elems[0].offset;
    rd_kafka_topic_partition_list_destroy(list);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // Not by what the client cached before a broker restarted: a client that only looks
    // offsets up, never fetching, would otherwise go on answering "Unknown partition".
    LoadMetadata(rk, topic, std::min(MsLeft(deadline), 5000));
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::IOError("Kafka: cannot look up the offset of ", topic, "-", partition, " for timestamp ",
                           timestamp_ms, " on '", bootstrap, "' (kafka.bootstrap.servers) within ", timeout_ms,
                           " ms: ", rd_kafka_err2str(err));
  }
  if (offset < 0) return std::optional<int64_t>();  // no record at or after the timestamp
  return std::optional<int64_t>(offset);
}

}  // namespace sluice::io::kafka

namespace sluice::io::kafka {
namespace {

// "startingOffsets" and "starting_offsets" both fold to "startingoffsets".
std::string Fold(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

std::optional<std::string> ConnectorOptions::Get(const std::string& canonical) const {
  auto it = own.find(canonical);
  if (it == own.end()) return std::nullopt;
  return it->second;
}

Result<ConnectorOptions> SplitOptions(const std::vector<std::pair<std::string, std::string>>& entries,
                                      const std::vector<std::string>& known, const std::vector<std::string>& refused,
                                      const std::string& what) {
  ConnectorOptions out;
  for (const auto& [key, value] : entries) {
    const std::string lower = util::ToLower(key);
    if (lower.rfind("kafka.", 0) == 0) {
      const std::string setting = key.substr(6);
      if (std::find(refused.begin(), refused.end(), util::ToLower(setting)) != refused.end()) {
        return Status::Invalid(what, ": option '", key, "' is not supported: sluice manages '", setting,
                               "' itself (docs/kafka.md)");
      }
      out.kafka[setting] = value;
      continue;
    }
    if (Fold(key) == "bootstrapservers") {
      out.kafka["bootstrap.servers"] = value;
      continue;
    }
    auto it = std::find_if(known.begin(), known.end(), [&](const std::string& k) { return Fold(k) == Fold(key); });
    if (it == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return Status::Invalid(what, ": unknown option '", key, "'. Valid options: ", list,
                             ", bootstrap_servers and kafka.<librdkafka setting>");
    }
    out.own[*it] = value;
  }
  if (!out.kafka.count("bootstrap.servers")) {
    return Status::Invalid(what, " needs option 'kafka.bootstrap.servers' (SQL: bootstrap_servers = 'host:port')");
  }
  return out;
}

}  // namespace sluice::io::kafka
