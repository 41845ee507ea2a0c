// The console sink prints Spark's "Batch: N" banner and a show()-style table.
#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <sstream>

#include "sink/console_sink.h"
#include "support/status.h"

namespace sluice::sink {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::shared_ptr<arrow::Table> People() {
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                               arrow::field("score", arrow::float64())});
  auto ids = *arrow::json::ArrayFromJSONString(arrow::int64(), "[1, 22, 333]");
  auto names = *arrow::json::ArrayFromJSONString(arrow::utf8(), R"(["ann", "a name longer than twenty", null])");
  auto scores = *arrow::json::ArrayFromJSONString(arrow::float64(), "[1.0, 0.25, null]");
  return arrow::Table::Make(schema, {ids, names, scores});
}

std::string Print(const std::shared_ptr<arrow::Table>& rows, int64_t batch_id, std::map<std::string, std::string> opts = {}) {
  SinkSpec spec;
  spec.format = "console";
  for (const auto& [k, v] : opts) spec.options.Set(k, v);
  std::ostringstream out;
  SinkContext ctx;
  ctx.console = &out;
  auto sink = MakeConsoleSink(spec, ctx);
  EXPECT_OK(sink);
  EXPECT_FALSE((*sink)->idempotent());
  Status st = (*sink)->AddBatch(batch_id, rows);
  EXPECT_OK(st);
  return out.str();
}

const char* kBanner0 =
    "-------------------------------------------\n"
    "Batch: 0\n"
    "-------------------------------------------\n";

TEST(ConsoleSinkTest, PrintsBannerAndTruncatedTable) {
  EXPECT_EQ(Print(People(), 0), std::string(kBanner0) +
                                    "+---+--------------------+-----+\n"
                                    "| id|                name|score|\n"
                                    "+---+--------------------+-----+\n"
                                    "|  1|                 ann|  1.0|\n"
                                    "| 22|a name longer tha...| 0.25|\n"
                                    "|333|                NULL| NULL|\n"
                                    "+---+--------------------+-----+\n"
                                    "\n");
}

TEST(ConsoleSinkTest, TruncateFalseKeepsWholeCellsLeftAligned) {
  EXPECT_EQ(Print(People(), 7, {{"truncate", "false"}}),
            "-------------------------------------------\n"
            "Batch: 7\n"
            "-------------------------------------------\n"
            "+---+-------------------------+-----+\n"
            "|id |name                     |score|\n"
            "+---+-------------------------+-----+\n"
            "|1  |ann                      |1.0  |\n"
            "|22 |a name longer than twenty|0.25 |\n"
            "|333|NULL                     |NULL |\n"
            "+---+-------------------------+-----+\n"
            "\n");
}

TEST(ConsoleSinkTest, NumRowsLimitsRowsAndSaysSo) {
  EXPECT_EQ(Print(People(), 0, {{"numRows", "1"}}), std::string(kBanner0) +
                                                        "+---+----+-----+\n"
                                                        "| id|name|score|\n"
                                                        "+---+----+-----+\n"
                                                        "|  1| ann|  1.0|\n"
                                                        "+---+----+-----+\n"
                                                        "only showing top 1 row\n"
                                                        "\n");
  std::string two = Print(People(), 0, {{"NUMROWS", "2"}});
  EXPECT_THAT(two, HasSubstr("only showing top 2 rows\n\n"));
  EXPECT_THAT(Print(People(), 0, {{"numRows", "3"}}), Not(HasSubstr("only showing")));
}

TEST(ConsoleSinkTest, EmptyBatchPrintsHeaderOnly) {
  EXPECT_EQ(Print(People()->Slice(0, 0), 0), std::string(kBanner0) +
                                                 "+---+----+-----+\n"
                                                 "| id|name|score|\n"
                                                 "+---+----+-----+\n"
                                                 "+---+----+-----+\n"
                                                 "\n");
}

TEST(ConsoleSinkTest, UnknownOrBadOptionsAreRefused) {
  SinkSpec spec;
  spec.format = "console";
  spec.options.Set("rows", "5");
  Status st = ValidateConsoleSinkSpec(spec);
  EXPECT_THAT(st.message(), HasSubstr("'rows'")) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("numRows")) << st.ToString();

  SinkSpec bad;
  bad.options.Set("numRows", "many");
  EXPECT_THAT(ValidateConsoleSinkSpec(bad).message(), HasSubstr("'numRows'"));
  SinkSpec bad_truncate;
  bad_truncate.options.Set("truncate", "20");
  EXPECT_THAT(ValidateConsoleSinkSpec(bad_truncate).message(), HasSubstr("'truncate'"));
  EXPECT_FALSE(MakeConsoleSink(bad, {}).ok());
}

}  // namespace
}  // namespace sluice::sink
