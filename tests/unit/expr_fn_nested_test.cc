// Arrays, structs and the JSON functions: Spark's types, 0- and 1-based indexes, NULL rules,
// the ANSI/legacy split for out-of-range indexes, PERMISSIVE from_json.
#include <arrow/api.h>
#include <arrow/json/from_string.h>
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
using testing::Legacy;

std::shared_ptr<arrow::RecordBatch> Rows() {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("n", arrow::int32()),
                               arrow::field("j", arrow::utf8())});
  return BatchFromJson(schema, R"([
    {"s": "a,b,,c", "n": 2, "j": "{\"a\": 1, \"b\": \"x\", \"arr\": [10, 20], \"o\": {\"z\": 1, \"c\": true}}"},
    {"s": "hello", "n": -1, "j": "{\"a\": \"no\", \"b\": 2.5}"},
    {"s": null, "n": 3, "j": "not json"},
    {"s": "", "n": null, "j": null}])");
}

std::shared_ptr<arrow::DataType> Strings() { return arrow::list(arrow::utf8()); }

TEST(ExprFnNested, StructNamesFieldsAfterColumnsAndReadsThemBack) {
  auto b = Rows();
  auto st = struct_({col("s"), col("n") + lit(1)});
  auto type = arrow::struct_({arrow::field("s", arrow::utf8()), arrow::field("col2", arrow::int32())});
  ExpectEval(st, b, type, R"([{"s": "a,b,,c", "col2": 3}, {"s": "hello", "col2": 0}, {"s": null, "col2": 4},
                              {"s": "", "col2": null}])");
  ExpectEval(st.getField("col2"), b, arrow::int32(), "[3, 0, 4, null]");
  ExpectEval(named_struct({lit("x"), col("n")}).getField("X"), b, arrow::int32(), "[2, -1, 3, null]");  // any case
  EXPECT_EQ(plan::OutputName(*api::ExprOf(st.getField("s"))), "s");
  EXPECT_THAT(ErrorOf(st.getField("nope"), b), HasSubstr("No such struct field 'nope'"));
  EXPECT_THAT(ErrorOf(col("s").getField("a"), b), HasSubstr("needs a struct"));
  EXPECT_THAT(ErrorOf(named_struct({col("s"), col("n")}), b), HasSubstr("must be a non-null string literal"));
}

TEST(ExprFnNested, ArrayTakesTheCommonTypeOfItsElements) {
  auto b = Rows();
  ExpectEval(array({col("n"), lit(int64_t{7})}), b, arrow::list(arrow::int64()), "[[2, 7], [-1, 7], [3, 7], [null, 7]]");
  ExpectEval(array({}), b->Slice(0, 1), arrow::list(arrow::null()), "[[]]");
  EXPECT_THAT(ErrorOf(array({col("s"), col("n")}), b), HasSubstr("cannot apply 'array'"));
}

TEST(ExprFnNested, SplitKeepsTrailingEmptyPiecesAndHonoursTheLimit) {
  auto b = Rows();
  ExpectEval(split(col("s"), ","), b, Strings(), R"([["a", "b", "", "c"], ["hello"], null, [""]])");
  ExpectEval(split(col("s"), ",", 2), b, Strings(), R"([["a", "b,,c"], ["hello"], null, [""]])");
  ExpectEval(split(col("s"), "[,l]+"), b, Strings(), R"([["a", "b", "c"], ["he", "o"], null, [""]])");
  ExpectEval(size(split(col("s"), ",")), b, arrow::int32(), "[4, 1, null, 1]");
  ExpectEval(Legacy(size(split(col("s"), ","))), b, arrow::int32(), "[4, 1, -1, 1]");  // legacy sizeOfNull
}

TEST(ExprFnNested, ElementAtIsOneBasedAndTheSubscriptZeroBased) {
  auto b = Rows()->Slice(0, 1);
  auto parts = split(col("s"), ",");
  ExpectEval(element_at(parts, 1), b, arrow::utf8(), R"(["a"])");
  ExpectEval(element_at(parts, -1), b, arrow::utf8(), R"(["c"])");
  ExpectEval(parts.getItem(1), b, arrow::utf8(), R"(["b"])");
  ExpectEval(Fn("element_at", {parts, col("n")}), Rows(), arrow::utf8(), R"(["b", "hello", null, null])");
  EXPECT_THAT(ErrorOf(element_at(parts, 5), b), HasSubstr("[INVALID_ARRAY_INDEX_IN_ELEMENT_AT] The index 5 is out of bounds"));
  EXPECT_THAT(ErrorOf(parts.getItem(4), b), HasSubstr("[INVALID_ARRAY_INDEX]"));
  EXPECT_THAT(ErrorOf(Legacy(element_at(parts, 0)), b), HasSubstr("[INVALID_INDEX_OF_ZERO]"));
  ExpectEval(Legacy(element_at(parts, 5)), b, arrow::utf8(), "[null]");
  ExpectEval(Legacy(parts.getItem(-1)), b, arrow::utf8(), "[null]");
}

TEST(ExprFnNested, ArrayContainsIsNullWhenOnlyANullElementCouldMatch) {
  auto b = Rows();
  ExpectEval(array_contains(split(col("s"), ","), lit("b")), b, arrow::boolean(), "[true, false, null, false]");
  ExpectEval(array_contains(array({lit(1), litNull("int")}), col("n")), b, arrow::boolean(), "[null, null, null, null]");
  ExpectEval(array_contains(array({lit(2), litNull("int")}), col("n")), b, arrow::boolean(), "[true, null, null, null]");
  ExpectEval(array_contains(array({lit(1), lit(2)}), lit(2)), b->Slice(0, 1), arrow::boolean(), "[true]");
}

// Maps: the value of the first entry with the key (NULL when none, under ANSI too), keys and
// values in the map's order, entries counted; a sliced batch reads its own rows.
TEST(ExprFnNested, MapFunctionsReadTheFirstEntryWithTheKey) {
  auto map_type = arrow::map(arrow::utf8(), arrow::int32());
  auto m = arrow::json::ArrayFromJSONString(
      map_type, R"([[["x", 0]], [["b", 1], ["a", null], ["b", 2]], [], null, [["a", 5]]])");
  ASSERT_OK(m);
  auto k = testing::ArrayFromJson(arrow::utf8(), R"(["x", "b", "a", "a", null])");
  auto schema = arrow::schema({arrow::field("m", map_type), arrow::field("k", arrow::utf8())});
  auto b = arrow::RecordBatch::Make(schema, 5, {*m, k})->Slice(1);
  ExpectEval(Fn("get_field", {col("m"), lit("b")}), b, arrow::int32(), "[1, null, null, null]");
  ExpectEval(Fn("get_item", {col("m"), col("k")}), b, arrow::int32(), "[1, null, null, null]");
  ExpectEval(Fn("element_at", {col("m"), lit("a")}), b, arrow::int32(), "[null, null, null, 5]");
  ExpectEval(Fn("element_at", {col("m"), lit("zz")}), b, arrow::int32(), "[null, null, null, null]");
  ExpectEval(Fn("map_keys", {col("m")}), b, Strings(), R"([["b", "a", "b"], [], null, ["a"]])");
  ExpectEval(Fn("map_values", {col("m")}), b, arrow::list(arrow::int32()), "[[1, null, 2], [], null, [5]]");
  ExpectEval(Fn("size", {col("m")}), b, arrow::int32(), "[3, 0, null, 1]");
  ExpectEval(Legacy(Fn("cardinality", {col("m")})), b, arrow::int32(), "[3, 0, -1, 1]");
  ExpectEval(Fn("map_contains_key", {col("m"), col("k")}), b, arrow::boolean(), "[true, false, null, null]");
  EXPECT_THAT(ErrorOf(Fn("map_keys", {col("k")}), b), HasSubstr("argument 1 of map_keys must be a map"));
  EXPECT_THAT(ErrorOf(Fn("element_at", {col("m"), lit(1)}), b), HasSubstr("the map's key type"));
}

TEST(ExprFnNested, FromJsonIsPermissive) {
  auto b = Rows();
  auto type = arrow::struct_({arrow::field("a", arrow::int32()), arrow::field("b", arrow::utf8())});
  auto parsed = from_json(col("j"), "a INT, b STRING");
  // A value of the wrong JSON kind is NULL; a non-string JSON value read as STRING is its text;
  // text that is not JSON gives a struct of NULLs; a NULL string a NULL struct.
  ExpectEval(parsed, b, type, R"([{"a": 1, "b": "x"}, {"a": null, "b": "2.5"}, {"a": null, "b": null}, null])");
  ExpectEval(parsed.getField("a"), b, arrow::int32(), "[1, null, null, null]");
  ExpectEval(from_json(col("j"), "o STRING, arr STRING").getField("o"), b->Slice(0, 1), arrow::utf8(),
             R"(["{\"z\":1,\"c\":true}"])");  // keys in the order written
  EXPECT_THAT(ErrorOf(from_json(col("j"), "a WIBBLE"), b), HasSubstr("is not a DDL schema"));
}

TEST(ExprFnNested, ToJsonLeavesNullFieldsOut) {
  auto b = Rows();
  ExpectEval(to_json(named_struct({lit("n"), col("n"), lit("s"), col("s")})), b, arrow::utf8(),
             R"(["{\"n\":2,\"s\":\"a,b,,c\"}", "{\"n\":-1,\"s\":\"hello\"}", "{\"n\":3}", "{\"s\":\"\"}"])");
  ExpectEval(to_json(split(col("s"), ",")), b, arrow::utf8(), R"(["[\"a\",\"b\",\"\",\"c\"]", "[\"hello\"]", null, "[\"\"]"])");
  EXPECT_THAT(ErrorOf(to_json(col("n")), b), HasSubstr("to_json needs a struct or an array"));
}

TEST(ExprFnNested, GetJsonObjectFollowsThePath) {
  auto b = Rows();
  ExpectEval(get_json_object(col("j"), "$.a"), b, arrow::utf8(), R"(["1", "no", null, null])");
  ExpectEval(get_json_object(col("j"), "$.arr[1]"), b, arrow::utf8(), R"(["20", null, null, null])");
  ExpectEval(get_json_object(col("j"), "$['o'].c"), b, arrow::utf8(), R"(["true", null, null, null])");
  ExpectEval(get_json_object(col("j"), "$.o"), b, arrow::utf8(), R"(["{\"z\":1,\"c\":true}", null, null, null])");
  ExpectEval(get_json_object(col("j"), "a"), b, arrow::utf8(), "[null, null, null, null]");  // not a path
}

TEST(ExprFnNested, GeneratorsAreRefusedInsideExpressions) {
  auto b = Rows();
  EXPECT_THAT(ErrorOf(upper(explode(split(col("s"), ","))), b), HasSubstr("is a generator"));
  EXPECT_EQ(plan::TypeName(*arrow::struct_({arrow::field("a", arrow::list(arrow::int32()))})), "struct<a:array<int>>");
}

}  // namespace
}  // namespace sluice
