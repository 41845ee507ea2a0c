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

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "sluice/dataframe.h"
#include "sluice/query_manager.h"
#include "sluice/status.h"

namespace arrow {
class Schema;
class Table;
}  // namespace arrow

namespace sluice {

namespace detail {
struct Access;  // the library's own access to the private parts below
}

class DataStreamReader;
class DataFrameReader;

class Session : public std::enable_shared_from_this<Session> {
 public:
  static std::shared_ptr<Session> Make();
  /// Stops the queries this session started and waits for them (as stopping a SparkSession
  /// does): a query never outlives the session it writes into.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  DataStreamReader readStream();
  DataFrameReader read();
  /// A batch DataFrame over rows held in memory (Spark's createDataFrame); shares `rows`.
  Result<DataFrame> createDataFrame(std::shared_ptr<arrow::Table> rows);

  /// Session configuration. `spark.X` and `sluice.X` are two spellings of one setting: setting
  /// either replaces it, and conf() answers the same under both (the value set last wins).
  /// Keys and defaults: docs/configuration.md.
  void setConf(const std::string& key, const std::string& value);
  std::string conf(const std::string& key, const std::string& def = "") const;

  /// The queries this session started, and its listeners.
  StreamingQueryManager streams() const;

  /// Rows a memory sink (format "memory", queryName = name) holds.
  Result<std::shared_ptr<arrow::Table>> memoryTable(const std::string& name) const;

 private:
  friend struct detail::Access;
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
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
  /// Numbers and booleans are passed as Spark spells them: option("header", true) is "true",
  /// option("maxFilesPerTrigger", 10) is "10", option("x", 0.5) is "0.5".
  DataStreamReader& option(const std::string& key, int64_t value);
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  DataStreamReader& option(const std::string& key, Int value) { return option(key, std::to_string(value)); }
  DataStreamReader& option(const std::string& key, double value);
  DataStreamReader& option(const std::string& key, bool value);
  DataStreamReader& option(const std::string& key, const char* value) { return option(key, std::string(value)); }
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
  DataFrameReader& option(const std::string& key, int64_t value);
  template <typename Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
  DataFrameReader& option(const std::string& key, Int value) { return option(key, std::to_string(value)); }
  DataFrameReader& option(const std::string& key, double value);
  DataFrameReader& option(const std::string& key, bool value);
  DataFrameReader& option(const std::string& key, const char* value) { return option(key, std::string(value)); }
  DataFrameReader& options(const std::map<std::string, std::string>& kv);
  Result<DataFrame> load(const std::string& path);
  /// A source that reads no path (kafka: the records between startingOffsets and endingOffsets).
  Result<DataFrame> load();
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
