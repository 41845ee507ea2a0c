// SQL structure end to end through the `sluice` command: UNION ALL of two file sources (one
// checkpoint holding both sources' offsets, killed with SIGKILL at moments we do not choose and
// restarted: every row exactly once; `sluice batch` gives the same rows), and a view read by two
// INSERTs; `sluice batch -e` with SELECT without FROM, and --print --limit.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "integration/test_util.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

// Kills of the UNION ALL run; SLUICE_UNION_KILLS lowers it for the sanitizer build.
int KillCount() {
  const char* v = std::getenv("SLUICE_UNION_KILLS");
  return v ? std::atoi(v) : 4;
}

std::string UnionPipeline(const TempDir& dir, const std::string& sink_dir) {
  std::string path = dir.Sub("union.sql");
  WriteText(path,
            "CREATE TABLE a (id BIGINT, name TEXT, price DOUBLE)\n"
            "  WITH (connector = 'files', format = 'json', path = '" + dir.Sub("in_a") + "', max_files_per_trigger = 1);\n"
            "CREATE TABLE b (id BIGINT, name TEXT, price DOUBLE)\n"
            "  WITH (connector = 'files', format = 'json', path = '" + dir.Sub("in_b") + "', max_files_per_trigger = 2);\n"
            "CREATE TABLE out () WITH (connector = 'files', format = 'json', path = '" + sink_dir + "');\n"
            "INSERT INTO out SELECT id, 'a' AS side FROM a UNION ALL SELECT id + 100000, 'b' FROM b;\n");
  return path;
}

std::vector<int64_t> Expected() {
  std::vector<int64_t> ids = Range(0, 150);
  for (int64_t i = 0; i < 100; ++i) ids.push_back(100000 + 1000 + i);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(SqlUnionAll, TwoFileSourcesKilledRepeatedlyAreWrittenExactlyOnce) {
  TempDir dir;
  for (int f = 0; f < 30; ++f) WriteInputFile(dir.Sub("in_a"), "a" + std::to_string(100 + f) + ".json", JsonRows(f * 5, 5));
  for (int f = 0; f < 20; ++f) {
    WriteInputFile(dir.Sub("in_b"), "b" + std::to_string(100 + f) + ".json", JsonRows(1000 + f * 5, 5));
  }
  const std::string pipeline = UnionPipeline(dir, dir.Sub("out"));
  const std::string run = ToolPath("sluice") + " run " + pipeline + " --checkpoint " + dir.Sub("ckpt");
  int killed = 0;
  for (int i = 0; i < KillCount(); ++i) {
    const int rc = RunCommand("timeout --foreground -s KILL 0." + std::to_string(3 + i) + " " + run +
                              " --trigger processing-time=20ms >>" + dir.Sub("log") + " 2>&1");
    killed += rc == 137;
  }
  EXPECT_GT(killed, 0) << "no run was killed mid-way; the test proves nothing";
  ASSERT_EQ(RunCommand(run + " --trigger available-now >>" + dir.Sub("log") + " 2>&1"), 0) << ReadText(dir.Sub("log"));
  auto rows = ReadSinkDir(dir.Sub("out"), "json");
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(SortedInts(rows, "id"), Expected());

  // One checkpoint, both sources: each offsets file lists two source offsets after the metadata.
  const fs::path offsets = fs::path(dir.Sub("ckpt")) / "out" / "offsets" / "0";
  std::istringstream lines(ReadText(offsets.string()));
  std::vector<std::string> all;
  for (std::string line; std::getline(lines, line);) all.push_back(line);
  ASSERT_EQ(all.size(), 4u) << "expected v1, metadata and two source offsets in " << offsets;
  EXPECT_NE(all[2].find("logOffset"), std::string::npos) << all[2];
  EXPECT_NE(all[3].find("logOffset"), std::string::npos) << all[3];

  // `sluice batch` over the same inputs writes the same rows.
  const std::string batch_pipeline = UnionPipeline(dir, dir.Sub("batch_out"));
  ASSERT_EQ(RunCommand(ToolPath("sluice") + " batch " + batch_pipeline + " >>" + dir.Sub("log") + " 2>&1"), 0)
      << ReadText(dir.Sub("log"));
  auto batch_rows = ReadSinkDir(dir.Sub("batch_out"), "json");
  ASSERT_NE(batch_rows, nullptr);
  EXPECT_EQ(SortedInts(batch_rows, "id"), Expected());
}

TEST(SqlViews, AViewFeedsTwoInsertsAndACteRefinesIt) {
  TempDir dir;
  for (int f = 0; f < 4; ++f) WriteInputFile(dir.Sub("in"), "e" + std::to_string(f) + ".json", JsonRows(f * 10, 10));
  const std::string path = dir.Sub("views.sql");
  WriteText(path,
            "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE)\n"
            "  WITH (connector = 'files', format = 'json', path = '" + dir.Sub("in") + "');\n"
            "CREATE TABLE evens () WITH (connector = 'files', format = 'json', path = '" + dir.Sub("evens") + "');\n"
            "CREATE TABLE big () WITH (connector = 'files', format = 'json', path = '" + dir.Sub("big") + "');\n"
            "CREATE TEMPORARY VIEW even AS SELECT id, price FROM events WHERE id % 2 = 0;\n"
            "INSERT INTO evens SELECT * FROM even;\n"
            "WITH top AS (SELECT id FROM even WHERE id >= 30) INSERT INTO big SELECT id FROM top;\n");
  ASSERT_EQ(RunCommand(ToolPath("sluice") + " run " + path + " --checkpoint " + dir.Sub("ckpt") +
                       " --trigger available-now >" + dir.Sub("log") + " 2>&1"),
            0)
      << ReadText(dir.Sub("log"));
  std::vector<int64_t> evens, big;
  for (int64_t i = 0; i < 40; i += 2) evens.push_back(i);
  for (int64_t i = 30; i < 40; i += 2) big.push_back(i);
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("evens"), "json"), "id"), evens);
  EXPECT_EQ(SortedInts(ReadSinkDir(dir.Sub("big"), "json"), "id"), big);
}

std::string Capture(const TempDir& dir, const std::string& args, int* rc) {
  *rc = RunCommand(ToolPath("sluice") + " " + args + " >" + dir.Sub("stdout") + " 2>" + dir.Sub("stderr"));
  return ReadText(dir.Sub("stdout")) + ReadText(dir.Sub("stderr"));
}

TEST(SqlBatch, InlineSqlWithoutFromPrintsOneRow) {
  TempDir dir;
  int rc = 0;
  const std::string out = Capture(dir, "batch -e \"SELECT 1 + 1 AS two, upper('a') AS letter\"", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("(1 rows)"), std::string::npos) << out;
  EXPECT_NE(out.find("|two|letter|"), std::string::npos) << out;
  EXPECT_NE(out.find("|2  |A     |"), std::string::npos) << out;
}

// UNION (distinct), INTERSECT and EXCEPT in `sluice batch`: distinct rows, NULL equal to NULL.
TEST(SqlBatch, SetOperationsGiveDistinctRowsWithNullsEqual) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "e.json", JsonRows(0, 10));
  const std::string table = "CREATE TABLE e (id BIGINT, name TEXT) WITH (connector = 'files', format = 'json', "
                            "path = '" + dir.Sub("in") + "'); ";
  auto run = [&](const std::string& select) {
    int rc = 0;
    const std::string out = Capture(dir, "batch --print -e \"" + table + select + "\"", &rc);
    EXPECT_EQ(rc, 0) << select << "\n" << out;
    return out;
  };
  // id % 3 is {0, 1, 2}; id % 5 over ids 6..9 is {1, 2, 3, 4}; id % 4 is {0, 1, 2, 3}.
  const std::string intersect =
      run("SELECT * FROM (SELECT id % 3 AS m FROM e INTERSECT SELECT id % 5 FROM e WHERE id > 5) s ORDER BY m");
  EXPECT_NE(intersect.find("(2 rows)"), std::string::npos) << intersect;
  EXPECT_NE(intersect.find("|1  |\n|2  |"), std::string::npos) << intersect;
  const std::string except = run("SELECT id % 3 AS m FROM e EXCEPT SELECT id % 5 FROM e WHERE id > 5");
  EXPECT_NE(except.find("(1 rows)"), std::string::npos) << except;
  EXPECT_NE(except.find("|0  |"), std::string::npos) << except;
  const std::string unioned = run("SELECT * FROM (SELECT id % 3 AS m FROM e UNION SELECT id % 4 FROM e) u ORDER BY m");
  EXPECT_NE(unioned.find("(4 rows)"), std::string::npos) << unioned;
  EXPECT_NE(unioned.find("|0  |\n|1  |\n|2  |\n|3  |"), std::string::npos) << unioned;
  // Left {NULL, 0, 1}, right {NULL, 5}: only NULL is in both, and EXCEPT keeps 0 and 1.
  const std::string nulls = run("SELECT CASE WHEN id < 2 THEN NULL ELSE id % 2 END AS m FROM e INTERSECT "
                                "SELECT CASE WHEN id > 8 THEN NULL ELSE 5 END FROM e");
  EXPECT_NE(nulls.find("(1 rows)"), std::string::npos) << nulls;
  const std::string kept = run("SELECT CASE WHEN id < 2 THEN NULL ELSE id % 2 END AS m FROM e EXCEPT "
                               "SELECT CASE WHEN id > 8 THEN NULL ELSE 5 END FROM e");
  EXPECT_NE(kept.find("(2 rows)"), std::string::npos) << kept;
  // Spark's generator alias list names posexplode's two columns.
  const std::string exploded = run("SELECT id, posexplode(split(name, 'n')) AS (i, part) FROM e WHERE id = 3");
  EXPECT_NE(exploded.find("(2 rows)"), std::string::npos) << exploded;
  EXPECT_NE(exploded.find("|id |i  |part|"), std::string::npos) << exploded;
}

TEST(SqlBatch, PrintLimitShowsTheFirstRowsAndTheTotal) {
  TempDir dir;
  WriteInputFile(dir.Sub("in"), "e.json", JsonRows(0, 10));
  int rc = 0;
  const std::string sql = "CREATE TABLE e (id BIGINT, name TEXT) WITH (connector = 'files', format = 'json', path = '" +
                          dir.Sub("in") + "'); SELECT id, name FROM e";
  const std::string out = Capture(dir, "batch --print --limit 3 -e \"" + sql + "\"", &rc);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("(10 rows, first 3 shown)"), std::string::npos) << out;
  EXPECT_NE(out.find("n2"), std::string::npos) << out;
  EXPECT_EQ(out.find("n3"), std::string::npos) << out;
  const std::string described = Capture(dir, "batch -e \"CREATE TABLE p () WITH (connector = 'files', format = 'json', "
                                             "path = '" + dir.Sub("in") + "'); DESCRIBE TABLE p\"", &rc);
  ASSERT_EQ(rc, 0) << described;
  EXPECT_NE(described.find("-- as DDL: (id BIGINT, name STRING, price DOUBLE)"), std::string::npos) << described;
  // Spark's short spellings: DESC t and DESC TABLE t describe the same table.
  for (const std::string stmt : {"DESC p", "desc  TABLE p"}) {
    const std::string short_form = Capture(dir, "batch -e \"CREATE TABLE p () WITH (connector = 'files', format = "
                                                "'json', path = '" + dir.Sub("in") + "'); " + stmt + "\"", &rc);
    ASSERT_EQ(rc, 0) << stmt << ": " << short_form;
    EXPECT_NE(short_form.find("-- as DDL: (id BIGINT, name STRING, price DOUBLE)"), std::string::npos) << short_form;
  }
  const std::string unknown = Capture(dir, "batch -e \"DESC TABLE nope\"", &rc);
  EXPECT_NE(rc, 0);
  EXPECT_NE(unknown.find(":1:12: unknown table 'nope'"), std::string::npos) << unknown;
  // current_timestamp() in a batch query: one instant, the date of which is current_date().
  const std::string now = Capture(dir, "batch --print -e \"SELECT current_date() = to_date(now()) AS same, "
                                       "CURRENT_TIMESTAMP = current_timestamp() AS one\"", &rc);
  ASSERT_EQ(rc, 0) << now;
  EXPECT_NE(now.find("|true|true|"), std::string::npos) << now;
  Capture(dir, "batch --print", &rc);
  EXPECT_NE(rc, 0) << "neither a file nor -e must be refused";
}

}  // namespace
}  // namespace sluice::testing
