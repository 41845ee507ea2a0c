// Benchmark (not a test): a streaming tumbling-window count over 10^6 distinct keys, through
// the public API (memory source -> withWatermark -> groupBy(window, key).count() -> sink that
// discards), with the file state store in a temporary checkpoint. Reports rows/s of the whole
// micro-batch and per core, for 1 and 2 state partitions; the process's CPU time per row
// (user + system: steadier than wall time on a shared machine); and the aggregation's own CPU
// time per row, from the progress' stateOperators customMetrics (aggregationCpuNanos over
// aggregationInputRows: evaluating the keys, grouping, folding, state updates and eviction).
// SLUICE_AGGREGATION=generic in the environment measures the generic (byte-string key) path.
//
//   tumbling_count_bench [--keys N] [--rows-per-batch N] [--batches N] [--partitions 1,2]
//                        [--provider file|rocksdb] [--json FILE]
#include <arrow/api.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/resource.h>
#include <thread>

#include "sluice/sluice.h"

using namespace sluice;

namespace {

std::shared_ptr<arrow::Table> MakeBatch(int64_t first_row, int64_t rows, int64_t keys, int64_t window_us) {
  arrow::Int64Builder key;
  arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), arrow::default_memory_pool());
  (void)key.Reserve(rows);
  (void)ts.Reserve(rows);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t r = first_row + i;
    key.UnsafeAppend((r * 2654435761LL) % keys);
    // Rows advance through time so windows close: every `keys` rows is one window.
    ts.UnsafeAppend(1767225600LL * 1000000 + (r / keys) * window_us + (r % 1000));
  }
  std::shared_ptr<arrow::Array> k, t;
  (void)key.Finish(&k);
  (void)ts.Finish(&t);
  auto schema = arrow::schema({arrow::field("k", arrow::int64()), arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))});
  return arrow::Table::Make(schema, {k, t});
}

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

std::string Arg(int argc, char** argv, const std::string& name, const std::string& def) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return argv[i + 1];
  }
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t keys = std::atoll(Arg(argc, argv, "--keys", "1000000").c_str());
  const int64_t rows_per_batch = std::atoll(Arg(argc, argv, "--rows-per-batch", "1000000").c_str());
  const int batches = std::atoi(Arg(argc, argv, "--batches", "4").c_str());
  const std::string provider = Arg(argc, argv, "--provider", "file");
  const std::string json_out = Arg(argc, argv, "--json", "");
  std::vector<int> partition_counts;
  {
    std::stringstream ss(Arg(argc, argv, "--partitions", "1,2"));
    std::string p;
    while (std::getline(ss, p, ',')) partition_counts.push_back(std::atoi(p.c_str()));
  }
  const int64_t window_us = 10LL * 1000000;
  nlohmann::json results = nlohmann::json::array();
  for (int parts : partition_counts) {
    auto dir = std::filesystem::temp_directory_path() / ("sluice-bench-" + std::to_string(::getpid()) + "-" + std::to_string(parts));
    std::filesystem::remove_all(dir);
    auto session = Session::Make();
    session->setConf("spark.sql.shuffle.partitions", std::to_string(parts));
    session->setConf("spark.sql.streaming.stateStore.providerClass", provider);
    MemoryStream input(session, arrow::schema({arrow::field("k", arrow::int64()),
                                               arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))}));
    auto df = input.toDF().withWatermark("ts", "1 second").groupBy({window(col("ts"), "10 seconds"), col("k")}).count();
    if (!df.ok()) {
      std::cerr << df.status().ToString() << "\n";
      return 1;
    }
    int64_t out_rows = 0;
    double total_s = 0;
    int64_t total_rows = 0;
    int64_t peak_state = 0;
    double cpu_s = 0;
    int64_t agg_ns = 0, agg_rows = 0;
    for (int b = 0; b < batches; ++b) {
      if (!input.addData(MakeBatch(b * rows_per_batch, rows_per_batch, keys, window_us)).ok()) return 1;
      auto start = std::chrono::steady_clock::now();
      const double cpu_start = CpuSeconds();
      auto q = df.writeStream()
                   .outputMode("append")
                   .option("checkpointLocation", dir.string())
                   .foreachBatch([&](const std::shared_ptr<arrow::Table>& t, int64_t) {
                     out_rows += t->num_rows();
                     return Status::OK();
                   })
                   .trigger(AvailableNow())
                   .start();
      if (!q.ok() || !q->awaitTermination().ok()) {
        std::cerr << (q.ok() && q->exception() ? q->exception()->ToString() : q.status().ToString()) << "\n";
        return 1;
      }
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double cpu = CpuSeconds() - cpu_start;
      if (b > 0) {  // batch 0 warms up (allocations, first state files)
        total_s += secs;
        cpu_s += cpu;
        total_rows += rows_per_batch;
      }
      for (const auto& p : q->recentProgress()) {
        auto j = nlohmann::json::parse(p);
        if (std::getenv("BENCH_VERBOSE")) {
          std::cerr << "batch " << j["batchId"] << " rows " << j["numInputRows"] << " durationMs " << j["durationMs"].dump()
                    << " state " << j["stateOperators"].dump() << "\n";
        }
        for (const auto& op : j["stateOperators"]) {
          peak_state = std::max<int64_t>(peak_state, op["numRowsTotal"].get<int64_t>());
          if (b > 0 && op.contains("customMetrics")) {
            agg_ns += op["customMetrics"].value("aggregationCpuNanos", int64_t{0});
            agg_rows += op["customMetrics"].value("aggregationInputRows", int64_t{0});
          }
        }
      }
    }
    const double rps = total_rows / std::max(total_s, 1e-9);
    const int cores = std::min<int>(parts, std::max(1u, std::thread::hardware_concurrency()));
    nlohmann::json r = {{"partitions", parts},        {"provider", provider},
                        {"keys", keys},               {"rows_per_batch", rows_per_batch},
                        {"measured_batches", batches - 1}, {"rows_per_s", rps},
                        {"cores_used", cores},        {"rows_per_s_per_core", rps / cores},
                        {"peak_state_rows", peak_state}, {"windows_emitted", out_rows},
                        {"cpu_s", cpu_s},             {"cpu_ns_per_row", cpu_s * 1e9 / std::max<int64_t>(total_rows, 1)},
                        {"aggregation_ns_per_row", static_cast<double>(agg_ns) / std::max<int64_t>(agg_rows, 1)}};
    std::cout << r.dump() << std::endl;
    results.push_back(r);
    std::filesystem::remove_all(dir);
  }
  if (!json_out.empty()) std::ofstream(json_out) << results.dump(2) << "\n";
  return 0;
}
