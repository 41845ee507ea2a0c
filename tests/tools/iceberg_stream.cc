// A streaming job for the Iceberg tests: JSON files in -> Iceberg table, through the public
// C++ API (writeStream().toTable(name)). With --fault it runs on a fault-injecting filesystem
// that _exits at a named point (e.g. point=iceberg_after_manifests,hits=2).
//
//   iceberg_stream --input IN --checkpoint CKPT --table lake.db.events
//                  [--catalog-type hadoop|sql] [--uri URI] [--warehouse WH]
//                  [--max-files-per-trigger N] [--target-file-size BYTES] [--fault SPEC]
//                  [--allow-other-queries true]   (sink option allowOtherQueries)
//                  [--partition-by TERMS]         (sink option partitionBy, e.g. "day, bucket(4, id)")
//   iceberg_stream --read --table lake.db.events [catalog flags]    prints the row count and ids
//   iceberg_stream --compact BYTES --table ... [catalog flags]      compaction (iceberg/maintenance.h)
//   iceberg_stream --expire-older-than DURATION --table ... [catalog flags]
//
// Input rows: {"id", "n", "price", "ratio", "ok", "name", "ts", "local_ts", "day", "amount"}.
#include <algorithm>
#include <iostream>
#include <map>
#include <string>

#include <arrow/api.h>

#include "api/access.h"
#include "iceberg/catalog_config.h"
#include "iceberg/maintenance.h"
#include "iceberg/metadata.h"
#include "io/fault_injection.h"
#include "tools/tool_args.h"
#include "sluice/sluice.h"
#include "util/duration.h"
#include "util/numbers.h"

using namespace sluice;

namespace {

constexpr const char* kSchema =
    "id BIGINT, n INT, price DOUBLE, ratio FLOAT, ok BOOLEAN, name STRING, ts TIMESTAMP, local_ts TIMESTAMP_NTZ, "
    "day DATE, amount DECIMAL(10,2)";

int Fail(const Status& st) {
  std::cerr << "iceberg_stream: " << st.ToString() << std::endl;
  return 1;
}

int Read(const std::shared_ptr<Session>& session, const std::string& table) {
  auto df = session->read().table(table);
  if (!df.ok()) return Fail(df.status());
  auto rows = df->collect();
  if (!rows.ok()) return Fail(rows.status());
  std::vector<int64_t> ids;
  auto col = (*rows)->GetColumnByName("id");
  for (const auto& chunk : col->chunks()) {
    auto a = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < a->length(); ++i) ids.push_back(a->Value(i));
  }
  std::sort(ids.begin(), ids.end());
  std::cout << "rows " << ids.size() << "\nids";
  for (auto id : ids) std::cout << " " << id;
  std::cout << "\nschema " << (*rows)->schema()->ToString(/*show_metadata=*/true) << std::endl;
  return 0;
}

// Compaction or snapshot expiry, as `sluice iceberg compact|expire-snapshots` run them.
int Maintain(const std::shared_ptr<Session>& session, const std::string& table, std::map<std::string, std::string>& args) {
  std::map<std::string, std::string> options = {{"table", table}};
  iceberg::AddCatalogOptions(&options, [&](const std::string& k) { return session->conf(k); });
  auto ref = iceberg::TableRefFromOptions(options);
  if (!ref.ok()) return Fail(ref.status());
  auto catalog = iceberg::MakeCatalog(ref->catalog, ref->catalog_props, api::FileSystemOf(*session));
  if (!catalog.ok()) return Fail(catalog.status());
  if (args.count("--compact")) {
    auto target = util::ParseInt64(args["--compact"], "--compact");
    if (!target.ok()) return Fail(target.status());
    auto r = iceberg::CompactTable(catalog->get(), api::FileSystemOf(*session).get(), ref->ident, *target);
    if (!r.ok()) return Fail(r.status());
    std::cout << "compacted " << r->rewritten_files << " -> " << r->added_files << std::endl;
    return 0;
  }
  auto age = util::ParseDurationMs("--expire-older-than", args["--expire-older-than"]);
  if (!age.ok()) return Fail(age.status());
  auto r = iceberg::ExpireSnapshots(catalog->get(), api::FileSystemOf(*session).get(), ref->ident, iceberg::NowMs() - *age);
  if (!r.ok()) return Fail(r.status());
  std::cout << "expired " << r->expired_snapshots << " deleted " << r->deleted_files << std::endl;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args = {{"--catalog-type", "hadoop"}};
  bool read = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--read") {
      read = true;
    } else if (i + 1 < argc) {
      args[a] = argv[++i];
    }
  }
  const std::string table = args["--table"];
  const std::string catalog = table.substr(0, table.find('.'));
  auto fs_or = tools::FileSystemFor(args);
  if (!fs_or.ok()) return Fail(fs_or.status());
  std::shared_ptr<io::FileSystem> fs = *fs_or;
  auto session = api::MakeSession(fs);
  const std::string prefix = "sluice.sql.catalog." + catalog + ".";
  session->setConf(prefix + "type", args["--catalog-type"]);
  if (args.count("--uri")) session->setConf(prefix + "uri", args["--uri"]);
  if (args.count("--warehouse")) session->setConf(prefix + "warehouse", args["--warehouse"]);
  if (read) return Read(session, table);
  if (args.count("--compact") || args.count("--expire-older-than")) return Maintain(session, table, args);

  for (const char* required : {"--input", "--checkpoint", "--table"}) {
    if (!args.count(required)) {
      std::cerr << "iceberg_stream: missing " << required << std::endl;
      return 2;
    }
  }
  auto reader = session->readStream().format("json").schema(kSchema);
  if (args.count("--max-files-per-trigger")) reader.option("maxFilesPerTrigger", args["--max-files-per-trigger"]);
  auto df = reader.load(args["--input"]);
  if (!df.ok()) return Fail(df.status());
  auto writer = df->writeStream().option("checkpointLocation", args["--checkpoint"]).trigger(AvailableNow());
  if (args.count("--target-file-size")) writer.option("target-file-size-bytes", args["--target-file-size"]);
  if (args.count("--allow-other-queries")) writer.option("allowOtherQueries", args["--allow-other-queries"]);
  if (args.count("--partition-by")) writer.option("partitionBy", args["--partition-by"]);
  auto query = writer.toTable(table);
  if (!query.ok()) return Fail(query.status());
  Status st = query->awaitTermination();
  if (!st.ok()) return Fail(st);
  std::cout << query->lastProgress() << std::endl;
  return 0;
}
