#include "cli/run_monitor.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "util/numbers.h"

namespace sluice::cli {
namespace {

std::string Rate(double rows_per_second) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f", std::isfinite(rows_per_second) ? rows_per_second : 0.0);
  return buf;
}

}  // namespace

Result<std::shared_ptr<RunMonitor>> RunMonitor::Make(const std::string& progress_path, bool live, std::ostream* out) {
  std::shared_ptr<RunMonitor> monitor(new RunMonitor(live, out));
  if (!progress_path.empty()) {
    monitor->progress_.open(progress_path, std::ios::app);
    if (!monitor->progress_) return Status::IOError("cannot open progress file '", progress_path, "' for appending");
  }
  return monitor;
}

void RunMonitor::onQueryProgress(const QueryProgressEvent& event) {
  nlohmann::json progress = nlohmann::json::parse(event.progress, nullptr, /*allow_exceptions=*/false);
  std::lock_guard<std::mutex> lock(mu_);
  if (progress_.is_open()) {
    progress_ << (progress.is_discarded() ? event.progress : progress.dump()) << "\n";
    progress_.flush();
  }
  if (progress.is_discarded() || !progress.is_object()) return;
  std::string name = progress.value("name", nlohmann::json()).is_string() ? progress["name"].get<std::string>()
                                                                          : progress.value("id", std::string("query"));
  QueryLine& q = queries_[name];
  q.batch = progress.value("batchId", int64_t{-1});
  int64_t rows = progress.value("numInputRows", int64_t{0});
  q.total_rows += rows;
  q.rows_per_second = progress.value("processedRowsPerSecond", 0.0);
  q.files_pending = -1;
  for (const auto& src : progress.value("sources", nlohmann::json::array())) {
    const auto& m = src.value("metrics", nlohmann::json::object());
    if (!m.contains("numFilesOutstanding") || !m["numFilesOutstanding"].is_string()) continue;
    auto files = util::ParseInt64(m["numFilesOutstanding"].get<std::string>(), "numFilesOutstanding");
    if (files.ok()) q.files_pending = std::max<int64_t>(q.files_pending, 0) + *files;
  }
  const std::string pending = q.files_pending >= 0 ? ", " + std::to_string(q.files_pending) + " files pending" : "";
  // Each line reaches the stream in one write (on stderr, unbuffered, pieces could be cut by
  // another thread's warning).
  if (!live_) {
    const std::string line = "sluice: " + name + " batch " + std::to_string(q.batch) + ": " + std::to_string(rows) +
                             " rows (" + Rate(q.rows_per_second) + " rows/s" + pending + ")\n";
    out_->write(line.data(), static_cast<std::streamsize>(line.size()));
    out_->flush();
    return;
  }
  std::string line;
  for (const auto& [n, l] : queries_) {
    if (!line.empty()) line += " | ";
    line += n + ": batch " + std::to_string(l.batch) + ", " + std::to_string(l.total_rows) + " rows, " +
            Rate(l.rows_per_second) + " rows/s";
    if (l.files_pending >= 0) line += ", " + std::to_string(l.files_pending) + " files pending";
  }
  line.insert(0, "\r\033[K");
  out_->write(line.data(), static_cast<std::streamsize>(line.size()));
  out_->flush();
  drew_live_line_ = true;
}

void RunMonitor::onQueryIdle(const QueryIdleEvent& event) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!progress_.is_open()) return;
  progress_ << nlohmann::json{{"event", "QueryIdleEvent"}, {"id", event.id}, {"runId", event.runId},
                              {"timestamp", event.timestamp}}
                   .dump()
            << "\n";
  progress_.flush();
}

void RunMonitor::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (live_ && drew_live_line_) *out_ << std::endl;
  drew_live_line_ = false;
  if (progress_.is_open()) progress_.flush();
}

}  // namespace sluice::cli
