// Stream-static joins through the C++ API and SQL: every join type against a dimension table
// (files read with read()), NULL and duplicate keys, the dimension changing between batches
// with the version each batch used recorded in the offsets log (a redone batch joins against
// the same version), the refusals Spark makes, the size limit, and the same SQL as a batch job.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "api/access.h"
#include "cli/pipeline_launch.h"
#include "integration/stateful_events.h"
#include "integration/test_util.h"
#include "sluice/sluice.h"
#include "sql/sql_pipeline.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr const char* kDimSchema = "user STRING, name STRING";

struct JoinFixture {
  TempDir dir;
  std::shared_ptr<Session> session = Session::Make();
  MemoryStream clicks{session, "user STRING, v BIGINT"};

  JoinFixture() { fs::create_directories(dir.Sub("dim")); }
  void AddDim(const std::string& file, const std::string& lines) { WriteInputFile(dir.Sub("dim"), file, lines); }
  DataFrame Dim() const { return session->read().format("json").schema(kDimSchema).load(dir.Sub("dim")).ValueOrDie(); }

  // Runs `df` to the end (availableNow), collecting each batch's rows by batch id.
  Status Run(const DataFrame& df, std::map<int64_t, std::vector<std::string>>* batches) {
    ARROW_ASSIGN_OR_RAISE(auto q, df.writeStream()
                                      .option("checkpointLocation", dir.Sub("ckpt"))
                                      .foreachBatch([batches](const std::shared_ptr<arrow::Table>& t, int64_t id) {
                                        (*batches)[id] = RowLines(t);
                                        return Status::OK();
                                      })
                                      .trigger(AvailableNow())
                                      .start());
    return q.awaitTermination();
  }
};

std::vector<std::string> All(const std::map<int64_t, std::vector<std::string>>& batches) {
  std::vector<std::string> out;
  for (const auto& [id, rows] : batches) out.insert(out.end(), rows.begin(), rows.end());
  std::sort(out.begin(), out.end());
  return out;
}

// Clicks: a user with two dimension rows, one with none, a NULL user.
void AddClicks(JoinFixture* f) {
  ASSERT_OK(f->clicks.addJson(R"([{"user":"a","v":1},{"user":"b","v":2},{"user":"zz","v":3},{"user":null,"v":4}])")
                .status());
}

TEST(StreamStaticJoin, EveryJoinTypeOnColumnNames) {
  const std::map<std::string, std::vector<std::string>> expected = {
      {"inner", {"a|1|alice", "b|2|bob", "b|2|bobby"}},
      {"left_outer", {"a|1|alice", "b|2|bob", "b|2|bobby", "null|4|null", "zz|3|null"}},
      {"left_semi", {"a|1", "b|2"}},
      {"left_anti", {"null|4", "zz|3"}},
  };
  for (const auto& [how, rows] : expected) {
    JoinFixture f;
    f.AddDim("d1.json", "{\"user\":\"a\",\"name\":\"alice\"}\n{\"user\":\"b\",\"name\":\"bob\"}\n"
                        "{\"user\":\"b\",\"name\":\"bobby\"}\n{\"user\":null,\"name\":\"nobody\"}\n");
    AddClicks(&f);
    DataFrame joined = f.clicks.toDF().join(f.Dim(), "user", how);
    ASSERT_OK(joined.status()) << how;
    std::map<int64_t, std::vector<std::string>> batches;
    ASSERT_OK(f.Run(joined, &batches)) << how;
    EXPECT_EQ(All(batches), rows) << how;
  }
}

TEST(StreamStaticJoin, ConditionWithResidualAndStaticSideOnTheLeft) {
  JoinFixture f;
  f.AddDim("d1.json", "{\"user\":\"a\",\"name\":\"alice\"}\n{\"user\":\"b\",\"name\":\"bob\"}\n");
  AddClicks(&f);
  DataFrame dim = f.Dim().withColumnRenamed("user", "id");
  // Inner with the static side on the left; the residual keeps only v >= 2.
  DataFrame joined = dim.join(f.clicks.toDF(), col("id") == col("user") && col("v") >= lit(int64_t{2}), "inner");
  ASSERT_OK(joined.status());
  EXPECT_THAT(api::PhysicalPlanText(joined), HasSubstr("HashJoinExec inner [id = user] residual"));
  std::map<int64_t, std::vector<std::string>> batches;
  ASSERT_OK(f.Run(joined, &batches));
  EXPECT_EQ(All(batches), (std::vector<std::string>{"b|bob|b|2"}));
}

TEST(StreamStaticJoin, RefusesWhatSparkRefuses) {
  JoinFixture f;
  f.AddDim("d1.json", "{\"user\":\"a\",\"name\":\"alice\"}\n");
  EXPECT_THAT(f.clicks.toDF().join(f.Dim(), "user", "right").status().message(),
              HasSubstr("right_outer join with a streaming DataFrame/Dataset on the left and a static"));
  EXPECT_THAT(f.clicks.toDF().join(f.Dim(), "user", "full").status().message(), HasSubstr("full_outer join"));
  EXPECT_THAT(f.Dim().join(f.clicks.toDF(), "user", "left").status().message(),
              HasSubstr("streaming DataFrame/Dataset on the right"));
  EXPECT_THAT(f.Dim().join(f.clicks.toDF(), "user", "left_anti").status().message(),
              HasSubstr("Put the stream on the left"));
  EXPECT_THAT(f.clicks.toDF().join(f.clicks.toDF(), "user", "anti").status().message(),
              HasSubstr("left_anti join between two streaming DataFrames/Datasets is not supported"));
  EXPECT_THAT(f.clicks.toDF().join(f.Dim(), "user", "sideways").status().message(),
              HasSubstr("Unsupported join type 'sideways'"));
  EXPECT_THAT(f.clicks.toDF().join(f.Dim(), col("user") == col("name")).status().message(),
              HasSubstr("column 'user' is on both sides"));
  // Right outer with the stream on the right is Spark's mirror of left outer: allowed.
  EXPECT_OK(f.Dim().join(f.clicks.toDF(), "user", "right").status());
}

TEST(StreamStaticJoin, DimensionChangesAtBatchBoundariesAndRedoUsesTheRecordedVersion) {
  JoinFixture f;
  f.AddDim("d1.json", "{\"user\":\"a\",\"name\":\"alice\"}\n");
  DataFrame joined = f.clicks.toDF().join(f.Dim(), "user", "left");
  std::map<int64_t, std::vector<std::string>> batches;
  ASSERT_OK(f.clicks.addJson(R"([{"user":"a","v":1},{"user":"b","v":2}])").status());
  ASSERT_OK(f.Run(joined, &batches));
  // A new dimension file alone starts no batch.
  f.AddDim("d2.json", "{\"user\":\"b\",\"name\":\"bob\"}\n");
  ASSERT_OK(f.Run(joined, &batches));
  EXPECT_EQ(batches.size(), 1u);
  ASSERT_OK(f.clicks.addJson(R"([{"user":"b","v":3}])").status());
  ASSERT_OK(f.Run(joined, &batches));
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0], (std::vector<std::string>{"a|1|alice", "b|2|null"}));
  EXPECT_EQ(batches[1], (std::vector<std::string>{"b|3|bob"}));
  const std::string offsets1 = ReadText(f.dir.Sub("ckpt/offsets/1"));
  EXPECT_THAT(offsets1, HasSubstr("d2.json")) << offsets1;
  EXPECT_THAT(ReadText(f.dir.Sub("ckpt/offsets/0")), ::testing::Not(HasSubstr("d2.json")));

  // Crash before commits/1: the restart redoes batch 1 against the version offsets/1 recorded,
  // although the dimension has changed again since.
  fs::remove(f.dir.Sub("ckpt/commits/1"));
  f.AddDim("d3.json", "{\"user\":\"b\",\"name\":\"robert\"}\n");
  std::map<int64_t, std::vector<std::string>> redo;
  ASSERT_OK(f.Run(joined, &redo));
  ASSERT_EQ(redo.size(), 1u);
  EXPECT_EQ(redo[1], batches[1]);
  // The next batch sees the newest version.
  ASSERT_OK(f.clicks.addJson(R"([{"user":"b","v":4}])").status());
  ASSERT_OK(f.Run(joined, &redo));
  EXPECT_EQ(redo[2], (std::vector<std::string>{"b|4|bob", "b|4|robert"}));

  // A redone batch whose recorded file has changed is refused, naming the file.
  fs::remove(f.dir.Sub("ckpt/commits/2"));
  f.AddDim("d2.json", "{\"user\":\"b\",\"name\":\"bob, rewritten in place\"}\n");
  Status st = f.Run(joined, &redo);
  EXPECT_THAT(st.message(), HasSubstr("d2.json"));
  EXPECT_THAT(st.message(), HasSubstr("redone batch must join against the same data"));
}

TEST(StreamStaticJoin, StaticSideOverTheSizeLimitFailsNamingTheSetting) {
  JoinFixture f;
  f.AddDim("d1.json", "{\"user\":\"a\",\"name\":\"alice\"}\n{\"user\":\"b\",\"name\":\"bob\"}\n");
  f.session->setConf("sluice.sql.join.maxBuildSideBytes", "16");
  AddClicks(&f);
  std::map<int64_t, std::vector<std::string>> batches;
  Status st = f.Run(f.clicks.toDF().join(f.Dim(), "user"), &batches);
  EXPECT_THAT(st.message(), HasSubstr("sluice.sql.join.maxBuildSideBytes"));
  f.session->setConf("sluice.sql.join.maxBuildSideBytes", "-1");
  EXPECT_THAT(f.clicks.toDF().join(f.Dim(), "user").status().message(), HasSubstr("must be a number of bytes"));
}

TEST(BatchJoin, EveryTypeIncludingRightAndFullOuter) {
  JoinFixture f;
  f.AddDim("d1.json", "{\"user\":\"a\",\"name\":\"alice\"}\n{\"user\":\"q\",\"name\":\"quinn\"}\n");
  WriteInputFile(f.dir.Sub("facts"), "f.json", "{\"user\":\"a\",\"v\":1}\n{\"user\":\"zz\",\"v\":3}\n");
  auto facts = f.session->read().format("json").schema("user STRING, v BIGINT").load(f.dir.Sub("facts")).ValueOrDie();
  auto rows = [&](const std::string& how) {
    return RowLines(facts.join(f.Dim(), "user", how).collect().ValueOrDie());
  };
  EXPECT_EQ(rows("right"), (std::vector<std::string>{"a|1|alice", "q|null|quinn"}));
  EXPECT_EQ(rows("full"), (std::vector<std::string>{"a|1|alice", "q|null|quinn", "zz|3|null"}));
  EXPECT_EQ(rows("inner"), (std::vector<std::string>{"a|1|alice"}));
}

// The same SQL as a stream (one file per batch) and as a batch job gives the same rows.
TEST(SqlJoin, StreamStaticSqlEqualsTheBatchJob) {
  TempDir dir;
  WriteInputFile(dir.Sub("clicks"), "c1.json", "{\"uid\":\"a\",\"v\":1}\n{\"uid\":\"b\",\"v\":2}\n");
  WriteInputFile(dir.Sub("clicks"), "c2.json", "{\"uid\":\"zz\",\"v\":3}\n{\"uid\":null,\"v\":4}\n");
  WriteInputFile(dir.Sub("uids"), "u.json",
                 "{\"uid\":\"a\",\"name\":\"alice\"}\n{\"uid\":\"b\",\"name\":\"bob\"}\n{\"uid\":\"b\",\"name\":\"bo\"}\n");
  const std::vector<std::string> selects = {
      "SELECT c.uid, c.v, u.name FROM clicks c JOIN uids u ON c.uid = u.uid",
      "SELECT c.uid, v, name FROM clicks c LEFT JOIN uids u ON c.uid = u.uid AND v > 1",
      "SELECT * FROM clicks LEFT SEMI JOIN uids ON clicks.uid = uids.uid",
      "SELECT * FROM clicks c LEFT ANTI JOIN uids u ON c.uid = u.uid",
      "SELECT uid, v, name FROM clicks JOIN uids USING (uid) WHERE v < 2",
      // A WITH name, a view and a subquery as join sides: static when they read only static tables.
      "WITH named AS (SELECT uid, upper(name) AS big FROM uids WHERE name <> 'bo') "
      "SELECT c.uid, v, big FROM clicks c JOIN named n ON c.uid = n.uid",
      "SELECT s.uid, doubled, name FROM shown s LEFT JOIN uids ON s.uid = uids.uid",
      "SELECT c.uid, v, len FROM clicks c JOIN (SELECT uid AS id, length(name) AS len FROM uids) l ON c.uid = l.id",
  };
  for (size_t i = 0; i < selects.size(); ++i) {
    auto text = [&](const std::string& out) {
      return "CREATE TABLE clicks (uid TEXT, v BIGINT) WITH (connector = 'files', format = 'json', path = '" +
             dir.Sub("clicks") + "', max_files_per_trigger = 1);\n"
             "CREATE TABLE uids (uid TEXT, name TEXT) WITH (connector = 'files', format = 'json', path = '" +
             dir.Sub("uids") + "', static = true);\n"
             "CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '" + out + "');\n"
             "CREATE VIEW shown AS SELECT uid, v * 2 AS doubled FROM clicks;\n"
             "INSERT INTO out " + selects[i] + ";\n";
    };
    const std::string n = std::to_string(i);
    auto stream_session = Session::Make();
    sql::SqlText stream_sql("stream.sql", text(dir.Sub("stream" + n)));
    ASSERT_OK_AND_ASSIGN(auto pipeline, sql::CompilePipeline(stream_session, stream_sql, sql::ExecutionMode::kStreaming));
    cli::StreamOptions options;
    options.checkpoint_root = dir.Sub("ckpt" + n);
    options.trigger = AvailableNow();
    ASSERT_OK_AND_ASSIGN(auto query, cli::StartStreamingQuery(pipeline.queries.at(0), options));
    ASSERT_OK(query.awaitTermination());
    EXPECT_THAT(query.lastProgress(), HasSubstr("\"batchId\":1")) << selects[i];

    auto batch_session = Session::Make();
    sql::SqlText batch_sql("batch.sql", text(dir.Sub("batch" + n)));
    ASSERT_OK_AND_ASSIGN(auto batch, sql::CompilePipeline(batch_session, batch_sql, sql::ExecutionMode::kBatch));
    ASSERT_OK(cli::RunBatchQuery(batch.queries.at(0), "error", /*write_files=*/true).status());
    auto streamed = RowLines(ReadSinkDir(dir.Sub("stream" + n)));
    std::sort(streamed.begin(), streamed.end());
    auto batched = RowLines(ReadSinkDir(dir.Sub("batch" + n)));
    std::sort(batched.begin(), batched.end());
    EXPECT_FALSE(streamed.empty()) << selects[i];
    EXPECT_EQ(streamed, batched) << selects[i];
  }
}

TEST(SqlJoin, RefusalsAreLocated) {
  TempDir dir;
  fs::create_directories(dir.Sub("in"));
  auto compile = [&](const std::string& select) {
    std::string text = "CREATE TABLE s (uid TEXT, v BIGINT) WITH (connector = 'files', format = 'json', path = '" +
                       dir.Sub("in") + "');\n"
                       "CREATE TABLE d (uid TEXT, name TEXT) WITH (connector = 'files', format = 'json', path = '" +
                       dir.Sub("in") + "', static = true);\n"
                       "CREATE TABLE out () WITH (connector = 'console');\nINSERT INTO out " + select + ";\n";
    sql::SqlText sql("p.sql", text);
    return sql::CompilePipeline(Session::Make(), sql, sql::ExecutionMode::kStreaming).status();
  };
  EXPECT_THAT(compile("SELECT * FROM s FULL JOIN d ON s.uid = d.uid").message(), HasSubstr("full_outer join"));
  EXPECT_THAT(compile("SELECT * FROM d LEFT JOIN s ON s.uid = d.uid").message(),
              HasSubstr("streaming DataFrame/Dataset on the right"));
  EXPECT_THAT(compile("SELECT * FROM s NATURAL JOIN d").message(), HasSubstr("NATURAL JOIN is not supported"));
  EXPECT_OK(compile("SELECT s.uid, name FROM s LEFT JOIN d ON s.uid = d.uid"));
}

// Kill at a protocol point of the 2nd batch of a stream-static left join, change the dimension
// while the job is down, restart: the redone batch joins the version its offsets entry recorded,
// the later ones the new version, so the result equals a run that never stopped and whose
// dimension changed after that batch.
class StaticJoinCrashTest : public ::testing::TestWithParam<std::string> {};

std::string JoinJobCommand(const TempDir& dir, const std::string& extra) {
  return ToolPath("stateful_stream") + " --query static_join --input " + dir.Sub("in") + " --dim " + dir.Sub("dim") +
         " --checkpoint " + dir.Sub("ckpt") + " --output " + dir.Sub("out") + " --max-files-per-trigger 2 " + extra +
         " >>" + dir.Sub("log") + " 2>&1";
}

// Event files part-000 .. part-007 (oldest first); `first`..`last` of them only.
void WriteJoinEvents(const TempDir& dir, int first, int last) {
  const auto batches = Cut(RandomEvents(/*seed=*/11, 8 * 6), 8);
  const auto t0 = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (int f = first; f <= last; ++f) {
    char name[32];
    std::snprintf(name, sizeof(name), "part-%03d.json", f);
    WriteInputFile(dir.Sub("in"), name, JsonLines(batches[static_cast<size_t>(f)]));
    fs::last_write_time(dir.Sub("in") + "/" + name, t0 + std::chrono::seconds(f));
  }
}

const char* kDimBefore = "{\"k\":\"a\",\"name\":\"ann\"}\n";
const char* kDimAdded = "{\"k\":\"b\",\"name\":\"ben\"}\n{\"k\":\"a\",\"name\":\"ada\"}\n";

TEST_P(StaticJoinCrashTest, RestartAfterTheDimensionChangedEqualsTheNeverStoppedRun) {
  // The never-stopped run: batches 0 and 1 (files 0-3) with the first dimension, then the rest.
  TempDir ref;
  WriteJoinEvents(ref, 0, 3);
  WriteInputFile(ref.Sub("dim"), "d0.json", kDimBefore);
  ASSERT_EQ(RunCommand(JoinJobCommand(ref, "")), 0) << ReadText(ref.Sub("log"));
  WriteInputFile(ref.Sub("dim"), "d1.json", kDimAdded);
  WriteJoinEvents(ref, 4, 7);
  ASSERT_EQ(RunCommand(JoinJobCommand(ref, "")), 0) << ReadText(ref.Sub("log"));
  const auto expected = RowLines(ReadSinkDir(ref.Sub("out")));
  ASSERT_GE(expected.size(), 40u);

  TempDir dir;
  WriteJoinEvents(dir, 0, 7);
  WriteInputFile(dir.Sub("dim"), "d0.json", kDimBefore);
  ASSERT_EQ(RunCommand(JoinJobCommand(dir, "--fault point=" + GetParam() + ",hits=2")), 42)
      << "no crash at " << GetParam() << "\n" << ReadText(dir.Sub("log"));
  WriteInputFile(dir.Sub("dim"), "d1.json", kDimAdded);
  ASSERT_EQ(RunCommand(JoinJobCommand(dir, "")), 0) << ReadText(dir.Sub("log"));
  EXPECT_EQ(RowLines(ReadSinkDir(dir.Sub("out"))), expected);
}

// SIGKILL at moments the test does not choose, the dimension changing after the first kill: every
// event is joined exactly once (no loss, no duplicate) and against one whole version of the
// dimension, and once a batch used the new version no later file's events use the old one.
TEST(StaticJoinCrash, SigkillAtRandomMomentsWhileTheDimensionChanges) {
  TempDir dir;
  WriteJoinEvents(dir, 0, 7);
  WriteInputFile(dir.Sub("dim"), "d0.json", kDimBefore);
  // One file per batch, so the kills land between and inside many batches.
  std::string command = JoinJobCommand(dir, "");
  command.replace(command.find(" --max-files-per-trigger 2"), 26, " --max-files-per-trigger 1");
  int finished = 0;
  const int kills = KillsFromEnv("SLUICE_JOIN_KILLS", 8);
  for (int i = 0; i < kills && !finished; ++i) {
    finished = RunCommand("timeout --foreground -s KILL 0." + std::to_string(1 + i) + " " + command) == 0;
    if (i == 0) WriteInputFile(dir.Sub("dim"), "d1.json", kDimAdded);
  }
  const std::string last = command;
  ASSERT_EQ(RunCommand(last), 0) << ReadText(dir.Sub("log"));

  // Output rows "k|id|v|ts|name", grouped by event (k|id|v|ts).
  std::map<std::string, std::vector<std::string>> names;
  for (const auto& row : RowLines(ReadSinkDir(dir.Sub("out")))) {
    const size_t cut = row.rfind('|');
    names[row.substr(0, cut)].push_back(row.substr(cut + 1));
  }
  const auto files = Cut(RandomEvents(/*seed=*/11, 8 * 6), 8);
  using V = std::vector<std::string>;
  auto key_of = [](const Event& e) {
    return e.k + "|" + std::to_string(e.id) + "|" + std::to_string(e.v) + "|" + std::to_string(e.secs);
  };
  std::map<std::string, int> copies;  // a re-delivered event may repeat an earlier one exactly
  for (const auto& file : files) {
    for (const Event& e : file) ++copies[key_of(e)];
  }
  bool seen_new = false;
  for (const auto& file : files) {
    bool file_new = false, file_old = false;
    for (const Event& e : file) {
      const std::string key = key_of(e);
      V got = names[key];
      std::sort(got.begin(), got.end());
      const V old_rows = e.k == "a" ? V{"ann"} : V{"null"};
      const V new_rows = e.k == "a" ? V{"ada", "ann"} : e.k == "b" ? V{"ben"} : V{"null"};
      // Every way the copies of the event may have been joined (each against one version).
      bool ok = false;
      const int n = copies[key];
      for (int mask = 0; mask < (1 << n) && !ok; ++mask) {
        V want;
        for (int c = 0; c < n; ++c) {
          const V& rows = ((mask >> c) & 1) ? new_rows : old_rows;
          want.insert(want.end(), rows.begin(), rows.end());
        }
        std::sort(want.begin(), want.end());
        ok = got == want;
      }
      ASSERT_TRUE(ok) << key << " (" << n << " copies) joined as " << ::testing::PrintToString(got);
      if (n == 1 && e.k != "c") (got == new_rows ? file_new : file_old) = true;
    }
    EXPECT_FALSE(file_new && file_old) << "one batch (one file) joined against two versions";
    EXPECT_FALSE(seen_new && file_old) << "a later batch went back to the old dimension";
    seen_new = seen_new || file_new;
  }
  EXPECT_EQ(names.size(), copies.size()) << "an event is missing or was invented";
}

// Every protocol point by default; SLUICE_JOIN_KILLS=N keeps the first N (the sanitizer run).
std::vector<std::string> StaticJoinKillPoints() {
  std::vector<std::string> points = {"after_offsets_write", "after_sink_commit", "before_sink", "before_commit_log"};
  points.resize(static_cast<size_t>(KillsFromEnv("SLUICE_JOIN_KILLS", static_cast<int>(points.size()))));
  return points;
}

INSTANTIATE_TEST_SUITE_P(KillPoints, StaticJoinCrashTest, ::testing::ValuesIn(StaticJoinKillPoints()));

}  // namespace
}  // namespace sluice::testing
