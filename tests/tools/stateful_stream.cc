// A stateful streaming job for the stateful crash tests: JSON-lines event files in ->
// withWatermark -> one stateful operator -> sink, through the public C++ API. With --fault it
// runs on a fault-injecting filesystem that ends the process (_exit) at a named point of the
// batch protocol.
//
//   stateful_stream --query Q --input IN --checkpoint CKPT --output OUT
//                   [--partitions N] [--provider file|rocksdb] [--max-files-per-trigger N]
//                   [--delay "5 seconds"] [--fault SPEC]
//
// Input rows: {"id": 1, "k": "a", "v": 3, "ts": "2026-01-01T00:00:07"}.
// Queries (append mode -> parquet file sink at OUT, unless noted):
//   tumbling      groupBy(window(ts, 10 s), k).agg(count, sum(v))
//   sliding       groupBy(window(ts, 10 s, 5 s), k).agg(count, sum(v))
//   session       groupBy(k, session_window(ts, 4 s)).agg(count, sum(v))
//   dedup         dropDuplicates(id, ts)
//   dedup_within  dropDuplicatesWithinWatermark(id)
//   static_join   a left outer join on k with the static JSON table at --dim DIR (columns k,
//                 name), no watermark: the stream-static join of the join crash test
//   stream_join   a full outer stream-stream join of the input with itself (read by a second
//                 source, columns renamed l*/r*) on lk = rk AND rts BETWEEN lts AND lts + 3 s,
//                 both sides watermarked by --delay
//   complete      groupBy(window(ts, 10 s), k).agg(count, sum(v)) without a watermark, complete
//                 mode, into a foreachBatch that writes
//                 every batch to OUT/batch-<id>.jsonl, replacing the file of a redone batch.
//   sketches      as complete, aggregating count(*), approx_count_distinct(id), collect_set(v),
//                 max_by(id, ts), percentile_approx(v, 0.5) and percentile_approx(v, {0.9, 0.1,
//                 0.5}): state that is a register array, a value set, a (value, ordering) pair
//                 and a value histogram (read by one percentage, and by an array of them).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include <arrow/api.h>

#include "api/access.h"
#include "io/fault_injection.h"
#include "plan/expr.h"
#include "tools/tool_args.h"
#include "sluice/sluice.h"

using namespace sluice;

namespace {

// Writes `rows` as JSON lines to `path` (via a temp file and rename, so a redone batch
// replaces its earlier file whole).
Status WriteBatchFile(const std::string& path, const std::shared_ptr<arrow::Table>& rows) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    ARROW_ASSIGN_OR_RAISE(auto batch, rows->CombineChunksToBatch());
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      out << "{";
      for (int c = 0; c < batch->num_columns(); ++c) {
        ARROW_ASSIGN_OR_RAISE(auto v, batch->column(c)->GetScalar(r));
        std::string text = v->ToString();  // a list prints over several lines
        std::replace(text.begin(), text.end(), '\n', ' ');
        out << (c ? "," : "") << "\"" << batch->schema()->field(c)->name() << "\":\"" << text << "\"";
      }
      out << "}\n";
    }
    out.flush();
    if (!out) return Status::IOError("cannot write ", tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return ec ? Status::IOError("cannot rename ", tmp, ": ", ec.message()) : Status::OK();
}

int Fail(const Status& st) {
  std::cerr << "stateful_stream: " << st.ToString() << std::endl;
  return 1;
}

Result<DataFrame> BuildQuery(const std::string& query, const DataFrame& events, const std::string& delay) {
  DataFrame marked = events.withWatermark("ts", delay);
  const std::vector<Column> aggs = {count(col("*")).alias("n"), sum(col("v")).alias("total")};
  if (query == "tumbling") return marked.groupBy({window(col("ts"), "10 seconds"), col("k")}).agg(aggs);
  if (query == "sliding") return marked.groupBy({window(col("ts"), "10 seconds", "5 seconds"), col("k")}).agg(aggs);
  if (query == "session") return marked.groupBy({col("k"), session_window(col("ts"), "4 seconds")}).agg(aggs);
  if (query == "dedup") return marked.dropDuplicates({"id", "ts"});
  if (query == "dedup_within") return marked.dropDuplicatesWithinWatermark({"id"});
  if (query == "complete") return events.groupBy({window(col("ts"), "10 seconds"), col("k")}).agg(aggs);
  if (query == "sketches") {
    return events.groupBy({window(col("ts"), "10 seconds"), col("k")})
        .agg({count(col("*")).alias("n"), approx_count_distinct(col("id")).alias("ids"), collect_set(col("v")).alias("vs"),
              max_by(col("id"), col("ts")).alias("latest"), percentile_approx(col("v"), 0.5).alias("median"),
              percentile_approx(col("v"), {0.9, 0.1, 0.5}).alias("deciles")});
  }
  return Status::Invalid("unknown --query '", query, "'");
}

}  // namespace

int main(int argc, char** argv) {
  tools::Args args = {{"--partitions", "2"}, {"--provider", "file"}, {"--delay", "5 seconds"}};
  if (!tools::ParseArgs(argc, argv, "stateful_stream", {"--query", "--input", "--checkpoint", "--output"}, &args)) return 2;
  auto fs_or = tools::FileSystemFor(args);
  if (!fs_or.ok()) return Fail(fs_or.status());
  std::shared_ptr<io::FileSystem> fs = *fs_or;
  auto session = api::MakeSession(fs);
  session->setConf("spark.sql.shuffle.partitions", args["--partitions"]);
  session->setConf("spark.sql.streaming.stateStore.providerClass", args["--provider"]);
  auto reader = session->readStream().format("json").schema("id BIGINT, k STRING, v BIGINT, ts TIMESTAMP");
  if (args.count("--max-files-per-trigger")) reader.option("maxFilesPerTrigger", args["--max-files-per-trigger"]);
  auto events = reader.load(args["--input"]);
  if (!events.ok()) return Fail(events.status());
  Result<DataFrame> df = Status::Invalid("no query");
  if (args["--query"] == "stream_join") {
    auto second = reader.load(args["--input"]);
    if (!second.ok()) return Fail(second.status());
    auto side = [&](const DataFrame& d, const std::string& p) {
      return d.select({col("id").alias(p + "id"), col("k").alias(p + "k"), col("v").alias(p + "v"),
                       col("ts").alias(p + "ts")})
          .withWatermark(p + "ts", args["--delay"]);
    };
    auto i64 = [](int64_t x) { return plan::Expr::Literal(std::make_shared<arrow::Int64Scalar>(x)); };
    Column upper = api::MakeColumn(plan::Expr::Call("add_interval", {api::ExprOf(col("lts")), i64(0), i64(0), i64(3000000)}));
    df = side(*events, "l").join(side(*second, "r"),
                                 col("lk") == col("rk") && col("rts") >= col("lts") && col("rts") <= upper, "full");
  } else if (args["--query"] == "static_join") {
    auto dim = session->read().format("json").schema("k STRING, name STRING").load(args["--dim"]);
    if (!dim.ok()) return Fail(dim.status());
    df = events->join(*dim, "k", "left");
  } else {
    df = BuildQuery(args["--query"], *events, args["--delay"]);
  }
  if (!df.ok()) return Fail(df.status());
  if (!df->ok()) return Fail(df->status());

  auto writer = df->writeStream().option("checkpointLocation", args["--checkpoint"]).trigger(AvailableNow());
  if (args["--query"] == "complete" || args["--query"] == "sketches") {
    const std::string dir = args["--output"];
    std::filesystem::create_directories(dir);
    writer.outputMode("complete").foreachBatch([dir](const std::shared_ptr<arrow::Table>& rows, int64_t batch_id) {
      return WriteBatchFile(dir + "/batch-" + std::to_string(batch_id) + ".jsonl", rows);
    });
  } else {
    writer.outputMode("append").format("parquet").option("path", args["--output"]);
  }
  auto query = writer.start();
  if (!query.ok()) return Fail(query.status());
  Status st = query->awaitTermination();
  if (!st.ok()) return Fail(st);
  std::cout << query->lastProgress() << std::endl;
  return 0;
}
