// The string and regular-expression functions of the function table: character positions,
// Spark's edge cases (empty search, part 0, negative counts) and NULL behaviour.
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
using testing::Fn;

std::shared_ptr<arrow::RecordBatch> Texts() {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("n", arrow::int32())});
  return BatchFromJson(schema, R"([
    {"s": "a,b,,c", "n": 2},
    {"s": "héllo wörld", "n": -1},
    {"s": null, "n": 3},
    {"s": "", "n": null}])");
}

TEST(ExprFnString, ReplaceAndRegexpReplace) {
  auto b = Texts();
  ExpectEval(Fn("replace", {col("s"), lit(","), lit(";")}), b, arrow::utf8(), R"(["a;b;;c", "héllo wörld", null, ""])");
  ExpectEval(Fn("replace", {col("s"), lit(",")}), b, arrow::utf8(), R"(["abc", "héllo wörld", null, ""])");
  ExpectEval(Fn("replace", {col("s"), lit("")}), b, arrow::utf8(), R"(["a,b,,c", "héllo wörld", null, ""])");
  // Java's $1 group references.
  ExpectEval(Fn("regexp_replace", {col("s"), lit("(\\w)(\\w+)"), lit("$2$1")}), b->Slice(1, 1), arrow::utf8(),
             R"(["hélol wöldr"])");  // \w is ASCII, in Java as in RE2
  EXPECT_THAT(ErrorOf(Fn("regexp_replace", {col("s"), col("s"), lit("")}), b), HasSubstr("must be a non-null string literal"));
}

TEST(ExprFnString, RegexpExtractGivesEmptyTextWhenNothingMatches) {
  auto b = Texts();
  ExpectEval(Fn("regexp_extract", {col("s"), lit("([a-z]+),([a-z]+)"), lit(2)}), b, arrow::utf8(), R"(["b", "", null, ""])");
  ExpectEval(Fn("regexp_extract", {col("s"), lit("(w)(ö)"), lit(0)}), b, arrow::utf8(), R"(["", "wö", null, ""])");
  ExpectEval(Fn("regexp_extract", {col("s"), lit("[(]([a-z])")}), b, arrow::utf8(), R"(["", "", null, ""])");
  EXPECT_THAT(ErrorOf(Fn("regexp_extract", {col("s"), lit("(a)"), lit(2)}), b), HasSubstr("REGEX_GROUP_INDEX"));
  ExpectEval(Fn("regexp_like", {col("s"), lit("^h.llo")}), b, arrow::boolean(), "[false, true, null, false]");
}

TEST(ExprFnString, SplitPartCountsFromEitherEnd) {
  auto b = Texts();
  ExpectEval(Fn("split_part", {col("s"), lit(","), col("n")}), b, arrow::utf8(), R"(["b", "héllo wörld", null, null])");
  ExpectEval(Fn("split_part", {col("s"), lit(","), lit(-1)}), b, arrow::utf8(), R"(["c", "héllo wörld", null, ""])");
  ExpectEval(Fn("split_part", {col("s"), lit(","), lit(9)}), b, arrow::utf8(), R"(["", "", null, ""])");
  EXPECT_THAT(ErrorOf(Fn("split_part", {col("s"), lit(","), lit(0)}), b), HasSubstr("[INVALID_INDEX_OF_ZERO]"));
}

TEST(ExprFnString, InstrAndLocateCountCharacters) {
  auto b = Texts();
  ExpectEval(Fn("instr", {col("s"), lit("wö")}), b, arrow::int32(), "[0, 7, null, 0]");
  ExpectEval(Fn("instr", {col("s"), lit("")}), b, arrow::int32(), "[1, 1, null, 1]");
  ExpectEval(Fn("locate", {lit(","), col("s")}), b, arrow::int32(), "[2, 0, null, 0]");
  ExpectEval(Fn("locate", {lit(","), col("s"), lit(3)}), b, arrow::int32(), "[4, 0, null, 0]");
  // A NULL start position gives 0, a position below 1 gives 0 (Spark's StringLocate).
  ExpectEval(Fn("locate", {lit(","), col("s"), col("n")}), b, arrow::int32(), "[2, 0, null, 0]");
}

TEST(ExprFnString, PaddingCutsOrRepeatsThePad) {
  auto b = Texts();
  ExpectEval(Fn("lpad", {col("s"), lit(8), lit("xy")}), b, arrow::utf8(), R"(["xya,b,,c", "héllo wö", null, "xyxyxyxy"])");
  ExpectEval(Fn("rpad", {col("s"), lit(3)}), b, arrow::utf8(), R"(["a,b", "hél", null, "   "])");
  ExpectEval(Fn("lpad", {col("s"), lit(-1)}), b, arrow::utf8(), R"(["", "", null, ""])");
  ExpectEval(Fn("rpad", {col("s"), lit(8), lit("")}), b, arrow::utf8(), R"(["a,b,,c", "héllo wö", null, ""])");
}

TEST(ExprFnString, CaseTrimReverseRepeatLeftRight) {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8())});
  auto b = BatchFromJson(schema, R"([{"s": "  hÉllo  wORLD "}, {"s": null}])");
  ExpectEval(Fn("initcap", {col("s")}), b, arrow::utf8(), R"(["  Héllo  World ", null])");
  ExpectEval(Fn("ltrim", {col("s")}), b, arrow::utf8(), R"(["hÉllo  wORLD ", null])");
  ExpectEval(Fn("rtrim", {col("s")}), b, arrow::utf8(), R"(["  hÉllo  wORLD", null])");
  ExpectEval(Fn("reverse", {lit("añb")}), b, arrow::utf8(), R"(["bña", "bña"])");
  ExpectEval(Fn("repeat", {lit("ab"), lit(3)}), b, arrow::utf8(), R"(["ababab", "ababab"])");
  ExpectEval(Fn("repeat", {lit("ab"), lit(-1)}), b, arrow::utf8(), R"(["", ""])");
  ExpectEval(Fn("left", {lit("héllo"), lit(2)}), b, arrow::utf8(), R"(["hé", "hé"])");
  ExpectEval(Fn("right", {lit("héllo"), lit(4)}), b, arrow::utf8(), R"(["éllo", "éllo"])");
  ExpectEval(Fn("right", {lit("héllo"), lit(9)}), b, arrow::utf8(), R"(["héllo", "héllo"])");
  ExpectEval(Fn("left", {col("s"), lit(0)}), b, arrow::utf8(), R"(["", null])");
}

TEST(ExprFnString, ConcatWsSkipsNulls) {
  auto b = Texts();
  ExpectEval(Fn("concat_ws", {lit("-"), col("s"), lit("z")}), b, arrow::utf8(), R"(["a,b,,c-z", "héllo wörld-z", "z", "-z"])");
  ExpectEval(Fn("concat_ws", {lit("-")}), b, arrow::utf8(), R"(["", "", "", ""])");
}

TEST(ExprFnString, DigestsAndBase64) {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8())});
  auto b = BatchFromJson(schema, R"([{"s": "Spark"}, {"s": null}])");
  ExpectEval(Fn("md5", {col("s")}), b, arrow::utf8(), R"(["8cde774d6f7333752ed72cacddb05126", null])");
  ExpectEval(Fn("sha2", {col("s"), lit(256)}), b, arrow::utf8(),
             R"(["529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b", null])");
  ExpectEval(Fn("sha2", {col("s"), lit(1)}), b, arrow::utf8(), "[null, null]");
  ExpectEval(Fn("base64", {col("s")}), b, arrow::utf8(), R"(["U3Bhcms=", null])");
  ExpectEval(Fn("unbase64", {lit("U3Bhcms=")}), b, arrow::binary(), R"(["Spark", "Spark"])");
}

TEST(ExprFnString, SubstringTakesColumnPositions) {
  auto b = Texts();
  ExpectEval(substring(col("s"), 1, 3), b, arrow::utf8(), R"(["a,b", "hél", null, ""])");
  ExpectEval(Fn("substring", {col("s"), col("n"), lit(int64_t{3})}), b, arrow::utf8(), R"([",b,", "d", null, null])");
}

TEST(ExprFnString, IlikeIgnoresCase) {
  auto b = Texts();
  ExpectEval(Fn("ilike", {col("s"), lit("HÉ%")}), b, arrow::boolean(), "[false, true, null, false]");
}

}  // namespace
}  // namespace sluice
