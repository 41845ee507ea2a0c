// Catalogs: hadoop (vN + version hint, exclusive claim) and sql (SQLite; JDBC table layout,
// compare-and-swap), commit conflicts and the retry loop with concurrent writers.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>

#include "conf/sql_conf.h"
#include "iceberg/catalog.h"
#include "iceberg/catalog_config.h"
#include "iceberg/hadoop_catalog.h"
#include "iceberg/sql_connection.h"
#include "iceberg/table_ops.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::iceberg {
namespace {

using ::testing::HasSubstr;

using sluice::testing::TempDir;

std::shared_ptr<arrow::Schema> IdSchema() { return arrow::schema({arrow::field("id", arrow::int64())}); }

std::shared_ptr<arrow::Table> Ids(int64_t first, int64_t n) {
  arrow::Int64Builder b;
  for (int64_t i = first; i < first + n; ++i) EXPECT_OK(b.Append(i));
  return arrow::Table::Make(IdSchema(), {*b.Finish()});
}

// Appends rows [first, first + n) as one file, through the retry loop.
Status Append(Catalog* catalog, const TableIdent& ident, int64_t first, int64_t n) {
  auto fs = io::LocalFileSystem();
  ARROW_ASSIGN_OR_RAISE(auto table, LoadExisting(catalog, ident));
  const Schema schema = *table.metadata.CurrentSchema();
  ARROW_ASSIGN_OR_RAISE(auto rows, ConformToSchema(*Ids(first, n), schema, ident.ToString()));
  const TableFile at = TableFileAt(fs.get(), table.metadata, "data/" + std::to_string(first) + ".parquet");
  ARROW_RETURN_NOT_OK(fs->MakeDirs(TableFileAt(fs.get(), table.metadata, "data").path));
  ARROW_ASSIGN_OR_RAISE(auto file, WriteDataFile(fs.get(), at, *rows, schema));
  return CommitWithRetry(catalog, fs.get(), ident, [&](const LoadedTable&) -> Result<std::optional<SnapshotChange>> {
           SnapshotChange c;
           c.added = {file};
           return c;
         }).status();
}

std::vector<int64_t> SortedIds(Catalog* catalog, const TableIdent& ident) {
  auto table = LoadExisting(catalog, ident);
  EXPECT_OK(table);
  auto rows = ReadCurrentSnapshot(io::LocalFileSystem().get(), table->metadata);
  EXPECT_OK(rows);
  std::vector<int64_t> ids;
  auto col = (*rows)->GetColumnByName("id");
  for (const auto& chunk : col->chunks()) {
    auto a = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < a->length(); ++i) ids.push_back(a->Value(i));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int64_t> Range(int64_t a, int64_t b) {
  std::vector<int64_t> v;
  for (int64_t i = a; i < b; ++i) v.push_back(i);
  return v;
}

std::string fs_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

std::shared_ptr<Catalog> Hadoop(const TempDir& dir) {
  return *MakeCatalog("local", {{"type", "hadoop"}, {"warehouse", dir.Sub("wh")}}, io::LocalFileSystem());
}

std::shared_ptr<Catalog> Sql(const TempDir& dir) {
  auto c = MakeCatalog("lake", {{"type", "sql"}, {"uri", "sqlite:///" + dir.Sub("cat.db")}, {"warehouse", dir.Sub("wh")}},
                       io::LocalFileSystem());
  EXPECT_OK(c);
  return *c;
}

TEST(IcebergHadoopCatalog, CommitsClaimNextVersionAndUpdateTheHint) {
  TempDir dir;
  auto catalog = Hadoop(dir);
  TableIdent ident{{"db"}, "events"};
  ASSERT_OK(LoadOrCreate(catalog.get(), ident, *IdSchema()));
  ASSERT_OK(Append(catalog.get(), ident, 0, 5));
  ASSERT_OK(Append(catalog.get(), ident, 5, 5));
  const std::string meta = dir.Sub("wh/db/events/metadata");
  EXPECT_TRUE(std::filesystem::exists(meta + "/v3.metadata.json"));
  std::ifstream hint(meta + "/version-hint.text");
  std::string h;
  hint >> h;
  EXPECT_EQ(h, "3");
  EXPECT_EQ(SortedIds(catalog.get(), ident), Range(0, 10));
  auto table = *LoadExisting(catalog.get(), ident);
  EXPECT_EQ(table.metadata.metadata_log.size(), 2u);
  EXPECT_EQ(table.metadata.metadata_log.back().second, io::PathToUri(meta + "/v2.metadata.json"));
}

TEST(IcebergHadoopCatalog, AStaleBaseLosesCleanlyAndAStaleHintIsRepaired) {
  TempDir dir;
  auto catalog = Hadoop(dir);
  TableIdent ident{{"db"}, "events"};
  auto base = *LoadOrCreate(catalog.get(), ident, *IdSchema());
  ASSERT_OK(Append(catalog.get(), ident, 0, 3));  // v2 by "another writer"
  auto updated = base.metadata;
  auto st = catalog->Commit(ident, base, updated);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(IsCommitConflict(st.status())) << st.status().ToString();
  // A crash between the claim and the hint update: the hint says 1, v2 exists.
  const std::string meta = dir.Sub("wh/db/events/metadata");
  { std::ofstream(meta + "/version-hint.text") << "1"; }
  auto loaded = *LoadExisting(catalog.get(), ident);
  EXPECT_EQ(loaded.metadata_location, io::PathToUri(meta + "/v2.metadata.json"));
  std::ifstream hint(meta + "/version-hint.text");
  std::string h;
  hint >> h;
  EXPECT_EQ(h, "2");
}

TEST(IcebergSqlCatalog, UsesTheJdbcTableLayoutAndCompareAndSwap) {
  TempDir dir;
  auto catalog = Sql(dir);
  TableIdent ident{{"db"}, "events"};
  auto created = LoadOrCreate(catalog.get(), ident, *IdSchema());
  ASSERT_OK(created);
  EXPECT_THAT(created->metadata_location, HasSubstr("/wh/db.db/events/metadata/00000-"));
  ASSERT_OK(Append(catalog.get(), ident, 0, 4));
  auto conn = *OpenSqlConnection("sqlite:///" + dir.Sub("cat.db"));
  auto rows = *conn->Exec(
      "SELECT catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type "
      "FROM iceberg_tables");
  ASSERT_EQ(rows.rows.size(), 1u);
  EXPECT_EQ(*rows.rows[0][0], "lake");
  EXPECT_EQ(*rows.rows[0][1], "db");
  EXPECT_EQ(*rows.rows[0][2], "events");
  EXPECT_NE(rows.rows[0][3]->find("/metadata/00001-"), std::string::npos);
  EXPECT_EQ(*rows.rows[0][4], created->metadata_location);
  EXPECT_EQ(*rows.rows[0][5], "TABLE");
  auto ns = *conn->Exec("SELECT namespace, property_key, property_value FROM iceberg_namespace_properties");
  ASSERT_EQ(ns.rows.size(), 1u);
  EXPECT_EQ(*ns.rows[0][0], "db");

  // Committing on the stale create-time base loses, and leaves no metadata file behind.
  auto lost = catalog->Commit(ident, *created, created->metadata);
  EXPECT_TRUE(IsCommitConflict(lost.status())) << lost.status().ToString();
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.Sub("wh/db.db/events/metadata"))) {
    files += e.path().string().find(".metadata.json") != std::string::npos;
  }
  EXPECT_EQ(files, 2);
  EXPECT_EQ(*catalog->ListTables({"db"}), std::vector<std::string>{"events"});
}

// Two threads, each with its own catalog connection (like two processes), append 12 times.
void TwoConcurrentWriters(const std::function<std::shared_ptr<Catalog>()>& open) {
  TableIdent ident{{"db"}, "events"};
  ASSERT_OK(LoadOrCreate(open().get(), ident, *IdSchema()));
  constexpr int kPerWriter = 12;
  auto writer = [&](int w) {
    auto catalog = open();
    for (int i = 0; i < kPerWriter; ++i) {
      Status st = Append(catalog.get(), ident, (w * kPerWriter + i) * 10, 10);
      EXPECT_OK(st);
    }
  };
  std::thread a(writer, 0), b(writer, 1);
  a.join();
  b.join();
  auto catalog = open();
  EXPECT_EQ(SortedIds(catalog.get(), ident), Range(0, 2 * kPerWriter * 10));
  auto table = *LoadExisting(catalog.get(), ident);
  EXPECT_EQ(table.metadata.snapshots.size(), 2u * kPerWriter);
  EXPECT_EQ(table.metadata.CurrentSnapshot()->summary.at("total-records"), std::to_string(2 * kPerWriter * 10));
}

TEST(IcebergSqlCatalog, AFailedCreateLeavesNoNamespaceRowAndAMissingDirectoryIsNamed) {
  TempDir dir;
  std::ofstream(dir.Sub("wh-file")) << "not a directory";
  auto catalog = *MakeCatalog(
      "lake", {{"type", "sql"}, {"uri", "sqlite:///" + dir.Sub("cat.db")}, {"warehouse", dir.Sub("wh-file")}},
      io::LocalFileSystem());
  auto created = LoadOrCreate(catalog.get(), {{"db"}, "events"}, *IdSchema());
  ASSERT_FALSE(created.ok());
  auto conn = *OpenSqlConnection("sqlite:///" + dir.Sub("cat.db"));
  EXPECT_TRUE(conn->Exec("SELECT namespace FROM iceberg_namespace_properties")->rows.empty());
  EXPECT_TRUE(conn->Exec("SELECT table_name FROM iceberg_tables")->rows.empty());

  auto missing = MakeCatalog("lake", {{"type", "sql"}, {"uri", "sqlite:///" + dir.Sub("no/such/dir/cat.db")},
                                      {"warehouse", dir.Sub("wh")}},
                             io::LocalFileSystem());
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("its directory '" + dir.Sub("no/such/dir") + "' does not exist"));
}

TEST(IcebergSqlCatalog, TwoWritersCommittingConcurrentlyKeepEveryAppendOnce) {
  TempDir dir;
  TwoConcurrentWriters([&] { return Sql(dir); });
}

// A PostgreSQL server for the catalog test: SLUICE_TEST_POSTGRES_URI when set, otherwise a
// throwaway server started from Debian's binaries (tests/support/throwaway_postgres.sh).
class PostgresServer {
 public:
  PostgresServer() {
    if (const char* uri = std::getenv("SLUICE_TEST_POSTGRES_URI"); uri && *uri) {
      uri_ = uri;
      return;
    }
    script_ = std::string(SLUICE_SOURCE_DIR) + "/tests/support/throwaway_postgres.sh";
    std::string port = std::to_string(20000 + ::getpid() % 20000);
    std::string cmd = script_ + " start " + dir_.path() + " " + port + " 2>" + dir_.Sub("start.err");
    FILE* p = ::popen(cmd.c_str(), "r");
    char buf[512] = {0};
    if (p && std::fgets(buf, sizeof(buf), p)) uri_ = buf;
    int rc = p ? ::pclose(p) : -1;
    if (rc != 0) uri_.clear();
    while (!uri_.empty() && (uri_.back() == '\n' || uri_.back() == '\r')) uri_.pop_back();
    started_ = !uri_.empty();
  }
  ~PostgresServer() {
    if (started_) std::system((script_ + " stop " + dir_.path()).c_str());
  }
  const std::string& uri() const { return uri_; }

 private:
  TempDir dir_;
  std::string script_;
  std::string uri_;
  bool started_ = false;
};

TEST(IcebergSqlCatalog, PostgresCatalogKeepsEveryConcurrentAppendOnce) {
  PostgresServer server;
  if (server.uri().empty()) GTEST_SKIP() << "no PostgreSQL server binaries and SLUICE_TEST_POSTGRES_URI not set";
  const std::string uri = server.uri();
  TempDir dir;
  const std::string name = "pg_" + fs_name(dir.path());  // a fresh catalog_name per run
  TwoConcurrentWriters([&] {
    auto c = MakeCatalog(name, {{"type", "sql"}, {"uri", uri}, {"warehouse", dir.Sub("wh")}}, io::LocalFileSystem());
    EXPECT_OK(c);
    return *c;
  });
}

TEST(IcebergCatalogConfig, NamesResolveSparkStyleFromTheConf) {
  // Session settings, under the spark.X = sluice.X rule (conf/sql_conf.h).
  conf::Settings conf;
  conf.Set("sluice.sql.catalog.lake.type", "sql");
  conf.Set("spark.sql.catalog.lake.uri", "sqlite:////tmp/x.db");
  conf.Set("sluice.sql.catalog.lake.warehouse", "/tmp/wh");
  auto lookup = [&](const std::string& k) { return conf.GetOr(k, ""); };
  std::map<std::string, std::string> options = {{"table", "lake.db.events"}};
  AddCatalogOptions(&options, lookup);
  auto ref = TableRefFromOptions(options);
  ASSERT_OK(ref);
  EXPECT_EQ(ref->catalog, "lake");
  EXPECT_EQ(ref->ident.ToString(), "db.events");
  EXPECT_EQ(ref->catalog_props["type"], "sql");
  EXPECT_EQ(ref->catalog_props["uri"], "sqlite:////tmp/x.db");

  std::map<std::string, std::string> two = {{"table", "db.events"}};
  AddCatalogOptions(&two, lookup);
  auto local = *TableRefFromOptions(two);
  EXPECT_EQ(local.catalog, "local");
  EXPECT_EQ(local.catalog_props["type"], "hadoop");
  EXPECT_EQ(local.catalog_props["warehouse"], io::AbsolutePath("spark-warehouse"));

  auto bad = MakeCatalog("x", {{"type", "hive"}}, io::LocalFileSystem());
  EXPECT_THAT(bad.status().message(), HasSubstr("Valid types: hadoop, sql"));
}

}  // namespace
}  // namespace sluice::iceberg
