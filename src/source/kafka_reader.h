// Reads the records of exact offset ranges from Kafka into Arrow rows (the Kafka source's
// getBatch), and the offset look-ups the source needs. One consumer per reader, never
// subscribed: partitions are assigned at the range's start offsets, and stay assigned between
// reads, so a range that starts where the last one ended reads on from what the consumer has
// already fetched instead of fetching it again.
#pragma once

#include <arrow/table.h>

#include <deque>
#include <memory>

#include "io/kafka_client.h"
#include "source/kafka_source_options.h"

struct rd_kafka_message_s;  // librdkafka's record (rd_kafka_message_t)

namespace sluice::source::kafka {

struct ReadRange {
  int64_t from = 0;   // first offset to read
  int64_t until = 0;  // next offset after the range
};

class KafkaReader {
 public:
  /// `group_id` is the consumer group the committed offsets are reported to.
  static Result<std::unique_ptr<KafkaReader>> Open(const KafkaSourceOptions& options, const std::string& group_id);
  ~KafkaReader();

  /// The partitions the options name now (subscribe: the topics' partitions; pattern: those
  /// of matching topics; assign: as given).
  Result<std::vector<TopicPartition>> Partitions();
  Result<io::kafka::Watermarks> Watermarks(const TopicPartition& tp);
  /// The first offset at or after `timestamp_ms` (nullopt: every record is older).
  Result<std::optional<int64_t>> OffsetForTime(const TopicPartition& tp, int64_t timestamp_ms);
  /// Rows of every record in the ranges, ordered by partition then offset.
  Result<std::shared_ptr<arrow::Table>> Read(const std::map<TopicPartition, ReadRange>& ranges);
  /// Reports `offsets` to the consumer group (asynchronously; failures are logged).
  void CommitToGroup(const PartitionOffsets& offsets);

 private:
  // An assigned partition between reads.
  struct Held {
    int64_t next = 0;  // where the last range ended: a range starting here reads on
    std::deque<rd_kafka_message_s*> early;  // records polled past the last range, in offset order
    bool dropped = false;  // records past the range were dropped: the next read starts over
  };
  static constexpr size_t kMaxEarlyBytes = 64 << 20;  // keys + values kept in `early`

  explicit KafkaReader(KafkaSourceOptions options) : options_(std::move(options)) {}
  /// Unassigns every partition and frees the records held for later ranges.
  void Release();
  /// Makes the consumer read `ranges` next: reads on where every range starts at its
  /// partition's `next`, assigns them all at their start offsets otherwise.
  Status Prepare(const std::map<TopicPartition, ReadRange>& ranges);

  KafkaSourceOptions options_;
  io::kafka::ClientPtr consumer_;  // reads the ranges
  io::kafka::ClientPtr lookup_;    // partitions, watermarks, offsets for times
  std::map<TopicPartition, Held> held_;
  size_t early_bytes_ = 0;
};

}  // namespace sluice::source::kafka
