// The spelling rule for settings, as queries see it: spark.X and sluice.X are one setting and
// the value set last wins; in `sluice run`, --conf comes after the file's SET statements.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "integration/test_util.h"

namespace sluice::testing {
namespace {

// The state partitions a checkpoint recorded in offsets/0.
int RecordedPartitions(const std::string& ckpt) {
  std::ifstream in(ckpt + "/offsets/0");
  std::string version, meta;
  std::getline(in, version);
  std::getline(in, meta);
  auto conf = nlohmann::json::parse(meta, nullptr, /*allow_exceptions=*/false)["conf"];
  if (!conf.is_object() || !conf.contains("spark.sql.shuffle.partitions")) return -1;
  return std::stoi(conf["spark.sql.shuffle.partitions"].get<std::string>());
}

Status RunCount(const std::shared_ptr<Session>& session, const std::string& ckpt) {
  MemoryStream input(session, "k STRING");
  ARROW_RETURN_NOT_OK(input.addJson(R"([{"k": "a"}, {"k": "b"}, {"k": "a"}])"));
  ARROW_ASSIGN_OR_RAISE(auto q, input.toDF()
                                    .groupBy(std::vector<std::string>{"k"})
                                    .count()
                                    .writeStream()
                                    .format("memory")
                                    .queryName("counts")
                                    .outputMode("complete")
                                    .option("checkpointLocation", ckpt)
                                    .trigger(AvailableNow())
                                    .start());
  return q.awaitTermination();
}

TEST(ConfTest, TheLastWrittenSpellingWinsForAQuery) {
  TempDir dir;
  {
    auto session = Session::Make();
    session->setConf("spark.sql.shuffle.partitions", "2");
    session->setConf("sluice.sql.shuffle.partitions", "3");
    ASSERT_OK(RunCount(session, dir.Sub("a")));
    EXPECT_EQ(RecordedPartitions(dir.Sub("a")), 3);
  }
  {
    auto session = Session::Make();
    session->setConf("sluice.sql.shuffle.partitions", "3");
    session->setConf("spark.sql.shuffle.partitions", "2");
    ASSERT_OK(RunCount(session, dir.Sub("b")));
    EXPECT_EQ(RecordedPartitions(dir.Sub("b")), 2);
  }
}

TEST(ConfTest, InvalidValuesNameTheKey) {
  TempDir dir;
  auto session = Session::Make();
  session->setConf("sluice.sql.shuffle.partitions", "0");
  Status st = RunCount(session, dir.Sub("ckpt"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("for spark.sql.shuffle.partitions: must be an integer in 1..4096"), std::string::npos)
      << st;
  session->setConf("spark.sql.shuffle.partitions", "2");
  session->setConf("spark.sql.streaming.multipleWatermarkPolicy", "maximum");
  st = RunCount(session, dir.Sub("ckpt"));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("Could not recognize watermark policy 'maximum' for "
                              "spark.sql.streaming.multipleWatermarkPolicy"), std::string::npos) << st;
}

TEST(ConfTest, CommandLineConfOverridesTheFilesSetWhateverTheSpelling) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("in"));
  WriteInputFile(dir.Sub("in"), "1.json", "{\"k\":\"a\"}\n{\"k\":\"b\"}\n");
  const std::string pipeline = dir.Sub("p.sql");
  std::ofstream(pipeline) << "SET sluice.sql.shuffle.partitions = 2;\n"
                             "CREATE TABLE src (k TEXT) WITH (connector = 'files', format = 'json', path = '" +
                                 dir.Sub("in") + "');\n"
                             "CREATE TABLE counts () WITH (connector = 'memory');\n"
                             "INSERT INTO counts SELECT k, count(*) AS n FROM src GROUP BY k;\n";
  const std::string run = ToolPath("sluice") + " run " + pipeline + " --checkpoint " + dir.Sub("ckpt") +
                          " --trigger available-now --output-mode complete";
  ASSERT_EQ(RunCommand(run + " --conf spark.sql.shuffle.partitions=3 >/dev/null 2>&1"), 0);
  EXPECT_EQ(RecordedPartitions(dir.Sub("ckpt/counts")), 3);
}

}  // namespace
}  // namespace sluice::testing
