// Crash tests for stateful queries: a child process (tests/tools/stateful_stream.cc: event
// files -> withWatermark -> one stateful operator, or a stream-stream join -> sink) _exits at a named point of a batch
// (through the fault-injecting filesystem), twice; a restart on the same checkpoint finishes;
// the final result equals a never-stopped run's on the same input, row for row. The sinks make
// a duplicate or a loss visible: the parquet file sink (append mode) or, for complete mode, a
// foreachBatch that writes each batch to batch-<id>.jsonl, so the last file is the answer. The
// "sketches" job restores approx_count_distinct registers, a collect_set, a max_by pair and
// percentile_approx histograms (one percentage, and an array of them), beside a count(*) that
// shows a doubled row.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "integration/stateful_events.h"
#include "integration/test_util.h"

namespace sluice::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kFiles = 8;
constexpr int kEventsPerFile = 12;

// Event files part-NNN.json, oldest first (the file source orders by mtime, then name).
void WriteEventFiles(const TempDir& dir) {
  const auto batches = Cut(RandomEvents(/*seed=*/7, kFiles * kEventsPerFile), kFiles);
  const auto t0 = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (int f = 0; f < kFiles; ++f) {
    char name[32];
    std::snprintf(name, sizeof(name), "part-%03d.json", f);
    WriteInputFile(dir.Sub("in"), name, JsonLines(batches[static_cast<size_t>(f)]));
    fs::last_write_time(dir.Sub("in") + "/" + name, t0 + std::chrono::seconds(f));
  }
}

struct Job {
  std::string query;
  std::string provider = "file";
  int files_per_trigger = 2;
};

std::string Command(const TempDir& dir, const Job& job, const std::string& extra) {
  return ToolPath("stateful_stream") + " --query " + job.query + " --provider " + job.provider + " --partitions 2" +
         " --input " + dir.Sub("in") + " --checkpoint " + dir.Sub("ckpt") + " --output " + dir.Sub("out") +
         " --max-files-per-trigger " + std::to_string(job.files_per_trigger) + " " + extra + " >>" + dir.Sub("log") +
         " 2>&1";
}

// The query's final result: every row the parquet sink committed, or the last complete batch.
std::vector<std::string> FinalResult(const TempDir& dir, const Job& job) {
  if (job.query != "complete" && job.query != "sketches") return RowLines(ReadSinkDir(dir.Sub("out")));
  int64_t last = -1;
  for (const auto& e : fs::directory_iterator(dir.Sub("out"))) {
    const std::string name = e.path().filename().string();
    if (name.rfind("batch-", 0) == 0 && name.size() > 12 && name.substr(name.size() - 6) == ".jsonl") {
      last = std::max<int64_t>(last, std::stoll(name.substr(6, name.size() - 12)));
    }
  }
  std::vector<std::string> lines;
  std::ifstream in(dir.Sub("out") + "/batch-" + std::to_string(last) + ".jsonl");
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::string LogOf(const TempDir& dir) {
  std::ifstream in(dir.Sub("log"));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The never-stopped run of `job`, computed once per job.
const std::vector<std::string>& NeverStopped(const Job& job) {
  static std::mutex mu;
  static std::map<std::string, std::vector<std::string>> cache;
  std::lock_guard<std::mutex> lock(mu);
  const std::string key = job.query + "/" + job.provider + "/" + std::to_string(job.files_per_trigger);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  TempDir dir;
  WriteEventFiles(dir);
  EXPECT_EQ(RunCommand(Command(dir, job, "")), 0) << LogOf(dir);
  return cache[key] = FinalResult(dir, job);
}

struct KillCase {
  std::string query;
  std::string point;
  std::string provider;
};

class StatefulCrashTest : public ::testing::TestWithParam<KillCase> {};

TEST_P(StatefulCrashTest, KilledTwiceInABatchThenRestartedEqualsTheNeverStoppedRun) {
  const KillCase& c = GetParam();
  const Job job{c.query, c.provider};
  const auto& expected = NeverStopped(job);
  ASSERT_GE(expected.size(), 8u) << "the input should give a non-trivial result";
  TempDir dir;
  WriteEventFiles(dir);
  // 4 data batches (2 files each), then a no-data batch. The first child dies in the 2nd batch
  // that reaches the point; the second, after redoing that batch, in the next one.
  const std::string fault = "--fault point=" + c.point + ",hits=2";
  ASSERT_EQ(RunCommand(Command(dir, job, fault)), 42) << "no crash at " << c.point << "\n" << LogOf(dir);
  ASSERT_EQ(RunCommand(Command(dir, job, fault)), 42) << "no second crash at " << c.point << "\n" << LogOf(dir);
  ASSERT_EQ(RunCommand(Command(dir, job, "")), 0) << "restart failed\n" << LogOf(dir);
  EXPECT_EQ(FinalResult(dir, job), expected);
}

std::vector<KillCase> KillMatrix() {
  const std::vector<std::string> points = {"after_offsets_write", "during_state_commit", "after_state_commit",
                                           "after_sink_commit", "before_commit_log"};
  std::vector<KillCase> out;
  for (const std::string q : {"tumbling", "sliding", "session", "dedup", "dedup_within", "complete", "sketches"}) {
    for (const auto& p : points) out.push_back({q, p, "file"});
  }
  for (const std::string q : {"tumbling", "session", "dedup_within"}) {
    for (const auto& p : points) out.push_back({q, p, "rocksdb"});
  }
  // A stream-stream full outer join: both sides' state, outer rows from eviction. Every protocol
  // point by default; SLUICE_JOIN_KILLS=N keeps the first N of this order (the sanitizer run).
  const std::vector<std::string> join_points = {"after_offsets_write", "after_sink_commit", "during_state_commit",
                                                "before_commit_log",   "after_state_commit", "after_commit_log"};
  const int join_kills = KillsFromEnv("SLUICE_JOIN_KILLS", static_cast<int>(join_points.size()));
  for (int i = 0; i < join_kills; ++i) out.push_back({"stream_join", join_points[static_cast<size_t>(i)], "file"});
  return out;
}

std::string CaseName(const ::testing::TestParamInfo<KillCase>& info) {
  std::string name = info.param.query + "_" + info.param.point + "_" + info.param.provider;
  std::string out;
  bool upper = true;
  for (char ch : name) {
    if (ch == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
    upper = false;
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(KillMatrix, StatefulCrashTest, ::testing::ValuesIn(KillMatrix()), CaseName);

TEST(StatefulCrash, RocksDBWorkingDirectoriesStayWithTheCheckpointNotInTmpdir) {
  const Job job{"tumbling", "rocksdb"};
  TempDir dir;
  WriteEventFiles(dir);
  fs::create_directories(dir.Sub("tmp"));
  const std::string tmpdir = "TMPDIR=" + dir.Sub("tmp") + " ";
  ASSERT_EQ(RunCommand(tmpdir + Command(dir, job, "--fault point=after_state_commit,hits=2")), 42) << LogOf(dir);
  EXPECT_FALSE(fs::is_empty(dir.Sub("ckpt/rocksdb-local"))) << "the killed run's databases stay in its checkpoint";
  ASSERT_EQ(RunCommand(tmpdir + Command(dir, job, "")), 0) << LogOf(dir);
  EXPECT_FALSE(fs::exists(dir.Sub("ckpt/rocksdb-local"))) << "the restart removes the crashed run's databases and "
                                                             "its own on close";
  EXPECT_TRUE(fs::is_empty(dir.Sub("tmp"))) << "something was left in TMPDIR";
}

TEST(StatefulCrash, SigkillAtRandomMomentsThenRestartEqualsTheNeverStoppedRun) {
  const Job job{"sliding", "file", /*files_per_trigger=*/1};
  const auto& expected = NeverStopped(job);
  ASSERT_GE(expected.size(), 8u);
  TempDir dir;
  WriteEventFiles(dir);
  // SIGKILL at moments we do not choose, each run getting a bit further; then run to the end.
  // (--foreground: timeout kills only the run and reaps it, so the next run starts after the
  // killed one is gone; without it, timeout's SIGKILL to its process group ends timeout too and
  // the shell returns while a run slow to die, e.g. inside a sync, still holds the checkpoint.)
  int finished = 0;
  for (int i = 0; i < 8 && !finished; ++i) {
    const int rc = RunCommand("timeout --foreground -s KILL 0." + std::to_string(1 + i) + " " + Command(dir, job, ""));
    finished = rc == 0;
  }
  ASSERT_EQ(RunCommand(Command(dir, job, "")), 0) << LogOf(dir);
  EXPECT_EQ(FinalResult(dir, job), expected);
}

}  // namespace
}  // namespace sluice::testing
