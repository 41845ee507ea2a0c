// Before and after a restart from the command line: `sluice explain --checkpoint` says what a
// restart would keep, change or refuse (the engine's own start check, nothing written), and
// `sluice checkpoint reset` starts a query over and hands its output directory to the next run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/checkpoint_command.h"
#include "integration/test_util.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

class CliRestartTest : public ::testing::Test {
 protected:
  // A pipeline reading JSON events from <root>/<in> into parquet files under <root>/out;
  // `query` is the INSERT's query.
  std::string Pipeline(const std::string& name, const std::string& query, const std::string& in = "in") {
    const std::string root = dir_.Sub("p");
    std::filesystem::create_directories(root);
    const std::string path = root + "/" + name + ".sql";
    std::ofstream(path) << "CREATE TABLE clicks (who TEXT, ts TIMESTAMP)\n"
                           "  WITH (connector = 'files', format = 'json', path = '" + root + "/" + in + "',\n"
                           "        event_time = 'ts', watermark = '1 minute');\n"
                           "CREATE TABLE counts () WITH (connector = 'files', format = 'parquet', path = '" + root +
                               "/out');\n"
                           "INSERT INTO counts " + query + ";\n";
    return path;
  }
  std::string Checkpoint() { return dir_.Sub("p") + "/ckpt"; }
  std::string LockHolder() { return ReadText(Checkpoint() + "/counts/lock"); }
  int Sluice(const std::string& args, const std::string& stdin_file = "/dev/null") {
    return RunCommand(ToolPath("sluice") + " " + args + " <" + stdin_file + " >" + dir_.Sub("stdout.txt") + " 2>" +
                      dir_.Sub("stderr.txt"));
  }
  std::string Stderr() { return ReadText(dir_.Sub("stderr.txt")); }
  std::string Stdout() { return ReadText(dir_.Sub("stdout.txt")); }
  void AddEvents(const std::string& name, int minute) {
    char ts[32];
    std::snprintf(ts, sizeof(ts), "2024-05-01 10:%02d:00", minute);
    WriteInputFile(dir_.Sub("p") + "/in", name, std::string("{\"who\":\"u1\",\"ts\":\"") + ts + "\"}\n");
  }
  int64_t OutputRows() {
    auto t = ReadSinkDir(dir_.Sub("p") + "/out");
    return t ? t->num_rows() : -1;
  }
  // Every file and directory under the checkpoint, with its size (what "nothing written" compares).
  // The lock file's size is left out: every run that starts, a refused one too, writes its pid
  // there, and a pid with one digit more makes it a byte longer. LockHolder() compares it.
  std::string Listing() {
    std::vector<std::string> lines;
    for (const auto& e : std::filesystem::recursive_directory_iterator(Checkpoint())) {
      const bool sized = e.is_regular_file() && e.path().filename() != "lock";
      lines.push_back(e.path().string() + (sized ? " " + std::to_string(e.file_size()) : ""));
    }
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }

  TempDir dir_;
};

constexpr const char* kWindowed =
    "SELECT window_start, window_end, who, count(*) AS n FROM clicks GROUP BY tumble(ts, INTERVAL '3 minutes'), who";

TEST_F(CliRestartTest, ExplainCheckpointSaysWhatIsKeptChangedOrRefused) {
  const std::string ckpt = " --checkpoint " + Checkpoint();
  const std::string first = Pipeline("first", kWindowed);
  AddEvents("a.json", 0);
  // Before any run: a new checkpoint.
  ASSERT_EQ(Sluice("explain " + first + ckpt), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("new: no checkpoint there yet"));

  AddEvents("b.json", 10);
  ASSERT_EQ(Sluice("run " + first + ckpt + " --trigger available-now"), 0) << Stderr();
  const std::string before = Listing();
  const std::string holder = LockHolder();
  ASSERT_THAT(holder, HasSubstr("\"pid\""));

  // The same pipeline: everything kept.
  ASSERT_EQ(Sluice("explain " + first + ckpt), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("kept: sink: parquet FileSink["));
  EXPECT_THAT(Stdout(), HasSubstr("kept: stateful operator 0: stateStoreSave"));
  EXPECT_THAT(Stdout(), HasSubstr("kept: plan: unchanged"));
  EXPECT_THAT(Stdout(), HasSubstr("verdict: the restart would continue"));

  // A stateless change (a filter before the aggregation): changed, allowed as in Spark.
  const std::string filtered = Pipeline(
      "filtered", "SELECT window_start, window_end, who, count(*) AS n FROM clicks WHERE who <> 'nobody' "
                  "GROUP BY tumble(ts, INTERVAL '3 minutes'), who");
  ASSERT_EQ(Sluice("explain " + filtered + ckpt), 0) << Stderr() << Stdout();
  EXPECT_THAT(Stdout(), HasSubstr("changed: plan (stateless parts may change"));
  EXPECT_THAT(Stdout(), HasSubstr("kept: stateful operator 0"));
  EXPECT_THAT(Stdout(), HasSubstr("verdict: the restart would continue"));

  // Another aggregate function changes the state's layout: refused, with the engine's reason,
  // and `sluice run` refuses it the same way.
  const std::string more = Pipeline(
      "more", "SELECT window_start, window_end, who, count(*) AS n, max(ts) AS last FROM clicks "
              "GROUP BY tumble(ts, INTERVAL '3 minutes'), who");
  EXPECT_EQ(Sluice("explain " + more + ckpt), 1) << Stdout();
  const std::string explained = Stdout();
  EXPECT_THAT(explained, HasSubstr("changed: stateful operator 0: was stateStoreSave"));
  EXPECT_THAT(explained, HasSubstr("verdict: the restart would be refused: "));
  // Explaining did not take the lock (the run below does, before it refuses).
  EXPECT_EQ(LockHolder(), holder);
  EXPECT_EQ(Sluice("run " + more + ckpt + " --trigger available-now"), 1);
  const std::string refused_holder = LockHolder();
  const std::string verdict = "would be refused: ";
  const size_t at = explained.find(verdict);
  ASSERT_NE(at, std::string::npos);
  EXPECT_THAT(Stderr(), HasSubstr(explained.substr(at + verdict.size(), 60)));

  // Another source folder: refused by the source check.
  const std::string moved = Pipeline("moved", kWindowed, "elsewhere");
  std::filesystem::create_directories(dir_.Sub("p") + "/elsewhere");
  EXPECT_EQ(Sluice("explain " + moved + ckpt), 1) << Stdout();
  EXPECT_THAT(Stdout(), HasSubstr("changed: source 0: was FileStreamSource["));
  EXPECT_THAT(Stdout(), HasSubstr("belongs to a different query"));

  // Explaining wrote nothing into the checkpoint.
  EXPECT_EQ(Listing(), before);
  EXPECT_EQ(LockHolder(), refused_holder);
}

TEST_F(CliRestartTest, ResetStartsOverAndHandsTheOutputDirectoryOver) {
  const std::string ckpt = " --checkpoint " + Checkpoint();
  const std::string query = Pipeline("q", "SELECT who, ts FROM clicks");
  AddEvents("a.json", 0);
  AddEvents("b.json", 1);
  ASSERT_EQ(Sluice("run " + query + ckpt + " --trigger available-now"), 0) << Stderr();
  ASSERT_EQ(OutputRows(), 2);
  const std::string before = Listing();

  // Without --yes and without a terminal: refused, nothing changed.
  EXPECT_EQ(Sluice("checkpoint reset " + Checkpoint() + "/counts"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("nothing was changed. Add --yes"));
  EXPECT_EQ(Listing(), before);
  // A new checkpoint on the same output is still refused by the owner check, which names reset.
  EXPECT_EQ(Sluice("run " + query + " --checkpoint " + dir_.Sub("other") + " --trigger available-now"), 1);
  EXPECT_THAT(Stderr(), HasSubstr("sluice checkpoint reset"));

  ASSERT_EQ(Sluice("checkpoint reset " + Checkpoint() + "/counts --yes"), 0) << Stderr();
  EXPECT_THAT(Stdout(), HasSubstr("released output directory"));
  EXPECT_FALSE(std::filesystem::exists(Checkpoint() + "/counts/metadata"));

  // The same pipeline starts over: a new query reads both files again and appends after what
  // the output holds (2 + 2 + the new file's row), with no refusal.
  AddEvents("c.json", 2);
  ASSERT_EQ(Sluice("run " + query + ckpt + " --trigger available-now"), 0) << Stderr();
  EXPECT_EQ(OutputRows(), 5);
  // And it continues as any query does: a restart adds only new rows.
  AddEvents("d.json", 3);
  ASSERT_EQ(Sluice("run " + query + ckpt + " --trigger available-now"), 0) << Stderr();
  EXPECT_EQ(OutputRows(), 6);
}

TEST_F(CliRestartTest, ResetAsksAndAnswerNoChangesNothing) {
  const std::string query = Pipeline("q", "SELECT who, ts FROM clicks");
  AddEvents("a.json", 0);
  ASSERT_EQ(Sluice("run " + query + " --checkpoint " + Checkpoint() + " --trigger available-now"), 0) << Stderr();
  const std::string before = Listing();
  cli::ResetArgs args;
  args.dir = Checkpoint() + "/counts";
  args.interactive = true;
  std::istringstream no("n\n");
  std::ostringstream out;
  Status st = cli::ResetCheckpoint(args, no, out);
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("Not confirmed"));
  EXPECT_THAT(out.str(), HasSubstr("[y/N]"));
  EXPECT_EQ(Listing(), before);
  std::istringstream yes("y\n");
  ASSERT_OK(cli::ResetCheckpoint(args, yes, out));
  EXPECT_NE(Listing(), before);
}

}  // namespace
}  // namespace sluice::testing
