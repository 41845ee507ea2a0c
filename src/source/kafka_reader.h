// Reads the records of exact offset ranges from Kafka into Arrow rows (the Kafka source's
// getBatch), and the offset look-ups the source needs. One consumer per reader, never
// subscribed: partitions are assigned at the range's start offsets.
#pragma once

#include <arrow/table.h>

#include <memory>

#include "io/kafka_client.h"
#include "source/kafka_source_options.h"

namespace sluice::source::kafka {

struct ReadRange {
  int64_t from = 0;   // first offset to read
  int64_t until = 0;  // next offset after the range
};

class KafkaReader {
 public:
  /// `group_id` is the consumer group the committed offsets are reported to.
  static Result<std::unique_ptr<KafkaReader>> Open(const KafkaSourceOptions& options, const std::string& group_id);

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
  explicit KafkaReader(KafkaSourceOptions options) : options_(std::move(options)) {}
  KafkaSourceOptions options_;
  io::kafka::ClientPtr consumer_;
};

}  // namespace sluice::source::kafka
