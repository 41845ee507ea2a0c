// SQL builds the same logical plan as the C++ DataFrame API, and parse -> plan golden files
// (tests/golden/sql/<name>.sql -> <name>.plan; SLUICE_UPDATE_GOLDEN=1 rewrites the .plan files).
#include <arrow/api.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/access.h"
#include "cli/pipeline_launch.h"
#include "plan/logical_plan.h"
#include "plan/read_columns.h"
#include "sluice/sluice.h"
#include "sql/sql_pipeline.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::sql {
namespace {

constexpr const char* kEventsDdl = "id BIGINT, name STRING, price DOUBLE, ts TIMESTAMP, ts_text STRING";

class SqlPlanTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_.Sub("in")); }

  std::string Header(const std::string& options = "") const {
    return "CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP, ts_text VARCHAR)\n"
           "  WITH (connector = 'files', format = 'json', path = '" + dir_.Sub("in") + "'" + options + ");\n";
  }

  // The plan text of the only query of `select` (a bare SELECT over `events`, declared with
  // the extra WITH `options`).
  std::string SqlPlan(const std::string& select, const std::string& options = "") {
    SqlText text("q.sql", Header(options) + select);
    auto pipeline = CompilePipeline(session_, text, ExecutionMode::kStreaming);
    EXPECT_OK(pipeline);
    if (!pipeline.ok() || pipeline->queries.size() != 1) return "<no plan>";
    return pipeline->queries[0].frame.explain();
  }

  DataFrame Events() {
    auto df = session_->readStream().format("json").schema(kEventsDdl).load(dir_.Sub("in"));
    EXPECT_OK(df);
    return *df;
  }

  testing::TempDir dir_;
  std::shared_ptr<Session> session_ = Session::Make();
};

TEST_F(SqlPlanTest, ProjectionAndFilterMatchTheDataFrameApi) {
  EXPECT_EQ(SqlPlan("SELECT id, name FROM events WHERE price > 10;"),
            Events().filter(col("price") > lit(10)).select({col("id"), col("name")}).explain());
  EXPECT_EQ(SqlPlan("SELECT *, upper(name) AS up FROM events;"),
            Events().select({col("*"), upper(col("name")).alias("up")}).explain());
  EXPECT_EQ(SqlPlan("SELECT e.id, E.Name FROM events AS e;"), Events().select({col("id"), col("name")}).explain());
}

TEST_F(SqlPlanTest, ArithmeticCastsAndLiteralsMatch) {
  EXPECT_EQ(SqlPlan("SELECT price * 1.1 AS p, id % 2 AS m, -price AS neg, id + 12345678901 AS big FROM events;"),
            Events()
                .select({(col("price") * lit(1.1)).alias("p"), (col("id") % lit(2)).alias("m"), (-col("price")).alias("neg"),
                         (col("id") + lit(int64_t{12345678901})).alias("big")})
                .explain());
  EXPECT_EQ(SqlPlan("SELECT CAST(id AS STRING) AS s, price::INT AS i, CAST(price AS DECIMAL(10,2)) AS d FROM events;"),
            Events()
                .select({col("id").cast("string").alias("s"), col("price").cast("int").alias("i"),
                         col("price").cast("decimal(10,2)").alias("d")})
                .explain());
  EXPECT_EQ(SqlPlan("SELECT id / 2 AS half, price - 1 AS p, price >= 1 AS ge, id <> 3 AS ne FROM events;"),
            Events()
                .select({(col("id") / lit(2)).alias("half"), (col("price") - lit(1)).alias("p"),
                         (col("price") >= lit(1)).alias("ge"), (col("id") != lit(3)).alias("ne")})
                .explain());
}

TEST_F(SqlPlanTest, CaseWhenMatchesWhenOtherwise) {
  EXPECT_EQ(SqlPlan("SELECT CASE WHEN price > 100 THEN 'high' WHEN price > 10 THEN 'mid' ELSE 'low' END AS band "
                    "FROM events;"),
            Events()
                .select({when(col("price") > lit(100), lit("high"))
                             .when(col("price") > lit(10), lit("mid"))
                             .otherwise(lit("low"))
                             .alias("band")})
                .explain());
  EXPECT_EQ(SqlPlan("SELECT CASE id WHEN 1 THEN 'one' END AS c FROM events;"),
            Events().select({when(col("id") == lit(1), lit("one")).alias("c")}).explain());
}

TEST_F(SqlPlanTest, PredicatesMatch) {
  EXPECT_EQ(SqlPlan("SELECT id FROM events WHERE name IS NOT NULL AND id NOT IN (1, 2, 3) AND name LIKE 'a%';"),
            Events()
                .filter(col("name").isNotNull() && !col("id").isin({lit(1), lit(2), lit(3)}) && col("name").like("a%"))
                .select({col("id")})
                .explain());
  EXPECT_EQ(SqlPlan("SELECT id FROM events WHERE price < 0 OR coalesce(name, '') = '' OR NOT (name IS NULL);"),
            Events()
                .filter(col("price") < lit(0) || coalesce({col("name"), lit("")}) == lit("") || !col("name").isNull())
                .select({col("id")})
                .explain());
  EXPECT_EQ(SqlPlan("SELECT id FROM events WHERE price BETWEEN 1 AND 5 AND name NOT LIKE '%x';"),
            Events()
                .filter(((col("price") >= lit(1)) && (col("price") <= lit(5))) && !col("name").like("%x"))
                .select({col("id")})
                .explain());
}

TEST_F(SqlPlanTest, StringAndTimeFunctionsMatch) {
  EXPECT_EQ(SqlPlan("SELECT concat(name, '-', lower(name)) AS c, substring(name, 2, 3) AS s, length(trim(name)) AS l, "
                    "name || '!' AS bang FROM events;"),
            Events()
                .select({concat({col("name"), lit("-"), lower(col("name"))}).alias("c"),
                         substring(col("name"), 2, 3).alias("s"), length(trim(col("name"))).alias("l"),
                         concat({col("name"), lit("!")}).alias("bang")})
                .explain());
  EXPECT_EQ(SqlPlan("SELECT to_timestamp(ts_text, 'yyyy-MM-dd HH:mm:ss') AS t, date_trunc('hour', ts) AS h, year(ts) AS y, "
                    "EXTRACT(month FROM ts) AS m, dayofweek(ts) AS w, TIMESTAMP '2024-01-01 00:00:00' AS t0 FROM events;"),
            Events()
                .select({to_timestamp(col("ts_text"), "yyyy-MM-dd HH:mm:ss").alias("t"),
                         date_trunc("hour", col("ts")).alias("h"), year(col("ts")).alias("y"),
                         month(col("ts")).alias("m"), dayofweek(col("ts")).alias("w"),
                         lit("2024-01-01 00:00:00").cast("timestamp").alias("t0")})
                .explain());
}

// Spark and PostgreSQL spellings that reach the function table: try_cast, RLIKE, ILIKE,
// greatest/least, NULLIF, nvl, position(... IN ...), substring with column bounds.
TEST_F(SqlPlanTest, FunctionSpellingsReachTheFunctionTable) {
  const std::string plan = SqlPlan(
      "SELECT try_cast(name AS INT) AS a, name RLIKE '^a' AS b, name NOT RLIKE 'x' AS c, name ILIKE 'A%' AS d, "
      "greatest(id, 2) AS e, least(price, 1.5) AS f, NULLIF(name, '') AS g, nvl(name, '?') AS h, "
      "position('x' IN name) AS i, substring(name, id, 2) AS j, round(price, 2) AS k FROM events;");
  for (const char* text : {"TRY_CAST(name AS INT) AS a", "regexp_like(name, '^a') AS b", "(NOT regexp_like(name, 'x')) AS c",
                           "name ILIKE 'A%' AS d", "greatest(id, 2) AS e", "least(price, 1.5) AS f", "nullif(name, '') AS g",
                           "coalesce(name, '?') AS h", "instr(name, 'x') AS i", "substring(name, id, 2) AS j",
                           "round(price, 2) AS k"}) {
    EXPECT_NE(plan.find(text), std::string::npos) << text << " not in\n" << plan;
  }
}

// Interval literals in PostgreSQL and Spark spellings fold into add_interval(t, months, days,
// microseconds).
TEST_F(SqlPlanTest, IntervalArithmeticFoldsTheLiteral) {
  const std::string plan = SqlPlan(
      "SELECT ts + INTERVAL '1' HOUR AS a, ts - INTERVAL '1 day 30 minutes' AS b, INTERVAL '2' MONTH + ts AS c, "
      "ts + INTERVAL 3 SECONDS AS d, ts - interval '1' year AS e FROM events;");
  for (const char* text : {"add_interval(ts, 0, 0, 3600000000) AS a", "add_interval(ts, 0, -1, -1800000000) AS b",
                           "add_interval(ts, 2, 0, 0) AS c", "add_interval(ts, 0, 0, 3000000) AS d",
                           "add_interval(ts, -12, 0, 0) AS e"}) {
    EXPECT_NE(plan.find(text), std::string::npos) << text << " not in\n" << plan;
  }
}

TEST_F(SqlPlanTest, SinkWithDeclaredColumnsRenamesByPosition) {
  SqlText text("q.sql", Header() +
                            "CREATE TABLE out (ident BIGINT, label STRING) WITH (connector = 'files', format = 'json', "
                            "path = '" + dir_.Sub("out") + "');\n"
                            "INSERT INTO out SELECT id, name FROM events;");
  auto pipeline = CompilePipeline(session_, text, ExecutionMode::kStreaming);
  ASSERT_OK(pipeline);
  EXPECT_EQ(pipeline->queries[0].frame.explain(), Events()
                                                      .select({col("id"), col("name")})
                                                      .select({col("id").alias("ident"), col("name").alias("label")})
                                                      .explain());
  EXPECT_EQ(pipeline->queries[0].name, "out");
  EXPECT_EQ(pipeline->queries[0].sink.format, "json");
}

// --- aggregations: SQL GROUP BY == C++ groupBy(...).agg(...) --------------------------------

TEST_F(SqlPlanTest, GroupByAndAggregatesMatchGroupByAgg) {
  EXPECT_EQ(SqlPlan("SELECT name, count(*), sum(price) FROM events GROUP BY name;"),
            Events().groupBy({col("name")}).agg({count(col("*")), sum(col("price"))}).explain());
  EXPECT_EQ(SqlPlan("SELECT name, count(*) AS n, count(DISTINCT id) AS ids, avg(price) AS a, min(ts), max(ts), "
                    "first(id), last(id) FROM events WHERE price > 0 GROUP BY name;"),
            Events()
                .filter(col("price") > lit(0))
                .groupBy({col("name")})
                .agg({count(col("*")).alias("n"), countDistinct(col("id")).alias("ids"), avg(col("price")).alias("a"),
                      min(col("ts")), max(col("ts")), first(col("id")), last(col("id"))})
                .explain());
  // A global aggregate is groupBy() with no keys.
  EXPECT_EQ(SqlPlan("SELECT count(*) AS n, sum(price) FROM events;"),
            Events().groupBy(std::vector<Column>{}).agg({count(col("*")).alias("n"), sum(col("price"))}).explain());
  // An aliased grouping expression, by expression, alias or position.
  const std::string by_alias = Events()
                                   .groupBy({upper(col("name")).alias("who")})
                                   .agg({count(col("*")).alias("n")})
                                   .explain();
  EXPECT_EQ(SqlPlan("SELECT upper(name) AS who, count(*) AS n FROM events GROUP BY upper(name);"), by_alias);
  EXPECT_EQ(SqlPlan("SELECT upper(name) AS who, count(*) AS n FROM events GROUP BY who;"), by_alias);
  EXPECT_EQ(SqlPlan("SELECT upper(name) AS who, count(*) AS n FROM events GROUP BY 1;"), by_alias);
}

// percentile_approx over an array of percentages (SQL's array(...) or ARRAY[...], the C++ vector
// overload): ARRAY<x's type> whose elements are never NULL (the array is NULL without a value).
TEST_F(SqlPlanTest, PercentileApproxOverAnArrayIsAnArrayOfTheArgumentsType) {
  DataFrame api = Events().groupBy({col("name")}).agg({percentile_approx(col("price"), {0.25, 0.5, 0.75}).alias("q"),
                                                       percentile_approx(col("id"), {1.0, 0.0}, 100).alias("ends"),
                                                       percentile_approx(col("id"), 0.5).alias("med")});
  const std::string plan = api.explain();
  EXPECT_EQ(SqlPlan("SELECT name, percentile_approx(price, array(0.25, 0.5, 0.75)) AS q, "
                    "approx_percentile(id, ARRAY[1, 0], 100) AS ends, percentile_approx(id, 0.5) AS med "
                    "FROM events GROUP BY name;"),
            plan);
  EXPECT_THAT(plan, ::testing::HasSubstr("percentile_approx(price, array(0.25, 0.5, 0.75), 10000) AS q"));
  const auto schema = api.schema();
  ASSERT_NE(schema, nullptr);
  ASSERT_EQ(schema->num_fields(), 4);
  EXPECT_TRUE(schema->field(1)->type()->Equals(arrow::list(arrow::field("element", arrow::float64(), false))))
      << schema->field(1)->type()->ToString();
  EXPECT_TRUE(schema->field(2)->type()->Equals(arrow::list(arrow::field("element", arrow::int64(), false))))
      << schema->field(2)->type()->ToString();
  EXPECT_TRUE(schema->field(1)->nullable());
  EXPECT_TRUE(schema->field(3)->type()->Equals(arrow::int64()));
}

// ORDER BY / LIMIT == orderBy(...).limit(n) on the SELECT's result; a key may be a result
// column, a position or a selected expression written again, all naming the result column.
TEST_F(SqlPlanTest, OrderByAndLimitMatchOrderByLimit) {
  const std::string top = Events()
                              .groupBy({col("name")})
                              .agg({count(col("*")).alias("n")})
                              .orderBy({{col("n"), /*ascending=*/false}, col("name")})
                              .limit(3)
                              .explain();
  EXPECT_EQ(SqlPlan("SELECT name, count(*) AS n FROM events GROUP BY name ORDER BY n DESC, name LIMIT 3;"), top);
  EXPECT_EQ(SqlPlan("SELECT name, count(*) AS n FROM events GROUP BY name ORDER BY 2 DESC, 1 ASC LIMIT 3;"), top);
  EXPECT_EQ(SqlPlan("SELECT name, count(*) AS n FROM events GROUP BY name ORDER BY count(*) DESC, name LIMIT 3;"), top);
  SortOrder nulls_last(col("name"));
  nulls_last.nulls_first = false;
  EXPECT_EQ(SqlPlan("SELECT id, name FROM events ORDER BY name NULLS LAST, id + 1 DESC;"),
            Events().select({col("id"), col("name")}).orderBy({nulls_last, {col("id") + lit(1), false}}).explain());
  EXPECT_EQ(SqlPlan("SELECT id FROM events LIMIT 0;"), Events().select({col("id")}).limit(0).explain());
  EXPECT_NE(top.find("Sort [n DESC NULLS LAST, name ASC NULLS FIRST]"), std::string::npos) << top;
  EXPECT_EQ(top.rfind("Limit 3", 0), 0u) << top;
}

TEST_F(SqlPlanTest, WindowsAndWatermarkMatchTheDataFrameApi) {
  auto watermarked = [&] { return Events().withWatermark("ts", "10 minutes"); };
  const std::string options = ", event_time = 'ts', watermark = '10 minutes'";
  EXPECT_EQ(SqlPlan("SELECT window_start, window_end, count(*) AS n FROM events "
                    "GROUP BY tumble(ts, INTERVAL '10 minutes');", options),
            watermarked().groupBy({window(col("ts"), "10 minutes")}).agg({count(col("*")).alias("n")}).explain());
  // Flink's HOP(time, slide, size) is window(time, size, slide).
  EXPECT_EQ(SqlPlan("SELECT name, window_start, window_end, sum(price) AS s FROM events "
                    "GROUP BY name, hop(ts, INTERVAL '5 minutes', INTERVAL '15 minutes');", options),
            watermarked()
                .groupBy({col("name"), window(col("ts"), "15 minutes", "5 minutes")})
                .agg({sum(col("price")).alias("s")})
                .explain());
  EXPECT_EQ(SqlPlan("SELECT name, window_start, window_end, count(*) AS clicks FROM events "
                    "GROUP BY name, session(ts, INTERVAL '5 minutes');", options),
            watermarked()
                .groupBy({col("name"), session_window(col("ts"), "5 minutes")})
                .agg({count(col("*")).alias("clicks")})
                .explain());
  // Spark's session_window(ts, 'gap') spelling works too (`window` is a reserved word in SQL).
  EXPECT_EQ(SqlPlan("SELECT name, window_start, window_end, count(*) AS n FROM events "
                    "GROUP BY name, session_window(ts, '5 minutes');", options),
            watermarked()
                .groupBy({col("name"), session_window(col("ts"), "5 minutes")})
                .agg({count(col("*")).alias("n")})
                .explain());
}

TEST_F(SqlPlanTest, SparkWindowSpellingIsTheSamePlan) {
  const std::string options = ", event_time = 'ts', watermark = '10 minutes'";
  const std::string flink = SqlPlan("SELECT window_start, window_end, count(*) AS n FROM events "
                                    "GROUP BY tumble(ts, INTERVAL '10 minutes');", options);
  EXPECT_EQ(SqlPlan("SELECT window.start AS window_start, window.end AS window_end, count(*) AS n FROM events "
                    "GROUP BY window(ts, '10 minutes');", options),
            flink);
  EXPECT_EQ(SqlPlan("SELECT window_start, window_end, count(*) AS n FROM events GROUP BY WINDOW (ts, '10 minutes');",
                    options),
            flink);
  // Spark's window(time, size, slide) is hop(time, slide, size).
  EXPECT_EQ(SqlPlan("SELECT window.start AS window_start, count(*) AS n FROM events "
                    "GROUP BY window(ts, '15 minutes', '5 minutes');", options),
            SqlPlan("SELECT window_start, count(*) AS n FROM events "
                    "GROUP BY hop(ts, INTERVAL '5 minutes', INTERVAL '15 minutes');", options));
  EXPECT_EQ(SqlPlan("SELECT name, session_window.start AS window_start, count(*) AS n FROM events "
                    "GROUP BY name, session_window(ts, '5 minutes');", options),
            SqlPlan("SELECT name, window_start, count(*) AS n FROM events "
                    "GROUP BY name, session(ts, INTERVAL '5 minutes');", options));
  // Text in literals and comments is left alone.
  EXPECT_EQ(SqlPlan("SELECT 'window(' AS w /* window.start */ FROM events;"),
            Events().select({lit("window(").alias("w")}).explain());
}

// As Spark's optimizer pushes predicates through EventTimeWatermark: WHERE (and DataFrame.filter)
// conjuncts that do not read the event-time column filter before the watermark, the others after it.
TEST_F(SqlPlanTest, WhereConjunctsWithoutTheEventTimeFilterBeforeTheWatermark) {
  const std::string options = ", event_time = 'ts', watermark = '10 minutes'";
  EXPECT_EQ(SqlPlan("SELECT id FROM events WHERE price > 1 AND ts > TIMESTAMP '2024-01-01 00:00:00' AND id < 9;", options),
            Events()
                .filter(col("price") > lit(1) && col("id") < lit(9))
                .withWatermark("ts", "10 minutes")
                .filter(col("ts") > lit("2024-01-01 00:00:00").cast("timestamp"))
                .select({col("id")})
                .explain());
  // Nothing to push: the predicate stays as written, above the watermark.
  EXPECT_EQ(SqlPlan("SELECT id FROM events WHERE ts IS NOT NULL;", options),
            Events().withWatermark("ts", "10 minutes").filter(col("ts").isNotNull()).select({col("id")}).explain());
  // The DataFrame API moves them the same way: filter() over withWatermark() is the same plan.
  EXPECT_EQ(Events()
                .withWatermark("ts", "10 minutes")
                .filter(col("price") > lit(1) && col("ts") > lit("2024-01-01 00:00:00").cast("timestamp") &&
                        col("id") < lit(9))
                .select({col("id")})
                .explain(),
            SqlPlan("SELECT id FROM events WHERE price > 1 AND ts > TIMESTAMP '2024-01-01 00:00:00' AND id < 9;",
                    options));
  // Without an event time the plan is the plain filter.
  EXPECT_EQ(SqlPlan("SELECT id FROM events WHERE price > 1 AND id < 9;"),
            Events().filter(col("price") > lit(1) && col("id") < lit(9)).select({col("id")}).explain());
}

TEST_F(SqlPlanTest, SelectDistinctIsAGroupByOfTheSelectedColumns) {
  EXPECT_EQ(SqlPlan("SELECT DISTINCT name, upper(name) AS u FROM events;"),
            SqlPlan("SELECT name, upper(name) AS u FROM events GROUP BY name, upper(name);"));
}

// --- golden files ---------------------------------------------------------------------------

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void ReplaceAll(std::string* s, const std::string& from, const std::string& to) {
  for (size_t pos = s->find(from); pos != std::string::npos; pos = s->find(from, pos + to.size())) {
    s->replace(pos, from.size(), to);
  }
}

// What a golden file's SQL compiles to: every query's explain output, or the error message.
std::string GoldenOutput(const std::filesystem::path& sql_file, const std::string& dir) {
  std::string sql = ReadAll(sql_file);
  ReplaceAll(&sql, "$DIR", dir);
  SqlText text(sql_file.filename().string(), sql);
  auto pipeline = CompilePipeline(Session::Make(), text, ExecutionMode::kStreaming);
  std::string out;
  if (!pipeline.ok()) {
    out = "ERROR " + pipeline.status().message() + "\n";
  } else {
    for (const auto& q : pipeline->queries) out += cli::ExplainQuery(q, std::nullopt);
  }
  ReplaceAll(&out, dir, "$DIR");
  return out;
}

const std::filesystem::path& GoldenDir() {
  static const std::filesystem::path dir = std::filesystem::path(SLUICE_SOURCE_DIR) / "tests/golden/sql";
  return dir;
}

// The golden files' names (without .sql) as CMake found them, one ctest entry each.
const std::vector<std::string>& GoldenFiles() {
  static const std::vector<std::string> files = {
#include "golden_sql_files.inc"
  };
  return files;
}

class SqlGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlGolden, ParseToPlanMatchesGoldenFile) {
  const std::filesystem::path sql_file = GoldenDir() / (GetParam() + ".sql");
  testing::TempDir dir;
  std::filesystem::create_directories(dir.Sub("in"));
  const std::string actual = GoldenOutput(sql_file, dir.path());
  std::filesystem::path expected_file = sql_file;
  expected_file.replace_extension(".plan");
  if (::getenv("SLUICE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(expected_file, std::ios::binary) << actual;
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(expected_file))
      << expected_file << " is missing; run with SLUICE_UPDATE_GOLDEN=1 to write it";
  EXPECT_EQ(actual, ReadAll(expected_file)) << sql_file << " (SLUICE_UPDATE_GOLDEN=1 rewrites the .plan files)";
}

INSTANTIATE_TEST_SUITE_P(Files, SqlGolden, ::testing::ValuesIn(GoldenFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The build's list is the directory's: a file added without re-running CMake would go untested.
TEST(SqlGoldenFiles, EveryFileInTheDirectoryHasATest) {
  std::vector<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(GoldenDir())) {
    if (entry.path().extension() == ".sql") on_disk.push_back(entry.path().stem().string());
  }
  std::sort(on_disk.begin(), on_disk.end());
  std::vector<std::string> built = GoldenFiles();
  std::sort(built.begin(), built.end());
  EXPECT_GE(on_disk.size(), 10u) << "golden files in " << GoldenDir();
  EXPECT_EQ(built, on_disk) << "re-run CMake (make build) to pick up added or removed golden files";
}

}  // namespace
}  // namespace sluice::sql

namespace sluice::sql {
namespace {

// Spark keys its watermarks by the withWatermark node, so every use of one table is one
// watermark (a self-union whose second branch filters out a batch's rows must not hold the
// watermark back at 0); two tables are two watermarks, and two withWatermark calls are two.
TEST_F(SqlPlanTest, EveryUseOfATableIsOneWatermark) {
  SqlText text("q.sql", Header(", event_time = 'ts', watermark = '5 seconds'") +
                            "CREATE TABLE other (ts TIMESTAMP) WITH (connector = 'files', format = 'json', path = '" +
                            dir_.Sub("in") + "', event_time = 'ts', watermark = '1 second');\n"
                            "SELECT ts FROM events UNION ALL SELECT ts FROM events WHERE price > 2 "
                            "UNION ALL SELECT ts FROM other;");
  ASSERT_OK_AND_ASSIGN(auto pipeline, CompilePipeline(session_, text, ExecutionMode::kStreaming));
  ASSERT_EQ(pipeline.queries.size(), 1u);
  std::vector<std::string> ids;
  for (const auto* node : api::PlanOf(pipeline.queries[0].frame)->WatermarkNodes()) ids.push_back(node->watermark_id);
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_NE(ids[0], ids[2]);

  DataFrame events = Events();
  EXPECT_NE(api::PlanOf(events.withWatermark("ts", "5 seconds"))->watermark_id,
            api::PlanOf(events.withWatermark("ts", "5 seconds"))->watermark_id);
}

}  // namespace
}  // namespace sluice::sql

namespace sluice::sql {
namespace {

// A join condition's conjunct over one input goes into that input (below its table's watermark
// when it does not read the event time), where the join type keeps the answer, as Spark's
// optimizer moves it: rows it drops never reach the join's state nor move the watermark.
TEST_F(SqlPlanTest, JoinConditionConjunctsOverOneInputGoIntoIt) {
  const std::string tables =
      "CREATE TABLE a (id STRING, iv BIGINT, its TIMESTAMP) WITH (connector = 'files', format = 'json', path = '" +
      dir_.Sub("in") + "', event_time = 'its', watermark = '10 seconds');\n"
      "CREATE TABLE b (cid STRING, cv BIGINT, cts TIMESTAMP) WITH (connector = 'files', format = 'json', path = '" +
      dir_.Sub("in") + "', event_time = 'cts', watermark = '10 seconds');\n";
  auto plan_of = [&](const std::string& how) {
    SqlText text("q.sql", tables + "SELECT id, cid FROM a " + how + " JOIN b ON id = cid AND cts BETWEEN its AND its + "
                                   "INTERVAL '20' SECOND AND id <> 'x' AND cv < 60;");
    auto pipeline = CompilePipeline(session_, text, ExecutionMode::kStreaming);
    EXPECT_OK(pipeline);
    return pipeline.ok() ? api::PlanOf(pipeline->queries[0].frame)->ToString() : std::string();
  };
  // LEFT: cv < 60 (right input only) moves below b's watermark; id <> 'x' stays (a left row
  // failing it is still emitted).
  const std::string left = plan_of("LEFT");
  EXPECT_THAT(left, ::testing::HasSubstr("WithWatermark cts, 10 seconds\n      Filter (cv < 60)"));
  EXPECT_THAT(left, ::testing::HasSubstr("(id != 'x'))"));
  EXPECT_THAT(left.substr(0, left.find("WithWatermark")), ::testing::Not(::testing::HasSubstr("cv < 60")));
  // INNER: both move; RIGHT: only id <> 'x'; FULL: none.
  const std::string inner = plan_of("INNER");
  EXPECT_THAT(inner, ::testing::HasSubstr("WithWatermark its, 10 seconds\n      Filter (id != 'x')"));
  EXPECT_THAT(inner, ::testing::HasSubstr("WithWatermark cts, 10 seconds\n      Filter (cv < 60)"));
  const std::string right = plan_of("RIGHT");
  EXPECT_THAT(right, ::testing::HasSubstr("WithWatermark its, 10 seconds\n      Filter (id != 'x')"));
  EXPECT_THAT(right, ::testing::HasSubstr("(cv < 60))"));
  const std::string full = plan_of("FULL");
  EXPECT_THAT(full, ::testing::Not(::testing::HasSubstr("Filter")));
}

}  // namespace
}  // namespace sluice::sql

namespace sluice::sql {
namespace {

// What each scan of a plan decodes (projection pushdown): its columns, or "*" for every column.
std::string ReadColumns(const DataFrame& frame) {
  const auto plan = api::PlanOf(frame);
  std::string out;
  for (const auto* scan : plan->Scans()) {
    auto cols = plan::ColumnsReadFromScan(*plan, *scan);
    if (!out.empty()) out += " | ";
    if (!cols) {
      out += "*";
      continue;
    }
    for (size_t i = 0; i < cols->size(); ++i) out += (i ? "," : "") + (*cols)[i];
  }
  return out;
}

// Projection pushdown reaches through aggregations and joins: each scan decodes only what the
// aggregation (keys, window time, arguments), the join (keys, condition, columns read above),
// filters and watermarks read; the others stay NULL.
TEST_F(SqlPlanTest, ScansDecodeOnlyWhatAggregationsAndJoinsRead) {
  auto plan_of = [&](const std::string& sql, const std::string& options = "") -> std::string {
    SqlText text("q.sql", Header(options) + sql);
    auto pipeline = CompilePipeline(session_, text, ExecutionMode::kStreaming);
    EXPECT_OK(pipeline);
    if (!pipeline.ok() || pipeline->queries.size() != 1) return "<no plan>";
    return ReadColumns(pipeline->queries[0].frame);
  };
  const std::string wm = ", event_time = 'ts', watermark = '5 seconds'";
  EXPECT_EQ(plan_of("SELECT name, count(*) AS n FROM events GROUP BY name;"), "name");
  EXPECT_EQ(plan_of("SELECT name, sum(price) FILTER (WHERE id > 2) AS s FROM events WHERE ts_text <> 'x' GROUP BY name;"),
            "id,name,price,ts_text");
  EXPECT_EQ(plan_of("SELECT window_start, count(*) AS n FROM events GROUP BY tumble(ts, INTERVAL '10 seconds');", wm),
            "ts");
  EXPECT_EQ(plan_of("SELECT name, max_by(id, price) AS m FROM events GROUP BY name HAVING count(*) > 1;"),
            "id,name,price");
  EXPECT_EQ(plan_of("SELECT DISTINCT name FROM events;"), "name");  // an aggregation
  // A union reads every column of its inputs: here each is a projection.
  EXPECT_EQ(plan_of("SELECT id FROM events UNION ALL SELECT id FROM events WHERE price > 1;"), "id | id,price");
  // Deduplication reads every column of its input.
  EXPECT_EQ(ReadColumns(Events().dropDuplicates(std::vector<std::string>{"name"}).select(std::vector<std::string>{"id"})),
            "*");

  const std::string tables =
      "CREATE TABLE a (id BIGINT, x STRING, unused_a STRING, ats TIMESTAMP) WITH (connector = 'files', format = 'json', "
      "path = '" + dir_.Sub("in") + "', event_time = 'ats', watermark = '10 seconds');\n"
      "CREATE TABLE b (id BIGINT, y STRING, unused_b STRING, bts TIMESTAMP) WITH (connector = 'files', format = 'json', "
      "path = '" + dir_.Sub("in") + "', event_time = 'bts', watermark = '10 seconds');\n";
  auto join_of = [&](const std::string& sql) -> std::string {
    SqlText text("q.sql", tables + sql);
    auto pipeline = CompilePipeline(session_, text, ExecutionMode::kStreaming);
    EXPECT_OK(pipeline);
    if (!pipeline.ok() || pipeline->queries.size() != 1) return "<no plan>";
    return ReadColumns(pipeline->queries[0].frame);
  };
  // Both sides keep their keys, the condition's columns, their event time and what is selected.
  EXPECT_EQ(join_of("SELECT a.x, b.y FROM a JOIN b ON a.id = b.id AND b.bts BETWEEN a.ats AND a.ats + INTERVAL '5' SECOND;"),
            "id,x,ats | id,y,bts");
  EXPECT_EQ(join_of("SELECT y FROM a JOIN b USING (id);"), "id,ats | id,y,bts");
  EXPECT_EQ(join_of("SELECT * FROM a JOIN b USING (id);"), "id,x,unused_a,ats | id,y,unused_b,bts");
  // An aggregation over a join.
  EXPECT_EQ(join_of("SELECT a.x, count(*) AS n FROM a LEFT JOIN b ON a.id = b.id AND a.ats = b.bts GROUP BY a.x;"),
            "id,x,ats | id,bts");

  // One scan node reached along two paths (a DataFrame joined with itself): the reads add up.
  DataFrame events = Events();
  auto self = events.select(std::vector<std::string>{"id", "name"})
                  .join(events.select(std::vector<std::string>{"id", "price"}), "id")
                  .select(std::vector<std::string>{"name", "price"});
  EXPECT_EQ(ReadColumns(self), "id,name,price | id,name,price");
}

// Filter pushdown: a source is offered the predicate of a filter right above its scan (its only
// parent), when the predicate is deterministic; never across a watermark, a deduplication, a
// join or a union, nor a predicate with a function outside the pushable set.
TEST_F(SqlPlanTest, ScansAreOfferedOnlyTheDeterministicFilterRightAboveThem) {
  auto pushed = [&](const std::string& sql, const std::string& options = "") -> std::string {
    SqlText text("q.sql", Header(options) + sql);
    auto pipeline = CompilePipeline(session_, text, ExecutionMode::kStreaming);
    EXPECT_OK(pipeline);
    if (!pipeline.ok() || pipeline->queries.size() != 1) return "<no plan>";
    const auto plan = api::PlanOf(pipeline->queries[0].frame);
    std::string out;
    for (const auto* scan : plan->Scans()) {
      auto p = plan::PushableScanFilter(*plan, *scan);
      out += (out.empty() ? "" : " | ") + (p ? p->ToString() : std::string("-"));
    }
    return out;
  };
  EXPECT_NE(pushed("SELECT id, price FROM events WHERE id % 123 = 0;"), "-");
  EXPECT_THAT(pushed("SELECT id, price FROM events WHERE id % 123 = 0;"), ::testing::HasSubstr("id"));
  EXPECT_NE(pushed("SELECT name, count(*) AS n FROM events WHERE price > 2 AND name LIKE 'a%' GROUP BY name;"), "-");
  // With a watermark, the predicates that do not read the event time sit below it (as Spark's
  // optimizer puts them): those are offered; one on the event time stays above it and is not.
  const std::string wm = ", event_time = 'ts', watermark = '5 seconds'";
  EXPECT_EQ(pushed("SELECT id FROM events WHERE id > 3;", wm), "(id > 3)");
  EXPECT_EQ(pushed("SELECT id FROM events WHERE ts > TIMESTAMP '2024-01-01 00:00:00';", wm), "-");
  const std::string mixed =
      pushed("SELECT id FROM events WHERE price > 1 AND ts > TIMESTAMP '2024-01-01 00:00:00' AND id < 9;", wm);
  EXPECT_THAT(mixed, ::testing::HasSubstr("price"));
  EXPECT_THAT(mixed, ::testing::Not(::testing::HasSubstr("ts")));
  EXPECT_EQ(pushed("SELECT id FROM events WHERE current_timestamp() > ts;"), "-");  // a value per batch
  EXPECT_EQ(pushed("SELECT id FROM events;"), "-");
  // Each branch of a union has its own scan and filter.
  EXPECT_EQ(pushed("SELECT id FROM events WHERE id > 1 UNION ALL SELECT id FROM events WHERE id < 0;"),
            "(id > 1) | (id < 0)");
  EXPECT_EQ(pushed("SELECT id FROM (SELECT id FROM events UNION ALL SELECT id FROM events) AS u WHERE id > 1;"),
            "- | -");
  DataFrame deduped = Events().dropDuplicates(std::vector<std::string>{"name"});
  const auto dedup_plan = api::PlanOf(deduped.filter(col("id") > lit(1)));
  EXPECT_EQ(plan::PushableScanFilter(*dedup_plan, *dedup_plan->Scans()[0]), nullptr);
  const auto direct = api::PlanOf(Events().filter(col("id") > lit(1)));
  ASSERT_NE(plan::PushableScanFilter(*direct, *direct->Scans()[0]), nullptr);
}

}  // namespace
}  // namespace sluice::sql
