#include "source/kafka_source.h"

#include <arrow/api.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>

#include "checkpoint/metadata_log.h"
#include "io/uuid.h"
#include "source/kafka_reader.h"
#include "util/json_guard.h"
#include "util/log.h"

namespace sluice::source {

using nlohmann::json;
using namespace kafka;  // NOLINT: this file is the Kafka source

std::shared_ptr<arrow::Schema> KafkaSourceSchema(bool include_headers) {
  arrow::FieldVector fields = {arrow::field("key", arrow::binary()),
                               arrow::field("value", arrow::binary()),
                               arrow::field("topic", arrow::utf8()),
                               arrow::field("partition", arrow::int32()),
                               arrow::field("offset", arrow::int64()),
                               arrow::field("timestamp", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                               arrow::field("timestampType", arrow::int32())};
  if (include_headers) {
    auto header = arrow::struct_({arrow::field("key", arrow::utf8()), arrow::field("value", arrow::binary())});
    fields.push_back(arrow::field("headers", arrow::list(arrow::field("element", header))));
  }
  return arrow::schema(fields);
}

namespace {

// Resolves an OffsetSpec for `parts`: earliest/latest per partition from the broker; JSON
// values as given (-2/-1 resolved); timestamps through the broker's offsetsForTimes. A
// partition missing from the JSON is an error.
Result<PartitionOffsets> Resolve(const OffsetSpec& spec, const std::vector<TopicPartition>& parts, KafkaReader* reader,
                                 const std::string& option) {
  const bool per_partition = spec.kind == OffsetSpec::Kind::kJson || spec.kind == OffsetSpec::Kind::kByTimestamp;
  const bool by_time = spec.kind == OffsetSpec::Kind::kByTimestamp || spec.kind == OffsetSpec::Kind::kTimestamp;
  // `option` is "startingOffsets" or "endingOffsets"; the timestamp forms have their own names.
  const std::string prefix = option.substr(0, option.size() - std::string("Offsets").size());
  const std::string name = spec.kind == OffsetSpec::Kind::kByTimestamp ? option + "ByTimestamp"
                           : spec.kind == OffsetSpec::Kind::kTimestamp ? prefix + "Timestamp"
                                                                       : option;
  PartitionOffsets out;
  for (const auto& tp : parts) {
    int64_t want = spec.kind == OffsetSpec::Kind::kEarliest ? kEarliest : kLatest;
    if (per_partition) {
      auto it = spec.json.find(tp);
      if (it == spec.json.end()) {
        return Status::Invalid("Kafka source: option '", name, "' has no ", by_time ? "timestamp" : "offset", " for ",
                               tp.first, "-", tp.second, " (give every partition",
                               by_time ? ")" : "; -2 = earliest, -1 = latest)");
      }
      want = it->second;
    }
    if (by_time) {
      const int64_t ts = spec.kind == OffsetSpec::Kind::kTimestamp ? spec.timestamp_ms : want;
      ARROW_ASSIGN_OR_RAISE(auto found, reader->OffsetForTime(tp, ts));
      if (found) {
        out[tp] = *found;
        continue;
      }
      if (!spec.no_match_is_latest) {
        return Status::Invalid("Kafka source: no record of ", tp.first, "-", tp.second, " has a timestamp at or after ",
                               ts, " (option '", name, "'); set startingOffsetsByTimestampStrategy = 'latest' to start "
                               "such partitions at their latest offset, or give an earlier timestamp");
      }
      want = kLatest;
    }
    if (want >= 0) {
      out[tp] = want;
      continue;
    }
    ARROW_ASSIGN_OR_RAISE(auto w, reader->Watermarks(tp));
    out[tp] = want == kEarliest ? w.low : w.high;
  }
  return out;
}

class KafkaSource final : public Source {
 public:
  KafkaSource(std::string description, KafkaSourceOptions options, std::unique_ptr<KafkaReader> reader,
              SourceContext ctx)
      : description_(std::move(description)),
        options_(std::move(options)),
        reader_(std::move(reader)),
        ctx_(std::move(ctx)) {}

  std::string Description() const override { return description_; }
  std::shared_ptr<arrow::Schema> schema() const override { return KafkaSourceSchema(options_.include_headers); }

  Status PrepareForAvailableNow() override {
    ARROW_ASSIGN_OR_RAISE(auto parts, reader_->Partitions());
    PartitionOffsets cap;
    for (const auto& tp : parts) {
      ARROW_ASSIGN_OR_RAISE(auto w, reader_->Watermarks(tp));
      cap[tp] = w.high;
    }
    available_now_ = std::move(cap);
    return Status::OK();
  }

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start, bool limited) override {
    ARROW_ASSIGN_OR_RAISE(PartitionOffsets from, StartOf(start));
    ARROW_ASSIGN_OR_RAISE(auto parts, reader_->Partitions());
    PartitionOffsets latest;
    for (const auto& tp : parts) {
      if (available_now_ && !available_now_->count(tp)) continue;  // arrived after the availableNow snapshot
      ARROW_ASSIGN_OR_RAISE(auto w, reader_->Watermarks(tp));
      latest[tp] = available_now_ ? std::min(w.high, available_now_->at(tp)) : w.high;
      if (!from.count(tp)) {
        // A partition new since `start`: read it from its beginning (as Spark does).
        from[tp] = w.low;
        util::LogInfo("Kafka source: new partition ", tp.first, "-", tp.second, " is read from offset ", w.low);
      }
    }
    PartitionOffsets end = latest;
    for (auto& [tp, off] : end) off = std::max(off, from[tp]);
    if (limited && !available_now_ && options_.min_offsets_per_trigger && DelayBatch(from, end)) {
      latest_ = latest;
      last_end_ = from;
      return start;  // too few new offsets and maxTriggerDelay not over: skip this trigger
    }
    if (limited && options_.max_offsets_per_trigger) end = RateLimit(from, end, *options_.max_offsets_per_trigger);
    // Partitions that disappeared keep their last offset (Spark reports them as data loss).
    for (const auto& [tp, off] : from) end.emplace(tp, off);
    latest_ = latest;
    last_end_ = end;
    if (end == from) return start;  // nothing new (nullopt before the first batch)
    return std::optional<Offset>(OffsetsToJson(end));
  }

  Result<std::shared_ptr<arrow::Table>> GetBatch(const std::optional<Offset>& start, const Offset& end_json) override {
    ARROW_ASSIGN_OR_RAISE(PartitionOffsets from, StartOf(start));
    ARROW_ASSIGN_OR_RAISE(PartitionOffsets end, OffsetsFromJson(end_json, "the batch's end offset"));
    std::map<TopicPartition, ReadRange> ranges;
    for (const auto& [tp, until] : end) {
      int64_t first = from.count(tp) ? from[tp] : 0;  // a new partition: from its beginning
      if (first >= until) continue;
      ARROW_ASSIGN_OR_RAISE(auto w, reader_->Watermarks(tp));
      if (first < w.low) {
        const int64_t lost_until = std::min(w.low, until);
        if (options_.fail_on_data_loss) {
          return Status::IOError("Kafka source: offsets ", first, " to ", lost_until, " of ", tp.first, "-", tp.second,
                                 " were deleted (retention) before they were read. Some data may have been lost; "
                                 "set failOnDataLoss = false to skip it with a warning");
        }
        util::LogWarning("Kafka source: offsets ", first, " to ", lost_until, " of ", tp.first, "-", tp.second,
                         " were deleted before they were read; skipped (failOnDataLoss = false)");
        lost_ += lost_until - first;
        first = lost_until;
      }
      ranges[tp] = {first, until};
    }
    return reader_->Read(ranges);
  }

  Status Commit(const Offset& end) override {
    ARROW_ASSIGN_OR_RAISE(auto offsets, OffsetsFromJson(end, "the committed offset"));
    reader_->CommitToGroup(offsets);
    return Status::OK();
  }

  SourceMetrics metrics() const override {
    SourceMetrics m;
    if (latest_.empty()) return m;
    m.latest_offset = OffsetsToJson(latest_);
    int64_t max_behind = 0, min_behind = INT64_MAX, sum = 0;
    for (const auto& [tp, latest] : latest_) {
      auto it = last_end_.find(tp);
      const int64_t behind = std::max<int64_t>(0, latest - (it == last_end_.end() ? latest : it->second));
      max_behind = std::max(max_behind, behind);
      min_behind = std::min(min_behind, behind);
      sum += behind;
    }
    m.custom["avgOffsetsBehindLatest"] = std::to_string(static_cast<double>(sum) / latest_.size());
    m.custom["maxOffsetsBehindLatest"] = std::to_string(max_behind);
    m.custom["minOffsetsBehindLatest"] = std::to_string(min_behind);
    if (lost_ > 0) m.custom["numOffsetsLost"] = std::to_string(lost_);
    return m;
  }

 private:
  // The offsets a batch starts at: `start`, or (first batch) the initial offsets recorded in
  // sources/<i>/0 — resolved and recorded on first use so a restart starts at the same place.
  Result<PartitionOffsets> StartOf(const std::optional<Offset>& start) {
    if (start) return OffsetsFromJson(*start, "the previous batch's end offset");
    if (initial_) return *initial_;
    checkpoint::MetadataLog log(ctx_.fs, ctx_.metadata_dir);
    ARROW_ASSIGN_OR_RAISE(auto existing, log.Get(0));
    if (existing) {
      json j = json::parse(*existing, nullptr, false);
      ARROW_ASSIGN_OR_RAISE(initial_, OffsetsFromJson(j, log.PathOf(0)));
      return *initial_;
    }
    ARROW_ASSIGN_OR_RAISE(auto parts, reader_->Partitions());
    ARROW_ASSIGN_OR_RAISE(initial_, Resolve(options_.starting, parts, reader_.get(), "startingOffsets"));
    ARROW_RETURN_NOT_OK(log.Add(0, OffsetsToJson(*initial_).dump()));
    return *initial_;
  }

  // minOffsetsPerTrigger + maxTriggerDelay, Spark's rule: a batch starts when maxTriggerDelay has
  // passed since the last one started (always true for the first, as the last is "at 0"), or
  // when at least the minimum of new offsets is available; otherwise the trigger is skipped.
  bool DelayBatch(const PartitionOffsets& from, const PartitionOffsets& until) {
    const int64_t now = ctx_.clock_ms ? ctx_.clock_ms()
                                      : std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::system_clock::now().time_since_epoch())
                                            .count();
    if (now - last_trigger_ms_ >= options_.max_trigger_delay_ms) {
      last_trigger_ms_ = now;
      return false;
    }
    int64_t available = 0;
    for (const auto& [tp, end] : until) available += end - from.at(tp);
    if (available < *options_.min_offsets_per_trigger) return true;
    last_trigger_ms_ = now;
    return false;
  }

  // Spark's rate limit: each partition gets a share of `limit` proportional to its backlog.
  static PartitionOffsets RateLimit(const PartitionOffsets& from, const PartitionOffsets& until, int64_t limit) {
    int64_t total = 0;
    for (const auto& [tp, end] : until) total += end - from.at(tp);
    if (total <= limit) return until;
    PartitionOffsets out;
    for (const auto& [tp, end] : until) {
      const int64_t begin = from.at(tp), size = end - begin;
      const double prorate = static_cast<double>(limit) * size / total;
      const int64_t n = static_cast<int64_t>(prorate < 1 ? std::ceil(prorate) : std::floor(prorate));
      out[tp] = std::min(end, begin + n);
    }
    return out;
  }

  std::string description_;
  KafkaSourceOptions options_;
  std::unique_ptr<KafkaReader> reader_;
  SourceContext ctx_;
  std::optional<PartitionOffsets> initial_;
  std::optional<PartitionOffsets> available_now_;
  PartitionOffsets latest_, last_end_;
  int64_t lost_ = 0;
  int64_t last_trigger_ms_ = 0;  // when the last batch was let through by DelayBatch
};

}  // namespace

Result<std::unique_ptr<Source>> MakeKafkaSource(const plan::SourceSpec& spec, const SourceContext& ctx) {
  ARROW_ASSIGN_OR_RAISE(auto options, ParseKafkaSourceOptions(spec.options, /*streaming=*/true));
  const std::string group = options.group_id_prefix + "-" + (ctx.query_id.empty() ? io::RandomUuid() : ctx.query_id);
  ARROW_ASSIGN_OR_RAISE(auto reader, KafkaReader::Open(options, group));
  return std::make_unique<KafkaSource>(spec.Describe(), std::move(options), std::move(reader), ctx);
}

Result<std::shared_ptr<arrow::Table>> ReadKafkaStatic(const plan::SourceSpec& spec,
                                                      const std::shared_ptr<io::FileSystem>&) {
  ARROW_ASSIGN_OR_RAISE(auto options, ParseKafkaSourceOptions(spec.options, /*streaming=*/false));
  ARROW_ASSIGN_OR_RAISE(auto reader, KafkaReader::Open(options, options.group_id_prefix + "-" + io::RandomUuid()));
  ARROW_ASSIGN_OR_RAISE(auto parts, reader->Partitions());
  ARROW_ASSIGN_OR_RAISE(auto from, Resolve(options.starting, parts, reader.get(), "startingOffsets"));
  ARROW_ASSIGN_OR_RAISE(auto until, Resolve(options.ending, parts, reader.get(), "endingOffsets"));
  std::map<TopicPartition, ReadRange> ranges;
  for (const auto& [tp, end] : until) ranges[tp] = {from[tp], end};
  return reader->Read(ranges);
}

SourceKind KafkaSourceKind() {
  SourceKind k;
  k.name = "kafka";
  k.streaming = k.batch = true;
  k.validate = kafka::ValidateKafkaSourceSpec;
  k.schema = [](const plan::SourceSpec& spec,
                const std::shared_ptr<io::FileSystem>&) -> Result<std::shared_ptr<arrow::Schema>> {
    ARROW_ASSIGN_OR_RAISE(auto options, ParseKafkaSourceOptions(spec.options, spec.streaming));
    return KafkaSourceSchema(options.include_headers);
  };
  k.make_stream = MakeKafkaSource;
  k.read_batch = ReadKafkaStatic;
  return k;
}

}  // namespace sluice::source
