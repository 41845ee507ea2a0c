#include "source/rate_source.h"

#include <arrow/api.h>

#include <algorithm>
#include <thread>

#include "checkpoint/metadata_log.h"
#include "util/duration.h"

namespace sluice::source {

using nlohmann::json;

std::shared_ptr<arrow::Schema> RateSourceSchema() {
  return arrow::schema({arrow::field("timestamp", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), false),
                        arrow::field("value", arrow::int64(), false)});
}

int64_t RateValueAtSecond(int64_t seconds, int64_t rows_per_second, int64_t ramp_up_seconds) {
  // During ramp-up, second k (0-based) produces rows_per_second * (k + 1) / (ramp_up + 1) rows;
  // afterwards rows_per_second per second.
  int64_t ramp = std::min(seconds, ramp_up_seconds);
  int64_t total = 0;
  for (int64_t k = 0; k < ramp; ++k) total += rows_per_second * (k + 1) / (ramp_up_seconds + 1);
  return total + (seconds - ramp) * rows_per_second;
}

namespace {

Result<int64_t> PositiveInt(const plan::Options& options, const std::string& name, int64_t def) {
  auto v = options.Get(name);
  if (!v) return def;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || n <= 0) {
    return Status::Invalid("Invalid value '", *v, "' for option '", name, "', must be a positive integer");
  }
  return static_cast<int64_t>(n);
}

Result<int64_t> NonNegativeInt(const plan::Options& options, const std::string& name, int64_t def) {
  auto v = options.Get(name);
  if (!v) return def;
  char* end = nullptr;
  long long n = std::strtoll(v->c_str(), &end, 10);
  if (v->empty() || *end != '\0' || n < 0) {
    return Status::Invalid("Invalid value '", *v, "' for option '", name, "', must be a non-negative integer");
  }
  return static_cast<int64_t>(n);
}

int64_t DefaultPartitions() { return std::max<int64_t>(1, std::thread::hardware_concurrency()); }

// Rows with values [first, last) whose timestamps are given by `ts_of(value)`, split into
// `partitions` record batches.
Result<std::shared_ptr<arrow::Table>> MakeRows(int64_t first, int64_t last, int64_t partitions,
                                               const std::function<int64_t(int64_t)>& ts_ms_of) {
  auto schema = RateSourceSchema();
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  const int64_t n = std::max<int64_t>(last - first, 0);
  const int64_t per = std::max<int64_t>((n + partitions - 1) / partitions, 1);
  for (int64_t lo = first; lo < last; lo += per) {
    int64_t hi = std::min(last, lo + per);
    arrow::TimestampBuilder ts(schema->field(0)->type(), arrow::default_memory_pool());
    arrow::Int64Builder values;
    ARROW_RETURN_NOT_OK(ts.Reserve(hi - lo));
    ARROW_RETURN_NOT_OK(values.Reserve(hi - lo));
    for (int64_t v = lo; v < hi; ++v) {
      ts.UnsafeAppend(ts_ms_of(v) * 1000);
      values.UnsafeAppend(v);
    }
    ARROW_ASSIGN_OR_RAISE(auto ts_array, ts.Finish());
    ARROW_ASSIGN_OR_RAISE(auto value_array, values.Finish());
    batches.push_back(arrow::RecordBatch::Make(schema, hi - lo, {ts_array, value_array}));
  }
  return arrow::Table::FromRecordBatches(schema, batches);
}

int64_t OffsetInt(const std::optional<Offset>& o, const char* key, int64_t def) {
  if (!o) return def;
  if (o->is_number()) return o->get<int64_t>();
  return o->value(key, def);
}

// ---- rate ------------------------------------------------------------------------------

class RateSource final : public Source {
 public:
  RateSource(int64_t rows_per_second, int64_t ramp_up_s, int64_t partitions, int64_t start_ms,
             std::function<int64_t()> clock)
      : rps_(rows_per_second), ramp_(ramp_up_s), partitions_(partitions), start_ms_(start_ms), clock_(std::move(clock)) {}

  std::string Description() const override {
    return "RateStreamV2[rowsPerSecond=" + std::to_string(rps_) + ", rampUpTimeSeconds=" + std::to_string(ramp_) +
           ", numPartitions=" + std::to_string(partitions_) + "]";
  }
  std::shared_ptr<arrow::Schema> schema() const override { return RateSourceSchema(); }

  Status PrepareForAvailableNow() override {
    available_now_end_ = ElapsedSeconds();
    return Status::OK();
  }

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start, bool /*limited*/) override {
    int64_t end = available_now_end_ >= 0 ? available_now_end_ : ElapsedSeconds();
    if (end <= OffsetInt(start, "seconds", 0)) return start;
    return std::optional<Offset>(Offset(end));
  }

  Result<std::shared_ptr<arrow::Table>> GetBatch(const std::optional<Offset>& start, const Offset& end) override {
    int64_t s0 = OffsetInt(start, "seconds", 0), s1 = OffsetInt(end, "seconds", 0);
    int64_t first = RateValueAtSecond(s0, rps_, ramp_), last = RateValueAtSecond(s1, rps_, ramp_);
    // Value v falls in the second whose range holds it; spread evenly within that second.
    int64_t second = s0;
    return MakeRows(first, last, partitions_, [&](int64_t v) {
      while (RateValueAtSecond(second + 1, rps_, ramp_) <= v) ++second;
      int64_t lo = RateValueAtSecond(second, rps_, ramp_), hi = RateValueAtSecond(second + 1, rps_, ramp_);
      return start_ms_ + second * 1000 + (v - lo) * 1000 / std::max<int64_t>(hi - lo, 1);
    });
  }

 private:
  int64_t ElapsedSeconds() const { return std::max<int64_t>(0, (clock_() - start_ms_) / 1000); }

  int64_t rps_, ramp_, partitions_, start_ms_;
  std::function<int64_t()> clock_;
  int64_t available_now_end_ = -1;
};

// ---- rate-micro-batch ------------------------------------------------------------------

class RatePerMicroBatchSource final : public Source {
 public:
  RatePerMicroBatchSource(int64_t rows_per_batch, int64_t partitions, int64_t start_ts, int64_t advance_ms)
      : rows_(rows_per_batch), partitions_(partitions), start_ts_(start_ts), advance_ms_(advance_ms) {}

  std::string Description() const override {
    return "RatePerMicroBatchStream[rowsPerBatch=" + std::to_string(rows_) + ", numPartitions=" +
           std::to_string(partitions_) + ", startTimestamp=" + std::to_string(start_ts_) +
           ", advanceMillisPerBatch=" + std::to_string(advance_ms_) + "]";
  }
  std::shared_ptr<arrow::Schema> schema() const override { return RateSourceSchema(); }

  // An endless source: "everything available now" is one more batch.
  Status PrepareForAvailableNow() override {
    available_now_batches_ = 1;
    return Status::OK();
  }

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start, bool /*limited*/) override {
    if (available_now_batches_ == 0) return start;
    if (available_now_batches_ > 0) --available_now_batches_;
    int64_t offset = OffsetInt(start, "offset", 0), ts = OffsetInt(start, "timestamp", start_ts_);
    return std::optional<Offset>(json{{"offset", offset + rows_}, {"timestamp", ts + advance_ms_}});
  }

  Result<std::shared_ptr<arrow::Table>> GetBatch(const std::optional<Offset>& start, const Offset& end) override {
    int64_t first = OffsetInt(start, "offset", 0), last = OffsetInt(end, "offset", 0);
    int64_t ts0 = OffsetInt(start, "timestamp", start_ts_), ts1 = OffsetInt(end, "timestamp", start_ts_);
    int64_t n = std::max<int64_t>(last - first, 1);
    return MakeRows(first, last, partitions_, [&](int64_t v) { return ts0 + (v - first) * (ts1 - ts0) / n; });
  }

 private:
  int64_t rows_, partitions_, start_ts_, advance_ms_;
  int available_now_batches_ = -1;
};

// The rate source's start time, written once to sources/<i>/0 so a restart (and a redo)
// computes the same timestamps.
Result<int64_t> LoadOrRecordStartTime(const SourceContext& ctx) {
  checkpoint::MetadataLog log(ctx.fs, ctx.metadata_dir);
  ARROW_ASSIGN_OR_RAISE(auto existing, log.Get(0));
  if (existing) {
    try {
      return json::parse(*existing).at("startTimeMs").get<int64_t>();
    } catch (const json::exception& e) {
      return Status::Invalid("Rate source metadata '", log.PathOf(0), "' is corrupt: ", e.what());
    }
  }
  int64_t now = ctx.clock_ms();
  ARROW_RETURN_NOT_OK(log.Add(0, json{{"startTimeMs", now}}.dump()));
  return now;
}

}  // namespace

Status ValidateRateSourceSpec(const plan::SourceSpec& spec) {
  if (spec.format == "rate") {
    ARROW_RETURN_NOT_OK(spec.options.CheckKnown({"rowsPerSecond", "rampUpTime", "numPartitions"}, "rate source"));
    ARROW_RETURN_NOT_OK(PositiveInt(spec.options, "rowsPerSecond", 1).status());
    ARROW_RETURN_NOT_OK(PositiveInt(spec.options, "numPartitions", 1).status());
    if (auto ramp = spec.options.Get("rampUpTime")) {
      ARROW_RETURN_NOT_OK(util::ParseDurationMs("rampUpTime", *ramp).status());
    }
    return Status::OK();
  }
  ARROW_RETURN_NOT_OK(spec.options.CheckKnown(
      {"rowsPerBatch", "numPartitions", "startTimestamp", "advanceMillisPerBatch"}, "rate-micro-batch source"));
  if (!spec.options.Has("rowsPerBatch")) {
    return Status::Invalid("The rate-micro-batch source needs option 'rowsPerBatch' (a positive integer)");
  }
  ARROW_RETURN_NOT_OK(PositiveInt(spec.options, "rowsPerBatch", 1).status());
  ARROW_RETURN_NOT_OK(PositiveInt(spec.options, "numPartitions", 1).status());
  ARROW_RETURN_NOT_OK(NonNegativeInt(spec.options, "startTimestamp", 0).status());
  ARROW_RETURN_NOT_OK(NonNegativeInt(spec.options, "advanceMillisPerBatch", 1000).status());
  return Status::OK();
}

Result<std::unique_ptr<Source>> MakeRateSource(const plan::SourceSpec& spec, const SourceContext& ctx) {
  ARROW_RETURN_NOT_OK(ValidateRateSourceSpec(spec));
  ARROW_ASSIGN_OR_RAISE(int64_t partitions, PositiveInt(spec.options, "numPartitions", DefaultPartitions()));
  if (spec.format == "rate") {
    ARROW_ASSIGN_OR_RAISE(int64_t rps, PositiveInt(spec.options, "rowsPerSecond", 1));
    int64_t ramp_ms = 0;
    if (auto ramp = spec.options.Get("rampUpTime")) {
      ARROW_ASSIGN_OR_RAISE(ramp_ms, util::ParseDurationMs("rampUpTime", *ramp));
    }
    ARROW_ASSIGN_OR_RAISE(int64_t start_ms, LoadOrRecordStartTime(ctx));
    return std::make_unique<RateSource>(rps, ramp_ms / 1000, partitions, start_ms, ctx.clock_ms);
  }
  ARROW_ASSIGN_OR_RAISE(int64_t rows, PositiveInt(spec.options, "rowsPerBatch", 1));
  ARROW_ASSIGN_OR_RAISE(int64_t start_ts, NonNegativeInt(spec.options, "startTimestamp", 0));
  ARROW_ASSIGN_OR_RAISE(int64_t advance, NonNegativeInt(spec.options, "advanceMillisPerBatch", 1000));
  return std::make_unique<RatePerMicroBatchSource>(rows, partitions, start_ts, advance);
}

}  // namespace sluice::source
