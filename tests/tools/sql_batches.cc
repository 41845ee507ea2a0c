// Runs the one query of a SQL pipeline file as a stream and writes every micro-batch's output
// to its own Arrow IPC file, for the Spark conformance harness (tests/conformance/), which needs
// each batch's rows and column types — the CLI's sinks cannot give update/complete batches.
//
//   sql_batches --sql FILE --checkpoint DIR --out DIR [--output-mode append|update|complete]
//               [--trigger available-now|once] [--conf key=value]...
//               [--drop-duplicates c1,c2 | --drop-duplicates-within-watermark c1,c2] [--progress FILE]
//
// --progress FILE writes the query's recentProgress (one JSON per line) when the run ends.
// The --drop-duplicates options apply the DataFrame API's dedup to the query's result (SQL has no
// spelling for it); an empty list (",") means every column.
//
// Output: DIR/batch-<id>.arrow for each batch the query hands to its sink (a redone batch
// replaces its file), the query's sink table in the file is ignored. Exit status 0 when the run
// ended normally; otherwise 1 with "sql_batches: <error>" on stderr.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/ipc/writer.h>

#include "sluice/sluice.h"
#include "sql/sql_pipeline.h"

using namespace sluice;

namespace {

// Writes `rows` to `path` through a temp file and a rename, so a redone batch replaces its file whole.
Status WriteBatchFile(const std::string& path, const std::shared_ptr<arrow::Table>& rows) {
  const std::string tmp = path + ".tmp";
  {
    ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::FileOutputStream::Open(tmp));
    ARROW_ASSIGN_OR_RAISE(auto writer, arrow::ipc::MakeFileWriter(file, rows->schema()));
    ARROW_RETURN_NOT_OK(writer->WriteTable(*rows));
    ARROW_RETURN_NOT_OK(writer->Close());
    ARROW_RETURN_NOT_OK(file->Close());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return ec ? Status::IOError("cannot rename ", tmp, ": ", ec.message()) : Status::OK();
}

int Fail(const Status& st) {
  std::cerr << "sql_batches: " << st.message() << std::endl;
  return 1;
}

struct Options {
  std::string sql_path, checkpoint, out_dir, output_mode = "append", trigger = "available-now", progress;
  std::vector<std::pair<std::string, std::string>> confs;
  std::string dedup_kind;  // "", "all" (dropDuplicates) or "within" (dropDuplicatesWithinWatermark)
  std::vector<std::string> dedup_columns;
};

std::vector<std::string> SplitColumns(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  for (std::string c; std::getline(in, c, ',');) {
    if (!c.empty()) out.push_back(c);
  }
  return out;
}

Status Run(const Options& o) {
  const std::string &sql_path = o.sql_path, &checkpoint = o.checkpoint, &out_dir = o.out_dir;
  std::ifstream in(sql_path);
  if (!in) return Status::IOError("cannot read ", sql_path);
  std::stringstream text;
  text << in.rdbuf();
  auto session = Session::Make();
  for (const auto& [k, v] : o.confs) session->setConf(k, v);
  sql::SqlText sql(sql_path, text.str());
  ARROW_ASSIGN_OR_RAISE(auto pipeline, sql::CompilePipeline(session, sql, sql::ExecutionMode::kStreaming));
  if (pipeline.queries.size() != 1) {
    return Status::Invalid(sql_path, ": expected exactly one query, found ", pipeline.queries.size());
  }
  DataFrame frame = pipeline.queries[0].frame;
  if (o.dedup_kind == "all") frame = frame.dropDuplicates(o.dedup_columns);
  if (o.dedup_kind == "within") frame = frame.dropDuplicatesWithinWatermark(o.dedup_columns);
  if (!frame.ok()) return frame.status();
  std::filesystem::create_directories(out_dir);
  auto writer = frame.writeStream();
  writer.option("checkpointLocation", checkpoint).outputMode(o.output_mode);
  if (o.trigger == "once") {
    writer.trigger(Once());
  } else if (o.trigger == "available-now") {
    writer.trigger(AvailableNow());
  } else {
    return Status::Invalid("--trigger must be available-now or once, not '", o.trigger, "'");
  }
  writer.foreachBatch([out_dir](const std::shared_ptr<arrow::Table>& rows, int64_t batch_id) {
    return WriteBatchFile(out_dir + "/batch-" + std::to_string(batch_id) + ".arrow", rows);
  });
  ARROW_ASSIGN_OR_RAISE(auto query, writer.start());
  Status ended = query.awaitTermination();
  if (!o.progress.empty()) {
    std::ofstream out(o.progress, std::ios::trunc);
    for (const auto& p : query.recentProgress()) out << p << "\n";
    if (!out) return Status::IOError("cannot write ", o.progress);
  }
  return ended;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--sql") {
      o.sql_path = value;
    } else if (flag == "--checkpoint") {
      o.checkpoint = value;
    } else if (flag == "--out") {
      o.out_dir = value;
    } else if (flag == "--output-mode") {
      o.output_mode = value;
    } else if (flag == "--trigger") {
      o.trigger = value;
    } else if (flag == "--progress") {
      o.progress = value;
    } else if (flag == "--drop-duplicates" || flag == "--drop-duplicates-within-watermark") {
      o.dedup_kind = flag == "--drop-duplicates" ? "all" : "within";
      o.dedup_columns = SplitColumns(value);
    } else if (flag == "--conf" && value.find('=') != std::string::npos) {
      o.confs.emplace_back(value.substr(0, value.find('=')), value.substr(value.find('=') + 1));
    } else {
      std::cerr << "sql_batches: unknown or malformed argument '" << flag << " " << value << "'" << std::endl;
      return 2;
    }
  }
  if (o.sql_path.empty() || o.checkpoint.empty() || o.out_dir.empty()) {
    std::cerr << "sql_batches: --sql, --checkpoint and --out are required" << std::endl;
    return 2;
  }
  Status st = Run(o);
  return st.ok() ? 0 : Fail(st);
}
