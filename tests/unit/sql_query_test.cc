// spark.sql over temporary views (sql/sql_query.h): views are the SELECT's tables; anything but
// one SELECT is refused with a located message.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "sluice/sluice.h"
#include "sql/sql_query.h"
#include "support/rows.h"
#include "support/status.h"

namespace sluice::sql {
namespace {

using ::testing::HasSubstr;

TEST(SqlQueryOverViews, SelectsFromARegisteredViewIgnoringCase) {
  auto session = Session::Make();
  auto df = session->createDataFrame(sluice::testing::IdNameRows(0, 5));
  ASSERT_OK(df);
  std::map<std::string, DataFrame> views{{"people", *df}};
  auto out = PlanQueryOverViews(session, SqlText("q", "SELECT id * 10 AS x FROM People WHERE id >= 3"), views);
  ASSERT_OK(out);
  auto rows = out->collect();
  ASSERT_OK(rows);
  ASSERT_EQ((*rows)->num_rows(), 2);
  auto x = std::static_pointer_cast<arrow::Int64Array>((*rows)->GetColumnByName("x")->chunk(0));
  EXPECT_EQ(x->Value(0), 30);
  EXPECT_EQ(x->Value(1), 40);
}

TEST(SqlQueryOverViews, RefusesWhatIsNotOneSelect) {
  auto session = Session::Make();
  std::map<std::string, DataFrame> views;
  auto unknown = PlanQueryOverViews(session, SqlText("q", "SELECT * FROM nope"), views);
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown table 'nope'"));
  auto two = PlanQueryOverViews(session, SqlText("q", "SELECT 1 AS a; SELECT 2 AS b"), views);
  EXPECT_THAT(two.status().message(), HasSubstr("q:1:16: spark.sql runs exactly one SELECT"));
  auto insert = PlanQueryOverViews(session, SqlText("q", "INSERT INTO t SELECT 1 AS a"), views);
  EXPECT_THAT(insert.status().message(), HasSubstr("INSERT INTO belongs in a pipeline file"));
  auto set = PlanQueryOverViews(session, SqlText("q", "SET a = 1"), views);
  EXPECT_THAT(set.status().message(), HasSubstr("spark.conf.set"));
}

}  // namespace
}  // namespace sluice::sql
