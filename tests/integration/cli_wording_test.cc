// Errors seen from the `sluice` command name its own flags and the SQL options, not the C++/Python
// API calls that set the same thing (outputMode(...), option("checkpointLocation"), withWatermark).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/pipeline_options.h"
#include "integration/test_util.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CliWordingTest : public ::testing::Test {
 protected:
  std::string Pipeline(const std::string& query, const std::string& sink = "format = 'parquet'") {
    const std::string root = dir_.Sub("p");
    std::filesystem::create_directories(root + "/in");
    std::ofstream(root + "/in/a.json") << "{\"who\":\"u1\",\"ts\":\"2024-05-01 10:00:00\"}\n";
    std::ofstream(root + "/q.sql") << "CREATE TABLE clicks (who TEXT, ts TIMESTAMP)\n"
                                      "  WITH (connector = 'files', format = 'json', path = '" + root + "/in');\n"
                                      "CREATE TABLE counts () WITH (connector = 'files', " + sink + ", path = '" +
                                          root + "/out');\n"
                                      "INSERT INTO counts " + query + ";\n";
    return root + "/q.sql";
  }
  int Sluice(const std::string& args) {
    return RunCommand(ToolPath("sluice") + " " + args + " </dev/null >" + dir_.Sub("stdout.txt") + " 2>" +
                      dir_.Sub("stderr.txt"));
  }
  std::string Stderr() { return ReadText(dir_.Sub("stderr.txt")); }
  std::string Stdout() { return ReadText(dir_.Sub("stdout.txt")); }
  TempDir dir_;
};

void ExpectNoApiSpelling(const std::string& text) {
  EXPECT_THAT(text, Not(HasSubstr("outputMode(")));
  EXPECT_THAT(text, Not(HasSubstr("withWatermark")));
  EXPECT_THAT(text, Not(HasSubstr("checkpointLocation")));
}

TEST_F(CliWordingTest, AppendAggregationWithoutWatermarkNamesFlagsAndSourceOptions) {
  const std::string q = Pipeline("SELECT who, count(*) AS n FROM clicks GROUP BY who");
  EXPECT_EQ(Sluice("run " + q + " --checkpoint " + dir_.Sub("ck") + " --trigger available-now"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("--output-mode update or --output-mode complete"));
  EXPECT_THAT(Stderr(), HasSubstr("source options event_time and watermark"));
  ExpectNoApiSpelling(Stderr());
  // explain prints the same verdicts in the same words.
  EXPECT_EQ(Sluice("explain " + q + " --output-mode append"), 1);
  EXPECT_THAT(Stdout(), HasSubstr("append: refused: "));
  EXPECT_THAT(Stdout(), HasSubstr("--output-mode update"));
  ExpectNoApiSpelling(Stdout());
}

TEST_F(CliWordingTest, MissingCheckpointNamesTheFlag) {
  const std::string q = Pipeline("SELECT who FROM clicks");
  EXPECT_EQ(Sluice("run " + q + " --trigger available-now"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("--checkpoint must be given"));
  EXPECT_THAT(Stderr(), HasSubstr("--checkpoint DIR"));
  ExpectNoApiSpelling(Stderr());
}

TEST_F(CliWordingTest, ChangedAggregationNamesCheckpointFlagAndReset) {
  const std::string ck = " --checkpoint " + dir_.Sub("ck") + " --trigger available-now --output-mode update";
  ASSERT_EQ(Sluice("run " + Pipeline("SELECT who, count(*) AS n FROM clicks GROUP BY who", "format = 'json'") +
                   ck), 1) << "file sinks only append";
  // A console sink accepts update: the state check is what refuses the second start.
  const std::string root = dir_.Sub("p");
  auto console = [&](const std::string& agg) {
    std::ofstream(root + "/c.sql") << "CREATE TABLE clicks (who TEXT, ts TIMESTAMP)\n"
                                      "  WITH (connector = 'files', format = 'json', path = '" + root + "/in');\n"
                                      "CREATE TABLE shown () WITH (connector = 'console');\n"
                                      "INSERT INTO shown SELECT who, " + agg + " AS n FROM clicks GROUP BY who;\n";
    return root + "/c.sql";
  };
  ASSERT_EQ(Sluice("run " + console("count(*)") + ck), 0) << Stderr();
  EXPECT_EQ(Sluice("run " + console("max(ts)") + ck), 1);
  EXPECT_THAT(Stderr(), HasSubstr("a new --checkpoint directory (or `sluice checkpoint reset` of this one)"));
  ExpectNoApiSpelling(Stderr());
}

TEST_F(CliWordingTest, BatchIntoNonEmptyDirectoryNamesModeFlag) {
  const std::string q = Pipeline("SELECT who FROM clicks");
  ASSERT_EQ(Sluice("batch " + q), 0) << Stderr();
  EXPECT_EQ(Sluice("batch " + q), 1);
  EXPECT_THAT(Stderr(), HasSubstr("--mode overwrite"));
  EXPECT_THAT(Stderr(), Not(HasSubstr("Set mode as")));
}

TEST(CliWording, LibraryMessagesKeepApiSpellingsCliReplacesThem) {
  EXPECT_EQ(cli::CliWording("Use outputMode(\"append\") or outputMode(\"complete\")."),
            "Use --output-mode append or --output-mode complete.");
  EXPECT_EQ(cli::CliWording("no change here"), "no change here");
}

}  // namespace
}  // namespace sluice::testing
