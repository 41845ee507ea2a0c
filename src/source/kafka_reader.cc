#include "source/kafka_reader.h"

#include <arrow/api.h>
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <regex>
#include <set>

#include "source/kafka_source.h"
#include "util/log.h"

namespace sluice::source::kafka {
namespace {

struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const { rd_kafka_topic_partition_list_destroy(l); }
};
using ListPtr = std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter>;

// Column builders for the Kafka schema.
struct RowBuilders {
  explicit RowBuilders(bool headers)
      : schema(KafkaSourceSchema(headers)),
        ts(schema->GetFieldByName("timestamp")->type(), arrow::default_memory_pool()) {
    if (headers) {
      auto header_type = schema->GetFieldByName("headers")->type();
      auto st = std::static_pointer_cast<arrow::StructType>(
          std::static_pointer_cast<arrow::ListType>(header_type)->value_type());
      header_key = std::make_shared<arrow::StringBuilder>();
      header_value = std::make_shared<arrow::BinaryBuilder>();
      header_struct = std::make_shared<arrow::StructBuilder>(
          st, arrow::default_memory_pool(), std::vector<std::shared_ptr<arrow::ArrayBuilder>>{header_key, header_value});
      header_list = std::make_shared<arrow::ListBuilder>(arrow::default_memory_pool(), header_struct, header_type);
    }
  }

  Status Append(const rd_kafka_message_t* m) {
    if (m->key) ARROW_RETURN_NOT_OK(key.Append(static_cast<const uint8_t*>(m->key), m->key_len));
    else ARROW_RETURN_NOT_OK(key.AppendNull());
    if (m->payload) ARROW_RETURN_NOT_OK(value.Append(static_cast<const uint8_t*>(m->payload), m->len));
    else ARROW_RETURN_NOT_OK(value.AppendNull());
    ARROW_RETURN_NOT_OK(topic.Append(rd_kafka_topic_name(m->rkt)));
    ARROW_RETURN_NOT_OK(partition.Append(m->partition));
    ARROW_RETURN_NOT_OK(offset.Append(m->offset));
    rd_kafka_timestamp_type_t tstype;
    int64_t ms = rd_kafka_message_timestamp(m, &tstype);
    ARROW_RETURN_NOT_OK(ts.Append(ms * 1000));
    ARROW_RETURN_NOT_OK(ts_type.Append(tstype == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? 1 : 0));
    if (header_list) {
      ARROW_RETURN_NOT_OK(header_list->Append());
      rd_kafka_headers_t* hdrs = nullptr;
      if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* name;
        const void* val;
        size_t size;
        for (size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
          ARROW_RETURN_NOT_OK(header_struct->Append());
          ARROW_RETURN_NOT_OK(header_key->Append(name));
          if (val) ARROW_RETURN_NOT_OK(header_value->Append(static_cast<const uint8_t*>(val), size));
          else ARROW_RETURN_NOT_OK(header_value->AppendNull());
        }
      }
    }
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::Table>> Finish() {
    std::vector<std::shared_ptr<arrow::Array>> cols(header_list ? 8 : 7);
    ARROW_RETURN_NOT_OK(key.Finish(&cols[0]));
    ARROW_RETURN_NOT_OK(value.Finish(&cols[1]));
    ARROW_RETURN_NOT_OK(topic.Finish(&cols[2]));
    ARROW_RETURN_NOT_OK(partition.Finish(&cols[3]));
    ARROW_RETURN_NOT_OK(offset.Finish(&cols[4]));
    ARROW_RETURN_NOT_OK(ts.Finish(&cols[5]));
    ARROW_RETURN_NOT_OK(ts_type.Finish(&cols[6]));
    if (header_list) ARROW_RETURN_NOT_OK(header_list->Finish(&cols[7]));
    return arrow::Table::Make(schema, cols);
  }

  std::shared_ptr<arrow::Schema> schema;
  arrow::BinaryBuilder key, value;
  arrow::StringBuilder topic;
  arrow::Int32Builder partition;
  arrow::Int64Builder offset;
  arrow::TimestampBuilder ts;
  arrow::Int32Builder ts_type;
  std::shared_ptr<arrow::StringBuilder> header_key;
  std::shared_ptr<arrow::BinaryBuilder> header_value;
  std::shared_ptr<arrow::StructBuilder> header_struct;
  std::shared_ptr<arrow::ListBuilder> header_list;
};

}  // namespace

Result<std::unique_ptr<KafkaReader>> KafkaReader::Open(const KafkaSourceOptions& options, const std::string& group_id) {
  io::kafka::Settings settings = options.kafka;
  if (!settings.count("group.id")) settings["group.id"] = group_id;
  settings["enable.auto.commit"] = "false";
  settings["enable.auto.offset.store"] = "false";
  settings["enable.partition.eof"] = "true";
  // Spark's consumer reads uncommitted records unless told otherwise (librdkafka's default differs).
  if (!settings.count("isolation.level")) settings["isolation.level"] = "read_uncommitted";
  // A batch knows its range, and prefetching past it reaches the end of the log, where the broker
  // holds a fetch for fetch.wait.max.ms (librdkafka's default 500 ms): the next batch's fetch
  // would wait behind it. A short hold keeps small batches fast.
  if (!settings.count("fetch.wait.max.ms")) settings["fetch.wait.max.ms"] = "10";
  std::unique_ptr<KafkaReader> r(new KafkaReader(options));
  ARROW_ASSIGN_OR_RAISE(r->consumer_, io::kafka::MakeClient(io::kafka::ClientType::kConsumer, settings, "Kafka source"));
  // The offset look-ups go through a client of their own: the reading consumer stays assigned
  // and fetching between reads, and a look-up on its connection would wait behind its fetches
  // (each held up to fetch.wait.max.ms at the end of the log).
  ARROW_ASSIGN_OR_RAISE(r->lookup_, io::kafka::MakeClient(io::kafka::ClientType::kConsumer, settings, "Kafka source"));
  // The reading consumer connects and learns the cluster's topics now: its first assignment
  // would otherwise wait for both (about a second). A failure here is left to the reads to report.
  io::kafka::LoadMetadata(r->consumer_.get(), "", std::min(5000, io::kafka::RetryTimeoutMs(settings)));
  return r;
}

Result<std::vector<TopicPartition>> KafkaReader::Partitions() {
  std::vector<TopicPartition> out;
  if (!options_.assign.empty()) {
    for (const auto& [t, ps] : options_.assign) {
      for (int32_t p : ps) out.emplace_back(t, p);
    }
    return out;
  }
  ARROW_ASSIGN_OR_RAISE(auto topics, io::kafka::ListTopics(lookup_.get(), options_.bootstrap,
                                                           io::kafka::RetryTimeoutMs(options_.kafka)));
  if (options_.pattern) {
    for (const auto& [t, ps] : topics) {
      if (!std::regex_match(t, *options_.pattern)) continue;
      for (int32_t p : ps) out.emplace_back(t, p);
    }
    return out;
  }
  for (const auto& t : options_.subscribe) {
    auto it = topics.find(t);
    if (it == topics.end()) {
      return Status::Invalid("Kafka source: topic '", t, "' (option 'subscribe') does not exist on '",
                             options_.bootstrap, "'");
    }
    for (int32_t p : it->second) out.emplace_back(t, p);
  }
  return out;
}

Result<io::kafka::Watermarks> KafkaReader::Watermarks(const TopicPartition& tp) {
  return io::kafka::QueryWatermarks(lookup_.get(), tp.first, tp.second, options_.bootstrap, io::kafka::RetryTimeoutMs(options_.kafka));
}

Result<std::optional<int64_t>> KafkaReader::OffsetForTime(const TopicPartition& tp, int64_t timestamp_ms) {
  return io::kafka::QueryOffsetForTime(lookup_.get(), tp.first, tp.second, timestamp_ms, options_.bootstrap,
                                       io::kafka::RetryTimeoutMs(options_.kafka));
}

KafkaReader::~KafkaReader() { Release(); }

void KafkaReader::Release() {
  for (auto& [tp, h] : held_) {
    for (auto* m : h.early) rd_kafka_message_destroy(m);
  }
  if (!held_.empty()) rd_kafka_assign(consumer_.get(), nullptr);
  held_.clear();
  early_bytes_ = 0;
}

Status KafkaReader::Prepare(const std::map<TopicPartition, ReadRange>& ranges) {
  bool reads_on = true;
  for (const auto& [tp, r] : ranges) {
    auto it = held_.find(tp);
    if (it == held_.end() || it->second.dropped || it->second.next != r.from) reads_on = false;
  }
  ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(ranges.size())));
  for (const auto& [tp, r] : ranges) {
    rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second)->offset = r.from;
  }
  if (!reads_on) {
    // A first read, a redone batch or a new partition: start over at the ranges' offsets.
    Release();
    rd_kafka_resp_err_t err = rd_kafka_assign(consumer_.get(), list.get());
    if (err) return Status::IOError("Kafka source: cannot assign partitions: ", rd_kafka_err2str(err));
  }
  for (const auto& [tp, r] : ranges) held_[tp].next = r.until;
  return Status::OK();
}

Result<std::shared_ptr<arrow::Table>> KafkaReader::Read(const std::map<TopicPartition, ReadRange>& ranges) {
  RowBuilders rows(options_.include_headers);
  std::map<TopicPartition, ReadRange> pending;
  for (const auto& [tp, r] : ranges) {
    if (r.from < r.until) pending[tp] = r;
  }
  if (pending.empty()) return rows.Finish();
  ARROW_RETURN_NOT_OK(Prepare(pending));
  // Records arrive per partition in offset order; they are kept per partition and appended in
  // partition order at the end, so the rows do not depend on the interleaving of fetches.
  std::map<TopicPartition, std::vector<rd_kafka_message_t*>> got;
  // Takes a record of an assigned partition: into the range, kept for a later one, or dropped.
  auto take = [&](const TopicPartition& tp, rd_kafka_message_t* m) {
    auto it = pending.find(tp);
    if (it != pending.end() && m->offset >= it->second.from && m->offset < it->second.until) {
      got[tp].push_back(m);
      if (m->offset + 1 >= it->second.until) pending.erase(it);
      return;
    }
    auto h = held_.find(tp);
    if (h != held_.end() && !h->second.dropped && m->offset >= h->second.next) {
      if (it != pending.end()) pending.erase(it);
      // The consumer fetches on while other partitions' ranges are read: what it delivers past
      // a range is kept for the next read, up to a bound; beyond it the partition starts over.
      size_t bytes = m->len + m->key_len;
      if (early_bytes_ + bytes <= kMaxEarlyBytes) {
        early_bytes_ += bytes;
        h->second.early.push_back(m);
        return;
      }
      h->second.dropped = true;
      for (auto* e : h->second.early) {
        early_bytes_ -= e->len + e->key_len;
        rd_kafka_message_destroy(e);
      }
      h->second.early.clear();
    }
    rd_kafka_message_destroy(m);
  };
  std::vector<TopicPartition> reading;
  for (const auto& [tp, r] : pending) reading.push_back(tp);
  for (const auto& tp : reading) {  // the records the last read polled past its ranges first
    std::deque<rd_kafka_message_t*> early;
    early.swap(held_[tp].early);
    for (auto* m : early) {
      early_bytes_ -= m->len + m->key_len;
      take(tp, m);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.poll_timeout_ms);
  Status failure;
  while (!pending.empty() && failure.ok()) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer_.get(), 100);
    if (m) {
      TopicPartition tp{m->rkt ? rd_kafka_topic_name(m->rkt) : "", m->partition};
      auto it = pending.find(tp);
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        if (it != pending.end() && m->offset >= it->second.until) pending.erase(it);
        rd_kafka_message_destroy(m);
      } else if (m->err) {
        // Fatal for the range (e.g. offsets out of range after retention); transport errors retry.
        if (m->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE || m->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
            m->err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION) {
          failure = Status::IOError("Kafka source: reading ", tp.first, "-", tp.second, ": ",
                                    rd_kafka_message_errstr(m));
        } else {
          util::LogDebug("Kafka source: ", rd_kafka_message_errstr(m));
        }
        rd_kafka_message_destroy(m);
      } else {
        take(tp, m);
      }
      continue;
    }
    // Idle: a range may end in records this consumer skips (transaction markers, aborted data).
    ListPtr pos(rd_kafka_topic_partition_list_new(static_cast<int>(pending.size())));
    for (const auto& [tp, r] : pending) rd_kafka_topic_partition_list_add(pos.get(), tp.first.c_str(), tp.second);
    if (rd_kafka_position(consumer_.get(), pos.get()) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      for (int i = 0; i < pos->cnt; ++i) {
        auto it = pending.find({pos->elems[i].topic, pos->elems[i].partition});
        if (it != pending.end() && pos->elems[i].offset >= it->second.until) pending.erase(it);
      }
    }
    if (!pending.empty() && std::chrono::steady_clock::now() > deadline) {
      const auto& [tp, r] = *pending.begin();
      failure = Status::IOError("Kafka source: could not read offsets ", r.from, " to ", r.until, " of ", tp.first, "-",
                                tp.second, " from '", options_.bootstrap, "' within kafkaConsumer.pollTimeoutMs = ",
                                options_.poll_timeout_ms, " ms");
    }
  }
  for (const auto& [tp, ms] : got) {
    for (const auto* m : ms) {
      if (failure.ok()) failure = rows.Append(m);
    }
  }
  for (auto& [tp, ms] : got) {
    for (auto* m : ms) rd_kafka_message_destroy(m);
  }
  if (!failure.ok()) Release();  // the next read starts over at its offsets
  ARROW_RETURN_NOT_OK(failure);
  return rows.Finish();
}

void KafkaReader::CommitToGroup(const PartitionOffsets& offsets) {
  if (offsets.empty()) return;
  ListPtr list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, off] : offsets) {
    rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second)->offset = off;
  }
  rd_kafka_resp_err_t err = rd_kafka_commit(consumer_.get(), list.get(), /*async=*/1);
  if (err) util::LogWarning("Kafka source: could not report offsets to the consumer group: ", rd_kafka_err2str(err));
}

}  // namespace sluice::source::kafka
