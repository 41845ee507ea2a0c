// Event streams for the stateful crash and reference tests: seeded random events with
// disorder, late events and re-delivered duplicates; their JSON; a table's rows as text.
#pragma once

#include <arrow/api.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace sluice::testing {

/// One input row: {"id", "k", "v", "ts"}; `secs` is the event time in seconds after kBaseSecs.
struct Event {
  int64_t id = 0;
  std::string k;
  int64_t v = 0;
  int64_t secs = 0;
};

/// 2026-01-01T00:00:00Z, a multiple of every window size and slide the tests use.
inline constexpr int64_t kBaseSecs = 1767225600LL;
inline constexpr const char* kEventSchema = "id BIGINT, k STRING, v BIGINT, ts TIMESTAMP";

inline std::string EventJson(const Event& e) {
  char ts[64];
  std::snprintf(ts, sizeof(ts), "2026-01-01T%02lld:%02lld:%02lld", static_cast<long long>(e.secs / 3600),
                static_cast<long long>(e.secs / 60 % 60), static_cast<long long>(e.secs % 60));
  return "{\"id\":" + std::to_string(e.id) + ",\"k\":\"" + e.k + "\",\"v\":" + std::to_string(e.v) + ",\"ts\":\"" + ts +
         "\"}";
}

/// JSON lines, one event a line.
inline std::string JsonLines(const std::vector<Event>& events) {
  std::string out;
  for (const auto& e : events) out += EventJson(e) + "\n";
  return out;
}

/// A JSON array (MemoryStream::addJson).
inline std::string JsonArray(const std::vector<Event>& events) {
  std::string out = "[";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? "," : "") + EventJson(events[i]);
  return out + "]";
}

/// `count` events in arrival order: the arrival clock advances ~1 s per event; most events
/// are 0..3 s old when they arrive, about one in seven 8..30 s old (beyond a 5 s watermark
/// delay), and about one in eight re-delivers an earlier event (same id and time, new v).
inline std::vector<Event> RandomEvents(uint32_t seed, int count) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const char* keys[] = {"a", "b", "c"};
  std::vector<Event> out;
  int64_t clock = 100;
  for (int i = 0; i < count; ++i) {
    clock += uniform(0, 2);
    if (!out.empty() && uniform(0, 7) == 0) {
      Event dup = out[static_cast<size_t>(uniform(std::max(0, static_cast<int>(out.size()) - 12), static_cast<int>(out.size()) - 1))];
      dup.v = uniform(1, 9);
      out.push_back(dup);
      continue;
    }
    const int64_t age = uniform(0, 6) == 0 ? uniform(8, 30) : uniform(0, 3);
    out.push_back(Event{1000 + i, keys[uniform(0, 2)], uniform(1, 9), std::max<int64_t>(0, clock - age)});
  }
  return out;
}

/// Cuts `events` into `n` consecutive, nearly equal batches.
inline std::vector<std::vector<Event>> Cut(const std::vector<Event>& events, int n) {
  std::vector<std::vector<Event>> out(static_cast<size_t>(n));
  for (size_t i = 0; i < events.size(); ++i) out[i * static_cast<size_t>(n) / events.size()].push_back(events[i]);
  return out;
}

/// Rows of a table as sorted text lines "c1|c2|..."; timestamps as seconds after kBaseSecs.
inline std::vector<std::string> RowLines(const std::shared_ptr<arrow::Table>& t) {
  std::vector<std::string> out;
  if (!t) return out;
  auto combined = t->CombineChunksToBatch().ValueOrDie();
  for (int64_t r = 0; r < combined->num_rows(); ++r) {
    std::string line;
    for (int c = 0; c < combined->num_columns(); ++c) {
      auto a = combined->column(c);
      if (c) line += "|";
      if (a->IsNull(r)) {
        line += "null";
      } else if (a->type_id() == arrow::Type::TIMESTAMP) {
        const auto unit = static_cast<const arrow::TimestampType&>(*a->type()).unit();
        const int64_t per_sec = unit == arrow::TimeUnit::SECOND ? 1
                                : unit == arrow::TimeUnit::MILLI ? 1000
                                : unit == arrow::TimeUnit::MICRO ? 1000000
                                                                 : 1000000000;
        line += std::to_string(static_cast<const arrow::TimestampArray&>(*a).Value(r) / per_sec - kBaseSecs);
      } else {
        line += a->GetScalar(r).ValueOrDie()->ToString();
      }
    }
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sluice::testing
