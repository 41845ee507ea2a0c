#include "source/kafka_source_options.h"

#include <nlohmann/json.hpp>

#include "util/duration.h"
#include "util/numbers.h"
#include "util/strings.h"

namespace sluice::source::kafka {

using nlohmann::json;

namespace {

const std::vector<std::string> kKnown = {"subscribe",
                                         "subscribePattern",
                                         "assign",
                                         "startingOffsets",
                                         "endingOffsets",
                                         "startingOffsetsByTimestamp",
                                         "endingOffsetsByTimestamp",
                                         "startingTimestamp",
                                         "endingTimestamp",
                                         "startingOffsetsByTimestampStrategy",
                                         "maxOffsetsPerTrigger",
                                         "minOffsetsPerTrigger",
                                         "maxTriggerDelay",
                                         "failOnDataLoss",
                                         "includeHeaders",
                                         "groupIdPrefix",
                                         "kafkaConsumer.pollTimeoutMs"};
// Settings the source owns (as Spark's Kafka source refuses them).
const std::vector<std::string> kRefused = {"auto.offset.reset", "enable.auto.commit", "key.deserializer",
                                           "value.deserializer", "enable.partition.eof"};

Result<bool> ParseBool(const std::string& name, const std::string& v) {
  std::string l = util::ToLower(v);
  if (l == "true") return true;
  if (l == "false") return false;
  return Status::Invalid("Kafka source: option '", name, "' must be true or false, not '", v, "'");
}

Result<OffsetSpec> ParseOffsetSpec(const std::string& name, const std::string& text) {
  OffsetSpec s;
  std::string l = util::ToLower(util::Trim(text));
  if (l == "earliest") s.kind = OffsetSpec::Kind::kEarliest;
  else if (l == "latest") s.kind = OffsetSpec::Kind::kLatest;
  else {
    s.kind = OffsetSpec::Kind::kJson;
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return Status::Invalid("Kafka source: option '", name, "' must be earliest, latest or JSON like ",
                             R"({"topic":{"0":23,"1":-2}}, not ')", text, "'");
    }
    ARROW_ASSIGN_OR_RAISE(s.json, OffsetsFromJson(j, "option '" + name + "'"));
  }
  return s;
}

// The timestamp forms of startingOffsets/endingOffsets (`prefix` = "starting" or "ending"), which
// take precedence over it as in Spark: <prefix>Timestamp, then <prefix>OffsetsByTimestamp.
Result<std::optional<OffsetSpec>> ParseTimestampSpec(const io::kafka::ConnectorOptions& split, const std::string& prefix) {
  OffsetSpec s;
  if (auto v = split.Get(prefix + "Timestamp")) {
    const std::string name = prefix + "Timestamp";
    ARROW_ASSIGN_OR_RAISE(s.timestamp_ms, util::ParseInt64(*v, "option '" + name + "'"));
    if (s.timestamp_ms < 0) {
      return Status::Invalid("Kafka source: option '", name, "' must be milliseconds since the epoch (>= 0), not ", *v);
    }
    s.kind = OffsetSpec::Kind::kTimestamp;
    return s;
  }
  if (auto v = split.Get(prefix + "OffsetsByTimestamp")) {
    const std::string name = prefix + "OffsetsByTimestamp";
    json j = json::parse(*v, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      return Status::Invalid("Kafka source: option '", name, "' must be JSON like ", R"({"topic":{"0":1700000000000}})",
                             " (epoch milliseconds per partition), not '", *v, "'");
    }
    ARROW_ASSIGN_OR_RAISE(s.json, OffsetsFromJson(j, "option '" + name + "'"));
    for (const auto& [tp, ts] : s.json) {
      if (ts < 0) {
        return Status::Invalid("Kafka source: option '", name, "' gives ", tp.first, "-", tp.second, " the timestamp ",
                               ts, "; timestamps are milliseconds since the epoch (>= 0)");
      }
    }
    s.kind = OffsetSpec::Kind::kByTimestamp;
    return s;
  }
  return std::optional<OffsetSpec>();
}

}  // namespace

json OffsetsToJson(const PartitionOffsets& offsets) {
  json out = json::object();
  for (const auto& [tp, off] : offsets) out[tp.first][std::to_string(tp.second)] = off;
  return out;
}

Result<PartitionOffsets> OffsetsFromJson(const json& j, const std::string& what) {
  PartitionOffsets out;
  if (!j.is_object()) return Status::Invalid("Kafka offsets in ", what, " must be a JSON object, not ", j.dump());
  for (const auto& [topic, parts] : j.items()) {
    if (!parts.is_object()) {
      return Status::Invalid("Kafka offsets in ", what, ": topic '", topic, "' must map partitions to offsets");
    }
    for (const auto& [p, off] : parts.items()) {
      auto part = util::ParseInt32(p, "Kafka partition in " + what);
      if (!part.ok()) return part.status();
      if (!off.is_number_integer()) {
        return Status::Invalid("Kafka offsets in ", what, ": ", topic, "-", p, " must be an integer, not ", off.dump());
      }
      out[{topic, *part}] = off.get<int64_t>();
    }
  }
  return out;
}

Result<KafkaSourceOptions> ParseKafkaSourceOptions(const plan::Options& options, bool streaming) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [lower, kv] : options.entries()) entries.push_back(kv);
  ARROW_ASSIGN_OR_RAISE(auto split, io::kafka::SplitOptions(entries, kKnown, kRefused, "Kafka source"));
  KafkaSourceOptions o;
  o.kafka = split.kafka;
  o.bootstrap = io::kafka::BootstrapOf(o.kafka);

  int strategies = 0;
  if (auto v = split.Get("subscribe")) {
    ++strategies;
    std::string cur;
    for (char c : *v + ",") {
      if (c == ',') {
        if (!util::Trim(cur).empty()) o.subscribe.push_back(util::Trim(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (o.subscribe.empty()) return Status::Invalid("Kafka source: option 'subscribe' names no topic");
  }
  if (auto v = split.Get("subscribePattern")) {
    ++strategies;
    try {
      o.pattern = std::regex(*v, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      return Status::Invalid("Kafka source: option 'subscribePattern' = '", *v, "' is not a valid pattern: ", e.what());
    }
    o.pattern_text = *v;
  }
  if (auto v = split.Get("assign")) {
    ++strategies;
    json j = json::parse(*v, nullptr, false);
    bool ok = j.is_object() && !j.empty();
    for (const auto& [t, ps] : ok ? j.items() : json::object().items()) {
      if (!ps.is_array()) { ok = false; break; }
      for (const auto& p : ps) {
        if (!p.is_number_integer()) { ok = false; break; }
        o.assign[t].push_back(p.get<int32_t>());
      }
    }
    if (!ok) {
      return Status::Invalid("Kafka source: option 'assign' must be JSON like ", R"({"topicA":[0,1],"topicB":[2]})",
                             ", not '", *v, "'");
    }
  }
  if (strategies != 1) {
    return Status::Invalid("Kafka source needs exactly one of the options 'subscribe', 'subscribePattern', 'assign' (",
                           strategies, " given)");
  }
  o.starting.kind = streaming ? OffsetSpec::Kind::kLatest : OffsetSpec::Kind::kEarliest;
  if (auto v = split.Get("startingOffsets")) {
    ARROW_ASSIGN_OR_RAISE(o.starting, ParseOffsetSpec("startingOffsets", *v));
  }
  if (o.starting.kind == OffsetSpec::Kind::kJson) {
    for (const auto& [tp, off] : o.starting.json) {
      if (off == kLatest && !streaming) {
        return Status::Invalid("Kafka source: startingOffsets for ", tp.first, "-", tp.second,
                               " cannot be -1 (latest) in a batch read");
      }
    }
  }
  if (auto v = split.Get("endingOffsets")) {
    if (streaming) return Status::Invalid("Kafka source: option 'endingOffsets' is for batch reads (read()) only");
    ARROW_ASSIGN_OR_RAISE(o.ending, ParseOffsetSpec("endingOffsets", *v));
    if (o.ending.kind == OffsetSpec::Kind::kEarliest) {
      return Status::Invalid("Kafka source: endingOffsets cannot be 'earliest'");
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto starting_by_time, ParseTimestampSpec(split, "starting"));
  if (starting_by_time) o.starting = *starting_by_time;
  if (auto v = split.Get("startingOffsetsByTimestampStrategy")) {
    const std::string l = util::ToLower(util::Trim(*v));
    if (l != "error" && l != "latest") {
      return Status::Invalid("Kafka source: option 'startingOffsetsByTimestampStrategy' must be error or latest, not '",
                             *v, "'");
    }
    o.starting.no_match_is_latest = l == "latest";
  }
  ARROW_ASSIGN_OR_RAISE(auto ending_by_time, ParseTimestampSpec(split, "ending"));
  if (ending_by_time) {
    if (streaming) {
      return Status::Invalid("Kafka source: options 'endingTimestamp' and 'endingOffsetsByTimestamp' are for batch ",
                             "reads (read()) only");
    }
    o.ending = *ending_by_time;
    o.ending.no_match_is_latest = true;  // as Spark: an ending timestamp after every record means latest
  }
  auto positive = [&](const char* name) -> Result<std::optional<int64_t>> {
    auto v = split.Get(name);
    if (!v) return std::optional<int64_t>();
    ARROW_ASSIGN_OR_RAISE(int64_t n, util::ParseInt64(*v, std::string("option '") + name + "'"));
    if (n <= 0) return Status::Invalid("Kafka source: option '", name, "' must be positive, not ", n);
    return std::optional<int64_t>(n);
  };
  ARROW_ASSIGN_OR_RAISE(o.max_offsets_per_trigger, positive("maxOffsetsPerTrigger"));
  ARROW_ASSIGN_OR_RAISE(o.min_offsets_per_trigger, positive("minOffsetsPerTrigger"));
  if (o.min_offsets_per_trigger && o.max_offsets_per_trigger &&
      *o.min_offsets_per_trigger > *o.max_offsets_per_trigger) {
    return Status::Invalid("Kafka source: option 'minOffsetsPerTrigger' (", *o.min_offsets_per_trigger,
                           ") is higher than 'maxOffsetsPerTrigger' (", *o.max_offsets_per_trigger,
                           "); lower the minimum or raise the maximum");
  }
  if (auto v = split.Get("maxTriggerDelay")) {
    ARROW_ASSIGN_OR_RAISE(o.max_trigger_delay_ms, util::ParseDurationMs("option 'maxTriggerDelay'", *v));
    if (o.max_trigger_delay_ms < 0) {
      return Status::Invalid("Kafka source: option 'maxTriggerDelay' must not be negative, not '", *v, "'");
    }
  }
  if (auto v = split.Get("failOnDataLoss")) {
    ARROW_ASSIGN_OR_RAISE(o.fail_on_data_loss, ParseBool("failOnDataLoss", *v));
  }
  if (auto v = split.Get("includeHeaders")) {
    ARROW_ASSIGN_OR_RAISE(o.include_headers, ParseBool("includeHeaders", *v));
  }
  if (auto v = split.Get("groupIdPrefix")) o.group_id_prefix = *v;
  if (auto v = split.Get("kafkaConsumer.pollTimeoutMs")) {
    ARROW_ASSIGN_OR_RAISE(o.poll_timeout_ms, util::ParseInt32(*v, "option 'kafkaConsumer.pollTimeoutMs'"));
  }
  return o;
}

Status ValidateKafkaSourceSpec(const plan::SourceSpec& spec) {
  return ParseKafkaSourceOptions(spec.options, spec.streaming).status();
}

}  // namespace sluice::source::kafka
