// String functions: like, upper, lower, concat, substring, length, trim.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "sluice/column.h"
#include "support/status.h"
#include "unit/expr_test_util.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

using testing::BatchFromJson;
using testing::ErrorOf;
using testing::ExpectEval;

std::shared_ptr<arrow::RecordBatch> Words() {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("t", arrow::utf8()),
                               arrow::field("n", arrow::int32())});
  return BatchFromJson(schema, R"([
    {"s": "Hello", "t": "  pad me  ", "n": 1},
    {"s": "héllo wörld", "t": "x", "n": 22},
    {"s": null, "t": "y", "n": null}])");
}

TEST(ExprString, LikeMatchesPercentAndUnderscore) {
  auto b = Words();
  ExpectEval(col("s").like("H%"), b, arrow::boolean(), "[true, false, null]");
  ExpectEval(col("s").like("h_llo%"), b, arrow::boolean(), "[false, true, null]");
  ExpectEval(col("s").like("Hello"), b, arrow::boolean(), "[true, false, null]");
}

TEST(ExprString, UpperLowerAreUnicodeAware) {
  auto b = Words();
  ExpectEval(upper(col("s")), b, arrow::utf8(), R"(["HELLO", "HÉLLO WÖRLD", null])");
  ExpectEval(lower(col("s")), b, arrow::utf8(), R"(["hello", "héllo wörld", null])");
}

TEST(ExprString, ConcatIsNullWhenAnyArgumentIsNullAndCastsNumbers) {
  auto b = Words();
  ExpectEval(concat({col("s"), lit("-"), col("t")}), b, arrow::utf8(), R"(["Hello-  pad me  ", "héllo wörld-x", null])");
  ExpectEval(concat({col("t"), col("n")}), b, arrow::utf8(), R"(["  pad me  1", "x22", null])");
}

TEST(ExprString, SubstringUsesSparkPositions) {
  auto b = Words();
  ExpectEval(substring(col("s"), 1, 3), b, arrow::utf8(), R"(["Hel", "hél", null])");
  ExpectEval(substring(col("s"), 0, 2), b, arrow::utf8(), R"(["He", "hé", null])");  // pos 0 acts as 1
  ExpectEval(substring(col("s"), 2, 100), b, arrow::utf8(), R"(["ello", "éllo wörld", null])");
  ExpectEval(substring(col("s"), -3, 2), b, arrow::utf8(), R"(["ll", "rl", null])");
  ExpectEval(substring(col("s"), -2, 5), b, arrow::utf8(), R"(["lo", "ld", null])");
  ExpectEval(substring(col("s"), -7, 3), b, arrow::utf8(), R"(["H", "o w", null])");
  ExpectEval(substring(col("s"), 2, 0), b, arrow::utf8(), R"(["", "", null])");
}

TEST(ExprString, LengthCountsCharactersNotBytes) {
  ExpectEval(length(col("s")), Words(), arrow::int32(), "[5, 11, null]");
}

TEST(ExprString, TrimRemovesSpacesAtBothEnds) {
  ExpectEval(trim(col("t")), Words(), arrow::utf8(), R"(["pad me", "x", "y"])");
}

TEST(ExprString, NonStringArgumentIsATypeError) {
  std::string error = ErrorOf(upper(col("n")), Words());
  EXPECT_THAT(error, HasSubstr("cannot apply 'upper' to int in upper(n)"));
  EXPECT_THAT(ErrorOf(col("n").like("1%"), Words()), HasSubstr("LIKE"));
}

}  // namespace
}  // namespace sluice
