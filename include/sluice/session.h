// The entry point: a Session owns configuration, the memory sink's tables and the queries it
// started. Create one with Session::Make().
//
//   auto session = sluice::Session::Make();
//   auto df = session->readStream().format("json").schema("id BIGINT, name STRING").load("in/");
//   auto q = df->filter(col("id") > lit(10))
//                .writeStream().format("parquet")
//                .option("checkpointLocation", "ckpt/").option("path", "out/")
//                .trigger(sluice::AvailableNow()).start();
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sluice/dataframe.h"
#include "sluice/query_manager.h"
#include "sluice/status.h"

namespace arrow {
class Schema;
class Table;
}  // namespace arrow

namespace sluice {

namespace io {
class FileSystem;
}
namespace sink {
class MemoryTables;
}
namespace runtime {
class QueryRegistry;
}

class DataStreamReader;
class DataFrameReader;

class Session : public std::enable_shared_from_this<Session> {
 public:
  static std::shared_ptr<Session> Make();
  /// For tests: every checkpoint, source-log and sink write goes through `fs`.
  static std::shared_ptr<Session> Make(std::shared_ptr<io::FileSystem> fs);
  ~Session();

  DataStreamReader readStream();
  DataFrameReader read();

  /// Session configuration ("sluice.sql.streaming.minBatchesToRetain", ...).
  void setConf(const std::string& key, const std::string& value);
  std::string conf(const std::string& key, const std::string& def = "") const;

  /// The queries this session started, and its listeners.
  StreamingQueryManager streams() const { return StreamingQueryManager(registry_); }

  /// Rows a memory sink (format "memory", queryName = name) holds.
  Result<std::shared_ptr<arrow::Table>> memoryTable(const std::string& name) const;

  const std::shared_ptr<io::FileSystem>& fs() const { return fs_; }
  const std::shared_ptr<runtime::QueryRegistry>& registry() const { return registry_; }
  sink::MemoryTables* memoryTables() const { return memory_tables_.get(); }

 private:
  explicit Session(std::shared_ptr<io::FileSystem> fs);

  std::shared_ptr<io::FileSystem> fs_;
  std::unique_ptr<sink::MemoryTables> memory_tables_;
  std::shared_ptr<runtime::QueryRegistry> registry_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> conf_;
};

/// session.readStream(): a streaming DataFrame over a source.
class DataStreamReader {
 public:
  explicit DataStreamReader(std::shared_ptr<Session> session) : session_(std::move(session)) {}
  DataStreamReader& format(const std::string& f);
  /// A DDL string: "id BIGINT, name STRING, ts TIMESTAMP".
  DataStreamReader& schema(const std::string& ddl);
  DataStreamReader& schema(std::shared_ptr<arrow::Schema> s);
  DataStreamReader& option(const std::string& key, const std::string& value);
  DataStreamReader& option(const std::string& key, int64_t value);
  DataStreamReader& options(const std::map<std::string, std::string>& kv);
  /// Checks the format, options, schema and path, naming what is wrong.
  Result<DataFrame> load(const std::string& path);
  /// For sources without a path: "rate", "rate-micro-batch", "socket".
  Result<DataFrame> load();

 private:
  std::shared_ptr<Session> session_;
  std::string format_;
  std::string ddl_;
  std::shared_ptr<arrow::Schema> schema_;
  std::map<std::string, std::string> options_;
};

/// session.read(): a static DataFrame; same formats and options as readStream(). Without a
/// schema, one is inferred from the files. A directory written by the file sink is read
/// through its _spark_metadata log: only committed files.
class DataFrameReader {
 public:
  explicit DataFrameReader(std::shared_ptr<Session> session) : session_(std::move(session)) {}
  DataFrameReader& format(const std::string& f);
  DataFrameReader& schema(const std::string& ddl);
  DataFrameReader& schema(std::shared_ptr<arrow::Schema> s);
  DataFrameReader& option(const std::string& key, const std::string& value);
  DataFrameReader& options(const std::map<std::string, std::string>& kv);
  Result<DataFrame> load(const std::string& path);
  /// The current snapshot of Iceberg table "catalog.ns.table" (same as format("iceberg").load(name)).
  Result<DataFrame> table(const std::string& name);

 private:
  std::shared_ptr<Session> session_;
  std::string format_;
  std::string ddl_;
  std::shared_ptr<arrow::Schema> schema_;
  std::map<std::string, std::string> options_;
};

}  // namespace sluice
