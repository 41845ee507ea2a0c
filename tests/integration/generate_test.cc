// explode and friends end to end: the classic streaming word count (explode in a select feeding
// an aggregation, complete and update mode, across a restart), what explain shows, the _outer
// and pos forms, and nested (array/struct) columns written by the memory, parquet and json sinks.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "api/access.h"
#include "integration/test_util.h"
#include "sluice/sluice.h"
#include "support/status.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

std::vector<std::string> SortedRows(const std::shared_ptr<arrow::Table>& table) {
  std::vector<std::string> rows;
  for (int64_t r = 0; table && r < table->num_rows(); ++r) {
    std::string row;
    for (int c = 0; c < table->num_columns(); ++c) {
      auto scalar = table->column(c)->GetScalar(r);
      row += (c ? "|" : "") + (scalar.ok() ? (*scalar)->ToString() : std::string("?"));
    }
    rows.push_back(row);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct Fixture {
  TempDir dir;
  std::shared_ptr<Session> session = Session::Make();
  MemoryStream lines{session, "id BIGINT, line STRING"};

  Status Run(const DataFrame& df, const std::string& mode, const std::string& format = "memory") {
    auto writer = df.writeStream().format(format).outputMode(mode).option("checkpointLocation", dir.Sub("ckpt-" + format));
    if (format == "memory") {
      writer.queryName("out");
    } else {
      writer.option("path", dir.Sub("out-" + format));
    }
    ARROW_ASSIGN_OR_RAISE(auto q, writer.trigger(AvailableNow()).start());
    return q.awaitTermination();
  }
  std::vector<std::string> Out() { return SortedRows(session->memoryTable("out").ValueOrDie()); }
};

DataFrame WordCount(const DataFrame& lines) {
  return lines.select({explode(split(col("line"), " ")).alias("word")}).groupBy({col("word")}).agg({count(col("*")).alias("n")});
}

TEST(Generate, StreamingWordCountInCompleteModeSurvivesARestart) {
  Fixture f;
  auto counts = WordCount(f.lines.toDF());
  ASSERT_OK(counts.status());
  EXPECT_THAT(counts.explain(), HasSubstr("Generate explode(split(line, ' ', -1)) [word]"));
  ASSERT_OK(f.lines.addJson(R"([{"id": 1, "line": "to be or not to be"}, {"id": 2, "line": null}])").status());
  ASSERT_OK(f.Run(counts, "complete"));
  EXPECT_EQ(f.Out(), (std::vector<std::string>{"be|2", "not|1", "or|1", "to|2"}));
  ASSERT_OK(f.lines.addJson(R"([{"id": 3, "line": "be quick"}])").status());
  ASSERT_OK(f.Run(counts, "complete"));  // a new run on the same checkpoint: state restored
  EXPECT_EQ(f.Out(), (std::vector<std::string>{"be|3", "not|1", "or|1", "quick|1", "to|2"}));
}

TEST(Generate, StreamingWordCountInUpdateModeEmitsChangedWords) {
  Fixture f;
  auto counts = WordCount(f.lines.toDF());
  ASSERT_OK(f.lines.addJson(R"([{"id": 1, "line": "a b a"}])").status());
  ASSERT_OK(f.Run(counts, "update"));
  EXPECT_EQ(f.Out(), (std::vector<std::string>{"a|2", "b|1"}));
}

TEST(Generate, ExplainShowsGenerateExec) {
  Fixture f;
  auto df = f.lines.toDF().select({col("id"), explode_outer(split(col("line"), " "))});
  ASSERT_OK(df.status());
  const std::string physical = api::PhysicalPlanText(df);
  EXPECT_THAT(physical, HasSubstr("ProjectExec [id, col]"));
  EXPECT_THAT(physical, HasSubstr("GenerateExec explode_outer(split(line, ' ', -1))"));
}

TEST(Generate, PosExplodeAndOuterForms) {
  Fixture f;
  ASSERT_OK(f.lines.addJson(R"([{"id": 1, "line": "x y"}, {"id": 2, "line": null}, {"id": 3, "line": ""}])").status());
  auto df = f.lines.toDF().select({col("id"), posexplode_outer(split(col("line"), " "))});
  ASSERT_OK(df.status());
  EXPECT_EQ(df.schema()->ToString(), "id: int64\npos: int32\ncol: string");
  ASSERT_OK(f.Run(df, "append"));
  EXPECT_EQ(f.Out(), (std::vector<std::string>{"1|0|x", "1|1|y", "2|null|null", "3|0|"}));
}

TEST(Generate, OnlyOneGeneratorPerSelect) {
  Fixture f;
  auto parts = split(col("line"), " ");
  auto df = f.lines.toDF().select({explode(parts), explode(parts).alias("again")});
  EXPECT_THAT(df.status().message(), HasSubstr("Only one generator is allowed per select list"));
  auto named = f.lines.toDF().select({col("line"), explode(parts).alias("line")});  // the name of an input column
  ASSERT_OK(named.status());
  EXPECT_EQ(named.schema()->ToString(), "line: string\nline: string");
}

TEST(Generate, NestedColumnsReachTheMemoryParquetAndJsonSinks) {
  Fixture f;
  ASSERT_OK(f.lines.addJson(R"([{"id": 1, "line": "a b"}])").status());
  auto df = f.lines.toDF().select(
      {col("id"), split(col("line"), " ").alias("words"), named_struct({lit("n"), col("id"), lit("w"), col("line")}).alias("st")});
  ASSERT_OK(df.status());
  ASSERT_OK(f.Run(df, "append"));
  EXPECT_EQ(f.Out(), (std::vector<std::string>{"1|list<item: string>[a, b]|{n:int64 = 1, w:string = a b}"}));
  ASSERT_OK(f.Run(df, "append", "parquet"));
  auto parquet = ReadSinkDir(f.dir.Sub("out-parquet"), "parquet");
  ASSERT_TRUE(parquet);
  // Parquet names a list's element field "element" (Arrow: "item"); the values are the same.
  EXPECT_EQ(SortedRows(parquet), (std::vector<std::string>{"1|list<element: string>[a, b]|{n:int64 = 1, w:string = a b}"}));
  ASSERT_OK(f.Run(df, "append", "json"));
  std::string json;
  for (const auto& entry : fs::directory_iterator(f.dir.Sub("out-json"))) {
    if (entry.path().extension() == ".json") json += ReadText(entry.path().string());
  }
  EXPECT_EQ(json, "{\"id\":1,\"words\":[\"a\",\"b\"],\"st\":{\"n\":1,\"w\":\"a b\"}}\n");
}

}  // namespace
}  // namespace sluice::testing
