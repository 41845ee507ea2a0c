// The Iceberg connector from SQL and the `sluice iceberg` maintenance commands, end to end
// through the CLI: stream into a table, restart, read it back with `sluice batch`, compact,
// expire, and stream on exactly once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "integration/test_util.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

class CliIceberg : public ::testing::Test {
 protected:
  std::string Catalog() const {
    return "SET sluice.sql.catalog.lake.type = 'sql';\n"
           "SET sluice.sql.catalog.lake.uri = 'sqlite:///" + dir_.Sub("catalog.db") + "';\n"
           "SET sluice.sql.catalog.lake.warehouse = '" + dir_.Sub("wh") + "';\n";
  }
  std::string Conf() const {
    return " --conf sluice.sql.catalog.lake.type=sql --conf sluice.sql.catalog.lake.uri=sqlite:///" +
           dir_.Sub("catalog.db") + " --conf sluice.sql.catalog.lake.warehouse=" + dir_.Sub("wh");
  }
  int Sluice(const std::string& args) {
    return RunCommand(ToolPath("sluice") + " " + args + " >" + dir_.Sub("stdout") + " 2>" + dir_.Sub("stderr"));
  }
  std::string Stdout() const { return ReadText(dir_.Sub("stdout")); }
  std::string Stderr() const { return ReadText(dir_.Sub("stderr")); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_.Sub(name)) << text;
    return dir_.Sub(name);
  }
  // stream.sql: JSON files of in/ (`source_options` added to its WITH) into lake.db.events.
  std::string StreamPipeline(const std::string& source_options, const std::string& select) {
    return Write("stream.sql", Catalog() +
        "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE) WITH (connector = 'files', format = 'json', "
        "path = '" + dir_.Sub("in") + "'" + source_options + ");\n"
        "CREATE TABLE lake_events () WITH (connector = 'iceberg', catalog = 'lake', table = 'db.events');\n"
        "INSERT INTO lake_events " + select + " FROM events;\n");
  }
  // read.sql: the ids of lake.db.events (`batch --print` says how many rows).
  std::string ReadPipeline() {
    return Write("read.sql", Catalog() +
        "CREATE TABLE lake_events (id BIGINT, name TEXT, price DOUBLE) WITH (connector = 'iceberg', catalog = 'lake', "
        "table = 'db.events');\nSELECT id FROM lake_events WHERE id >= 0;\n");
  }
  TempDir dir_;
};

// `sluice checkpoint reset` hands an Iceberg table over to the next query at that checkpoint:
// it appends (the rows it reprocesses come again, as for a file sink), while a query at another
// checkpoint, or one whose checkpoint lost its metadata without a reset, is still refused.
TEST_F(CliIceberg, ResetReleasesTheTableToTheNextQueryAtThatCheckpointOnly) {
  std::string stream = StreamPipeline("", "SELECT id, name, price");
  std::string read = ReadPipeline();
  WriteInputFile(dir_.Sub("in"), "f0.json", JsonRows(0, 5));
  const std::string run = "run " + stream + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now";
  ASSERT_EQ(Sluice(run), 0) << Stderr();

  // Another checkpoint on the same table: refused, naming the query that wrote it.
  EXPECT_EQ(Sluice("run " + stream + " --checkpoint " + dir_.Sub("other") + " --trigger available-now"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("was written by streaming query"));

  ASSERT_EQ(Sluice("checkpoint reset " + dir_.Sub("ckpt") + "/lake_events --yes"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("released Iceberg table"));
  WriteInputFile(dir_.Sub("in"), "f1.json", JsonRows(5, 5));
  ASSERT_EQ(Sluice(run), 0) << Stderr();  // a new query: both files again
  ASSERT_EQ(Sluice("batch " + read + " --print"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("(15 rows)"));
  WriteInputFile(dir_.Sub("in"), "f2.json", JsonRows(10, 5));
  ASSERT_EQ(Sluice(run), 0) << Stderr();  // and then new files only
  ASSERT_EQ(Sluice("batch " + read + " --print"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("(20 rows)"));

  // The release is for the query the reset saw: its successor's checkpoint wiped by hand (no
  // reset; the release record left behind) is refused again.
  std::filesystem::remove(dir_.Sub("ckpt") + "/lake_events/metadata");
  EXPECT_EQ(Sluice(run), 1);
  EXPECT_THAT(Stderr(), HasSubstr("no 'metadata' file"));
  for (const char* entry : {"offsets", "commits", "sources", "state", "sink"}) {
    std::filesystem::remove_all(dir_.Sub("ckpt") + "/lake_events/" + entry);
  }
  EXPECT_EQ(Sluice(run), 1);
  EXPECT_THAT(Stderr(), HasSubstr("was written by streaming query"));
  EXPECT_EQ(Sluice("run " + stream + " --checkpoint " + dir_.Sub("other") + " --trigger available-now"), 1);
}

TEST_F(CliIceberg, StreamIntoATableRestartReadBackCompactAndExpire) {
  std::string stream = StreamPipeline(", max_files_per_trigger = 1", "SELECT id, upper(name) AS name, price");
  std::string read = ReadPipeline();
  for (int f = 0; f < 3; ++f) WriteInputFile(dir_.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 5, 5));
  std::string run = "run " + stream + " --checkpoint " + dir_.Sub("ckpt") + " --trigger available-now";
  ASSERT_EQ(Sluice(run), 0) << Stderr();
  for (int f = 3; f < 5; ++f) WriteInputFile(dir_.Sub("in"), "f" + std::to_string(f) + ".json", JsonRows(f * 5, 5));
  ASSERT_EQ(Sluice(run), 0) << Stderr();

  ASSERT_EQ(Sluice("batch " + read + " --print"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("(25 rows)"));

  // The pipeline file's SETs configure the catalog (no --conf needed).
  ASSERT_EQ(Sluice("iceberg compact lake.db.events --pipeline " + stream), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("lake.db.events: rewrote"));
  ASSERT_EQ(Sluice("iceberg expire-snapshots lake.db.events --older-than 0s" + Conf()), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("expired"));

  // After compaction and expiry the stream still knows what it committed: new files only.
  WriteInputFile(dir_.Sub("in"), "f5.json", JsonRows(25, 5));
  ASSERT_EQ(Sluice(run), 0) << Stderr();
  ASSERT_EQ(Sluice("batch " + read + " --print"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("(30 rows)"));

  auto bad = Write("bad.sql", Catalog() + "CREATE TABLE t () WITH (connector = 'iceberg', catalog = 'lake');\n"
                                          "CREATE TABLE s (id BIGINT) WITH (connector = 'files', format = 'json', path = '" +
                                          dir_.Sub("in") + "');\nINSERT INTO t SELECT id FROM s;\n");
  EXPECT_EQ(Sluice("run " + bad + " --checkpoint " + dir_.Sub("ckpt2")), 1);
  EXPECT_THAT(Stderr(), HasSubstr("needs option 'table'"));
}

// Ages that do not fit in 64-bit milliseconds, or are not durations, are a clear error (exit 1)
// naming the flag, not an uncaught exception.
TEST_F(CliIceberg, ExpireSnapshotsRefusesAnAgeThatIsNotAValidDuration) {
  for (const std::string age : {"99999999999999999999d", "9999999999999999d"}) {
    EXPECT_EQ(Sluice("iceberg expire-snapshots lake.db.events --older-than " + age + Conf()), 1) << age;
    EXPECT_THAT(Stderr(), HasSubstr("Invalid value '" + age + "' for option '--older-than': too large")) << age;
  }
  EXPECT_EQ(Sluice("iceberg expire-snapshots lake.db.events --older-than 7fortnights" + Conf()), 1);
  EXPECT_THAT(Stderr(), HasSubstr("Invalid value '7fortnights' for option '--older-than', must be a duration"));
}

}  // namespace
}  // namespace sluice::testing
