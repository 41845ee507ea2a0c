#include "sink/kafka_sink.h"

#include <arrow/api.h>
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include <nlohmann/json.hpp>

#include "io/kafka_client.h"
#include "util/log.h"
#include "util/numbers.h"
#include "util/strings.h"

namespace sluice::sink {
namespace {

using io::kafka::ConnectorOptions;
using nlohmann::json;

const char* const kWhat = "Kafka sink";

struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
};
using ListPtr = std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter>;

Result<ConnectorOptions> SinkOptions(const SinkSpec& spec) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [lower, kv] : spec.options.entries()) {
    if (lower != "checkpointlocation") entries.push_back(kv);
  }
  ARROW_ASSIGN_OR_RAISE(auto o, io::kafka::SplitOptions(entries, {"topic", "delivery.guarantee"},
                                                        {"transactional.id", "key.serializer", "value.serializer"},
                                                        kWhat));
  auto g = o.Get("delivery.guarantee");
  if (g && *g != "exactly-once" && *g != "at-least-once") {
    return Status::Invalid("Kafka sink: option 'delivery.guarantee' must be exactly-once or at-least-once, not '", *g,
                           "'");
  }
  return o;
}

Status ErrorStatus(rd_kafka_error_t* error, const std::string& doing, const std::string& bootstrap) {
  std::string msg = rd_kafka_error_string(error);
  rd_kafka_error_destroy(error);
  return Status::IOError("Kafka sink: ", doing, " failed (brokers '", bootstrap, "'): ", msg);
}

// A column's bytes at `row` (binary or string), or null.
std::optional<std::string_view> Bytes(const arrow::Array* a, int64_t row) {
  if (!a || a->IsNull(row)) return std::nullopt;
  if (a->type_id() == arrow::Type::STRING) return static_cast<const arrow::StringArray*>(a)->GetView(row);
  return static_cast<const arrow::BinaryArray*>(a)->GetView(row);
}

Status CheckColumns(const arrow::Schema& schema, bool has_topic_option) {
  auto bytes_ok = [](const arrow::DataType& t) { return t.id() == arrow::Type::STRING || t.id() == arrow::Type::BINARY; };
  auto value = schema.GetFieldByName("value");
  if (!value) return Status::Invalid("Kafka sink: the query has no 'value' column (columns: ", schema.ToString(), ")");
  if (!bytes_ok(*value->type())) {
    return Status::Invalid("Kafka sink: column 'value' must be STRING or BINARY, not ", value->type()->ToString());
  }
  if (auto key = schema.GetFieldByName("key"); key && !bytes_ok(*key->type())) {
    return Status::Invalid("Kafka sink: column 'key' must be STRING or BINARY, not ", key->type()->ToString());
  }
  auto topic = schema.GetFieldByName("topic");
  if (!topic && !has_topic_option) {
    return Status::Invalid("Kafka sink: no topic: set option 'topic' or give the rows a 'topic' column");
  }
  if (topic && topic->type()->id() != arrow::Type::STRING) {
    return Status::Invalid("Kafka sink: column 'topic' must be STRING, not ", topic->type()->ToString());
  }
  if (auto p = schema.GetFieldByName("partition"); p && p->type()->id() != arrow::Type::INT32) {
    return Status::Invalid("Kafka sink: column 'partition' must be INT, not ", p->type()->ToString());
  }
  return Status::OK();
}

class KafkaSink final : public Sink {
 public:
  std::string Description() const override { return "KafkaSink[topic=" + (topic_.empty() ? "<per row>" : topic_) + "]"; }
  bool idempotent() const override { return exactly_once_; }

  static Result<std::unique_ptr<KafkaSink>> Open(const SinkSpec& spec, const SinkContext& ctx) {
    ARROW_ASSIGN_OR_RAISE(auto options, SinkOptions(spec));
    std::unique_ptr<KafkaSink> s(new KafkaSink);
    s->bootstrap_ = io::kafka::BootstrapOf(options.kafka);
    s->topic_ = options.Get("topic").value_or("");
    s->exactly_once_ = options.Get("delivery.guarantee").value_or("exactly-once") == "exactly-once";
    s->group_ = "sluice-sink-" + ctx.query_id;
    s->timeout_ms_ = io::kafka::RetryTimeoutMs(options.kafka);
    io::kafka::Settings settings = options.kafka;
    settings.emplace("enable.idempotence", "true");
    if (s->exactly_once_) {
      const std::string txn_timeout = settings.count("transaction.timeout.ms") ? settings["transaction.timeout.ms"] : "60000";
      auto txn_ms = util::ParseInt64(txn_timeout, "option 'kafka.transaction.timeout.ms'");
      if (!txn_ms.ok()) return txn_ms.status();
      if (ctx.trigger_interval_ms > 0 && *txn_ms < ctx.trigger_interval_ms) {
        return Status::Invalid("Kafka sink: kafka.transaction.timeout.ms = ", *txn_ms,
                               " is shorter than the trigger interval (", ctx.trigger_interval_ms,
                               " ms); raise kafka.transaction.timeout.ms or shorten the trigger");
      }
    }
    if (s->exactly_once_) settings["transactional.id"] = "sluice-" + ctx.query_id;
    ARROW_ASSIGN_OR_RAISE(s->producer_,
                          io::kafka::MakeClient(io::kafka::ClientType::kProducer, settings, kWhat, &s->report_));
    // Reachability and the option topic's existence, with a bounded retry.
    ARROW_ASSIGN_OR_RAISE(auto topics, io::kafka::ListTopics(s->producer_.get(), s->bootstrap_, s->timeout_ms_));
    if (!s->topic_.empty() && !topics.count(s->topic_)) {
      return Status::Invalid("Kafka sink: topic '", s->topic_, "' (option 'topic') does not exist on '", s->bootstrap_,
                             "'; create it first");
    }
    if (s->exactly_once_) {
      // Fences an older producer with this id and aborts the transaction it left open.
      if (rd_kafka_error_t* e = rd_kafka_init_transactions(s->producer_.get(), s->timeout_ms_)) {
        return ErrorStatus(e, "initialising transactions (transactional.id 'sluice-" + ctx.query_id + "')",
                           s->bootstrap_);
      }
      ARROW_ASSIGN_OR_RAISE(s->last_batch_, s->LastCommittedBatch(settings, topics));
    }
    return s;
  }

  Status AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) override {
    if (exactly_once_ && batch_id <= last_batch_) {
      util::LogInfo("Kafka sink: batch ", batch_id, " is already committed to Kafka; skipped");
      return Status::OK();
    }
    ARROW_RETURN_NOT_OK(CheckColumns(*rows->schema(), !topic_.empty()));
    ARROW_ASSIGN_OR_RAISE(auto table, rows->CombineChunks());
    if (exactly_once_) {
      if (rd_kafka_error_t* e = rd_kafka_begin_transaction(producer_.get())) {
        return ErrorStatus(e, "beginning a transaction", bootstrap_);
      }
    }
    report_.failed = 0;
    Status st = Produce(*table);
    if (st.ok() && exactly_once_) st = CommitTransaction(batch_id, table);
    if (!st.ok() && exactly_once_) {
      if (rd_kafka_error_t* e = rd_kafka_abort_transaction(producer_.get(), timeout_ms_)) rd_kafka_error_destroy(e);
    }
    if (!st.ok()) return st;
    if (!exactly_once_) {
      rd_kafka_resp_err_t err = rd_kafka_flush(producer_.get(), timeout_ms_);
      if (err) return Status::IOError("Kafka sink: flushing batch ", batch_id, " to '", bootstrap_, "': ", rd_kafka_err2str(err));
      ARROW_RETURN_NOT_OK(DeliveryFailures(batch_id));
    }
    last_batch_ = batch_id;
    return Status::OK();
  }

 private:
  Status DeliveryFailures(int64_t batch_id) {
    if (report_.failed == 0) return Status::OK();
    std::lock_guard<std::mutex> lock(report_.mu);
    return Status::IOError("Kafka sink: ", report_.failed.load(), " record(s) of batch ", batch_id,
                           " were not delivered to '", bootstrap_, "': ", report_.first_error);
  }

  Status Produce(const arrow::Table& table) {
    auto col = [&](const char* name) -> const arrow::Array* {
      auto c = table.GetColumnByName(name);
      return c && c->num_chunks() > 0 ? c->chunk(0).get() : nullptr;
    };
    const arrow::Array* value = col("value");
    const arrow::Array* key = col("key");
    const auto* topic = static_cast<const arrow::StringArray*>(col("topic"));
    const auto* partition = static_cast<const arrow::Int32Array*>(col("partition"));
    const auto* headers = static_cast<const arrow::ListArray*>(col("headers"));
    for (int64_t i = 0; i < table.num_rows(); ++i) {
      std::string t = topic && !topic->IsNull(i) ? std::string(topic->GetView(i)) : topic_;
      if (t.empty()) return Status::Invalid("Kafka sink: row ", i, " has a null topic and option 'topic' is not set");
      const int32_t part = partition && !partition->IsNull(i) ? partition->Value(i) : RD_KAFKA_PARTITION_UA;
      auto v = Bytes(value, i);
      auto k = Bytes(key, i);
      rd_kafka_headers_t* hdrs = nullptr;
      if (headers && !headers->IsNull(i)) {
        const auto& st = static_cast<const arrow::StructArray&>(*headers->values());
        hdrs = rd_kafka_headers_new(8);
        for (int64_t j = headers->value_offset(i); j < headers->value_offset(i + 1); ++j) {
          auto hk = Bytes(st.field(0).get(), j);
          auto hv = Bytes(st.field(1).get(), j);
          rd_kafka_header_add(hdrs, hk ? hk->data() : "", hk ? static_cast<ssize_t>(hk->size()) : 0,
                              hv ? hv->data() : nullptr, hv ? static_cast<ssize_t>(hv->size()) : 0);
        }
      }
      void* vptr = v ? const_cast<char*>(v->data()) : nullptr;
      const size_t vlen = v ? v->size() : 0;
      const void* kptr = k ? k->data() : nullptr;
      const size_t klen = k ? k->size() : 0;
      while (true) {
        rd_kafka_resp_err_t err = rd_kafka_producev(
            producer_.get(), RD_KAFKA_V_TOPIC(t.c_str()), RD_KAFKA_V_PARTITION(part),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_VALUE(vptr, vlen), RD_KAFKA_V_KEY(kptr, klen),
            RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_END);
        if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
          rd_kafka_poll(producer_.get(), 100);
          continue;
        }
        if (err) {
          if (hdrs) rd_kafka_headers_destroy(hdrs);
          return Status::IOError("Kafka sink: producing row ", i, " to topic '", t, "': ", rd_kafka_err2str(err));
        }
        break;  // the producer owns hdrs now
      }
      rd_kafka_poll(producer_.get(), 0);
    }
    return Status::OK();
  }

  // The batch id travels as the metadata of an offset committed for the sink's group, on
  // partition 0 of the first topic the batch wrote.
  Status CommitTransaction(int64_t batch_id, const std::shared_ptr<arrow::Table>& table) {
    std::string marker = topic_;
    if (auto c = table->GetColumnByName("topic"); c && c->length() > 0 && !c->chunk(0)->IsNull(0)) {
      marker = std::string(static_cast<const arrow::StringArray&>(*c->chunk(0)).GetView(0));
    }
    if (marker.empty()) marker = marker_topic_;
    if (marker.empty()) {
      // An empty first batch without a topic option: nothing to record it against, nothing to redo.
      rd_kafka_error_t* error = rd_kafka_commit_transaction(producer_.get(), timeout_ms_);
      return error ? ErrorStatus(error, "committing an empty transaction", bootstrap_) : Status::OK();
    }
    ListPtr offsets(rd_kafka_topic_partition_list_new(1));
    auto* e = rd_kafka_topic_partition_list_add(offsets.get(), marker.c_str(), 0);
    e->offset = batch_id + 1;
    const std::string metadata = json{{"sluiceBatchId", batch_id}}.dump();
    e->metadata = strdup(metadata.c_str());
    e->metadata_size = metadata.size();
    rd_kafka_consumer_group_metadata_t* cgmd = rd_kafka_consumer_group_metadata_new(group_.c_str());
    rd_kafka_error_t* error = rd_kafka_send_offsets_to_transaction(producer_.get(), offsets.get(), cgmd, timeout_ms_);
    rd_kafka_consumer_group_metadata_destroy(cgmd);
    if (error) return ErrorStatus(error, "recording batch " + std::to_string(batch_id) + " in the transaction", bootstrap_);
    if ((error = rd_kafka_commit_transaction(producer_.get(), timeout_ms_))) {
      return ErrorStatus(error, "committing the transaction of batch " + std::to_string(batch_id), bootstrap_);
    }
    marker_topic_ = marker;
    return Status::OK();
  }

  // The highest batch id committed by this query's transactions (-1 when none): read with a
  // read_committed consumer of the sink's group, over partition 0 of every topic.
  Result<int64_t> LastCommittedBatch(const io::kafka::Settings& producer_settings,
                                     const std::map<std::string, std::vector<int32_t>>& topics) {
    io::kafka::Settings settings;
    for (const auto& [k, v] : producer_settings) {
      if (k == "bootstrap.servers" || k.rfind("security.", 0) == 0 || k.rfind("sasl.", 0) == 0 ||
          k.rfind("ssl.", 0) == 0) {
        settings[k] = v;
      }
    }
    settings["group.id"] = group_;
    settings["isolation.level"] = "read_committed";
    settings["enable.auto.commit"] = "false";
    ARROW_ASSIGN_OR_RAISE(auto consumer, io::kafka::MakeClient(io::kafka::ClientType::kConsumer, settings, kWhat));
    ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(topics.size())));
    for (const auto& [t, parts] : topics) rd_kafka_topic_partition_list_add(list.get(), t.c_str(), 0);
    rd_kafka_resp_err_t err = rd_kafka_committed(consumer.get(), list.get(), timeout_ms_);
    if (err) {
      return Status::IOError("Kafka sink: reading the committed batches of group '", group_, "' from '", bootstrap_,
                             "': ", rd_kafka_err2str(err));
    }
    int64_t last = -1;
    for (int i = 0; i < list->cnt; ++i) {
      const auto& e = list->elems[i];
      if (e.offset < 0 || !e.metadata || e.metadata_size == 0) continue;
      json j = json::parse(std::string(static_cast<const char*>(e.metadata), e.metadata_size), nullptr, false);
      if (j.is_object() && j.contains("sluiceBatchId") && j["sluiceBatchId"].is_number_integer()) {
        last = std::max(last, j["sluiceBatchId"].get<int64_t>());
        marker_topic_ = e.topic;
      }
    }
    return last;
  }

  std::string bootstrap_, topic_, group_, marker_topic_;
  bool exactly_once_ = true;
  int timeout_ms_ = 60000;
  int64_t last_batch_ = -1;
  io::kafka::DeliveryReport report_;
  io::kafka::ClientPtr producer_;  // declared after report_: destroyed first
};

}  // namespace

Status ValidateKafkaSinkSpec(const SinkSpec& spec) { return SinkOptions(spec).status(); }

Result<std::unique_ptr<Sink>> MakeKafkaSink(const SinkSpec& spec, const SinkContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(auto sink, KafkaSink::Open(spec, ctx));
  return sink;
}

SinkKind KafkaSinkKind() {
  SinkKind k;
  k.name = "kafka";
  k.validate = ValidateKafkaSinkSpec;
  k.make = MakeKafkaSink;
  k.describe = [](const SinkSpec& spec) {
    return "KafkaSink[topic=" + spec.options.GetOr("topic", "<per row>") + "]";
  };
  return k;
}

}  // namespace sluice::sink
