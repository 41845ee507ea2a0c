// Writes deterministic batches through the file sink, for the PySpark interop test.
//
//   file_sink_writer OUT_DIR FORMAT BATCHES ROWS_PER_BATCH [FAULT_SPEC|-] [key=value ...]
//
// Batch b (0 <= b < BATCHES) holds ids b*ROWS .. b*ROWS+ROWS-1 with
//   name  = "name-<id>" (null when id % 7 == 3), price = id * 1.5,
//   ts    = 2024-01-01T00:00:00Z + id seconds + id milliseconds (TIMESTAMP, UTC micros).
// Batches already in OUT_DIR/_spark_metadata are skipped by the sink (a restart). FAULT_SPEC
// is io::FaultSpec syntax (e.g. "write=_spark_metadata/3"); "-" for none. Further arguments
// are sink options. Exit code 0 on success, 1 on error (message on stderr), or the fault's
// exit code when it fires.
#include <arrow/api.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "io/fault_injection.h"
#include "io/file_system.h"
#include "sink/file_sink.h"

namespace {

using sluice::Result;
using sluice::Status;

constexpr int64_t kBaseMicros = 1704067200LL * 1000000;  // 2024-01-01T00:00:00Z

Result<std::shared_ptr<arrow::Table>> BatchRows(int64_t batch, int64_t rows) {
  arrow::Int64Builder ids;
  arrow::StringBuilder names;
  arrow::DoubleBuilder prices;
  arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), arrow::default_memory_pool());
  for (int64_t id = batch * rows; id < (batch + 1) * rows; ++id) {
    ARROW_RETURN_NOT_OK(ids.Append(id));
    ARROW_RETURN_NOT_OK(id % 7 == 3 ? names.AppendNull() : names.Append("name-" + std::to_string(id)));
    ARROW_RETURN_NOT_OK(prices.Append(static_cast<double>(id) * 1.5));
    ARROW_RETURN_NOT_OK(ts.Append(kBaseMicros + id * 1000000 + id * 1000));
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                               arrow::field("price", arrow::float64()),
                               arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))});
  ARROW_ASSIGN_OR_RAISE(auto a, ids.Finish());
  ARROW_ASSIGN_OR_RAISE(auto b, names.Finish());
  ARROW_ASSIGN_OR_RAISE(auto c, prices.Finish());
  ARROW_ASSIGN_OR_RAISE(auto d, ts.Finish());
  return arrow::Table::Make(schema, {a, b, c, d});
}

Status Run(int argc, char** argv) {
  std::string out = argv[1];
  sluice::sink::SinkSpec spec;
  spec.format = argv[2];
  int64_t batches = std::stoll(argv[3]);
  int64_t rows = std::stoll(argv[4]);
  std::string fault = argc > 5 ? argv[5] : "-";
  spec.options.Set("path", out);
  for (int i = 6; i < argc; ++i) {
    std::string kv = argv[i];
    auto eq = kv.find('=');
    if (eq == std::string::npos) return Status::Invalid("expected key=value, got '", kv, "'");
    spec.options.Set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  sluice::sink::SinkContext ctx;
  ctx.fs = sluice::io::LocalFileSystem();
  if (fault != "-") {
    ARROW_ASSIGN_OR_RAISE(auto fs, sluice::io::FaultSpec::Parse(fault));
    ctx.fs = std::make_shared<sluice::io::FaultInjectingFileSystem>(ctx.fs, fs);
  }
  ARROW_ASSIGN_OR_RAISE(auto sink, sluice::sink::MakeFileSink(spec, ctx));
  for (int64_t b = 0; b < batches; ++b) {
    ARROW_ASSIGN_OR_RAISE(auto table, BatchRows(b, rows));
    ARROW_RETURN_NOT_OK(sink->AddBatch(b, table));
  }
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::cerr << "usage: file_sink_writer OUT_DIR FORMAT BATCHES ROWS_PER_BATCH [FAULT_SPEC|-] [key=value ...]\n";
    return 2;
  }
  Status st = Run(argc, argv);
  if (!st.ok()) {
    std::cerr << "file_sink_writer: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
