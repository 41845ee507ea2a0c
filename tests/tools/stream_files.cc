// A small streaming job used by the crash tests and `make demo`: files in -> (filter, derived
// column) -> sink, through the public C++ API. With --fault it runs on a fault-injecting
// filesystem that ends the process (_exit) at a named point of the batch protocol.
//
//   stream_files --input IN --checkpoint CKPT --output OUT [--format json] [--sink parquet|json|csv|naive]
//                [--max-files-per-trigger N] [--trigger available-now|once] [--fault SPEC]
//
// --sink naive is the seeds' "hand-made sink that only appends": a foreachBatch that appends
// every batch it is given to OUT/rows.jsonl, ignoring the batch id.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include <arrow/api.h>

#include "api/access.h"
#include "io/fault_injection.h"
#include "tools/tool_args.h"
#include "sluice/sluice.h"

using namespace sluice;

namespace {

Status AppendJsonLines(const std::string& path, const std::shared_ptr<arrow::Table>& rows) {
  std::ofstream out(path, std::ios::app);
  auto id = rows->GetColumnByName("id");
  auto name = rows->GetColumnByName("name");
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto idv, id->GetScalar(i));
    ARROW_ASSIGN_OR_RAISE(auto namev, name->GetScalar(i));
    out << "{\"id\":" << idv->ToString() << ",\"name\":\"" << namev->ToString() << "\"}\n";
  }
  out.flush();
  return out ? Status::OK() : Status::IOError("cannot append to ", path);
}

int Fail(const Status& st) {
  std::cerr << "stream_files: " << st.ToString() << std::endl;
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  tools::Args args = {{"--format", "json"}, {"--sink", "parquet"}, {"--trigger", "available-now"}};
  if (!tools::ParseArgs(argc, argv, "stream_files", {"--input", "--checkpoint", "--output"}, &args)) return 2;
  auto fs_or = tools::FileSystemFor(args);
  if (!fs_or.ok()) return Fail(fs_or.status());
  std::shared_ptr<io::FileSystem> fs = *fs_or;
  auto session = api::MakeSession(fs);
  auto reader = session->readStream().format(args["--format"]).schema("id BIGINT, name STRING, price DOUBLE");
  if (args.count("--max-files-per-trigger")) reader.option("maxFilesPerTrigger", args["--max-files-per-trigger"]);
  auto df = reader.load(args["--input"]);
  if (!df.ok()) return Fail(df.status());
  auto out = df->filter(col("price") >= lit(0.0)).withColumn("price_with_tax", col("price") * lit(1.2));
  auto writer = out.writeStream()
                    .option("checkpointLocation", args["--checkpoint"])
                    .trigger(args["--trigger"] == "once" ? Once() : AvailableNow());
  const std::string sink = args["--sink"];
  if (sink == "naive") {
    const std::string target = args["--output"] + "/rows.jsonl";
    writer.foreachBatch([target](const std::shared_ptr<arrow::Table>& rows, int64_t /*batch_id*/) {
      Status st = AppendJsonLines(target, rows);
      return st;
    });
  } else {
    writer.format(sink).option("path", args["--output"]);
  }
  auto query = writer.start();
  if (!query.ok()) return Fail(query.status());
  Status st = query->awaitTermination();
  if (!st.ok()) return Fail(st);
  std::cout << query->lastProgress() << std::endl;
  return 0;
}
