// Expressions: arithmetic, comparison, logic, CASE/IN/coalesce, casts, filter/project, errors.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "api/access.h"
#include "exec/expr_eval.h"
#include "plan/expr.h"
#include "sluice/column.h"
#include "support/status.h"
#include "unit/expr_test_util.h"

namespace sluice {
namespace {

using ::testing::HasSubstr;

using testing::BatchFromJson;
using testing::ErrorOf;
using testing::ExpectEval;
using testing::Legacy;

std::shared_ptr<arrow::RecordBatch> Numbers() {
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("n", arrow::int32()),
                               arrow::field("price", arrow::float64()), arrow::field("name", arrow::utf8()),
                               arrow::field("ok", arrow::boolean())});
  return BatchFromJson(schema, R"([
    {"id": 1, "n": 10, "price": 2.5, "name": "apple", "ok": true},
    {"id": 2, "n": -7, "price": 4.0, "name": "Banana", "ok": false},
    {"id": null, "n": 3, "price": null, "name": null, "ok": null}])");
}

TEST(ExprArithmetic, IntegerOpsKeepWidestIntegerType) {
  auto b = Numbers();
  ExpectEval(col("id") + col("n"), b, arrow::int64(), "[11, -5, null]");
  ExpectEval(col("n") * lit(2), b, arrow::int32(), "[20, -14, 6]");
  ExpectEval(col("n") - lit(int64_t{1}), b, arrow::int64(), "[9, -8, 2]");
  ExpectEval(-col("n"), b, arrow::int32(), "[-10, 7, -3]");
}

TEST(ExprArithmetic, IntegerWithDoubleIsDouble) {
  auto b = Numbers();
  ExpectEval(col("price") * col("id"), b, arrow::float64(), "[2.5, 8.0, null]");
  ExpectEval(col("n") + lit(0.5), b, arrow::float64(), "[10.5, -6.5, 3.5]");
}

// Division by zero is an error under ANSI (expr_ansi_test.cc); Legacy() gives the non-ANSI results.

TEST(ExprArithmetic, DivisionIsAlwaysDoubleAndByZeroIsNullWithoutAnsi) {
  auto b = Numbers();
  ExpectEval(col("n") / lit(4), b, arrow::float64(), "[2.5, -1.75, 0.75]");
  ExpectEval(Legacy(col("n") / (col("n") - col("n"))), b, arrow::float64(), "[null, null, null]");
}

TEST(ExprArithmetic, RemainderHasSignOfDividendAndByZeroIsNullWithoutAnsi) {
  auto b = Numbers();
  ExpectEval(col("n") % lit(4), b, arrow::int32(), "[2, -3, 3]");
  ExpectEval(Legacy(col("n") % lit(0)), b, arrow::int32(), "[null, null, null]");
  ExpectEval(col("price") % lit(1.5), b, arrow::float64(), "[1.0, 1.0, null]");
}

TEST(ExprArithmetic, OverflowIsAnErrorNamingTheExpression) {
  auto schema = arrow::schema({arrow::field("big", arrow::int64())});
  auto b = BatchFromJson(schema, R"([{"big": 9223372036854775807}])");
  std::string error = ErrorOf(col("big") + lit(1), b);
  EXPECT_THAT(error, HasSubstr("overflow"));
  EXPECT_THAT(error, HasSubstr("(big + 1)"));
  EXPECT_THAT(ErrorOf(col("big") * lit(2), b), HasSubstr("(big * 2)"));
}

TEST(ExprArithmetic, DecimalFollowsSparkPrecisionRules) {
  auto schema = arrow::schema({arrow::field("amount", arrow::decimal128(10, 2))});
  auto b = BatchFromJson(schema, R"([{"amount": "12.34"}, {"amount": null}])");
  ExpectEval(col("amount") + col("amount"), b, arrow::decimal128(11, 2), R"(["24.68", null])");
  ExpectEval(col("amount") + lit(1), b, arrow::decimal128(13, 2), R"(["13.34", null])");
  ExpectEval(col("amount") * lit(0.5), b, arrow::float64(), "[6.17, null]");
}

TEST(ExprCompare, NumbersPromoteToACommonType) {
  auto b = Numbers();
  ExpectEval(col("n") > col("price"), b, arrow::boolean(), "[true, false, null]");
  ExpectEval(col("id") == lit(2), b, arrow::boolean(), "[false, true, null]");
  ExpectEval(col("n") != lit(3.0), b, arrow::boolean(), "[true, true, false]");
  ExpectEval(col("n") <= lit(int64_t{3}), b, arrow::boolean(), "[false, true, true]");
  ExpectEval(col("n") >= lit(10), b, arrow::boolean(), "[true, false, false]");
  ExpectEval(col("n") < lit(0), b, arrow::boolean(), "[false, true, false]");
}

TEST(ExprCompare, StringsCompareLexicographically) {
  auto b = Numbers();
  ExpectEval(col("name") == lit("apple"), b, arrow::boolean(), "[true, false, null]");
  ExpectEval(col("name") < lit("b"), b, arrow::boolean(), "[true, true, null]");
}

TEST(ExprCompare, IncomparableTypesAreATypeErrorNamingTypes) {
  std::string error = ErrorOf(col("name") + lit(1), Numbers());
  EXPECT_THAT(error, HasSubstr("cannot apply '+' to string and int in (name + 1)"));
  error = ErrorOf(col("name") == col("id"), Numbers());
  EXPECT_THAT(error, HasSubstr("string and bigint"));
  error = ErrorOf(col("ok") && col("n"), Numbers());
  EXPECT_THAT(error, HasSubstr("(ok AND n)"));
}

TEST(ExprLogic, ThreeValuedAndOrNot) {
  auto schema = arrow::schema({arrow::field("a", arrow::boolean()), arrow::field("b", arrow::boolean())});
  auto b = BatchFromJson(schema, R"([
    {"a": true, "b": null}, {"a": false, "b": null}, {"a": null, "b": null}, {"a": true, "b": false}])");
  ExpectEval(col("a") && col("b"), b, arrow::boolean(), "[null, false, null, false]");
  ExpectEval(col("a") || col("b"), b, arrow::boolean(), "[true, null, null, true]");
  ExpectEval(!col("a"), b, arrow::boolean(), "[false, true, null, false]");
}

TEST(ExprLogic, IsNullAndIsNotNullAreNeverNull) {
  auto b = Numbers();
  ExpectEval(col("id").isNull(), b, arrow::boolean(), "[false, false, true]");
  ExpectEval(col("name").isNotNull(), b, arrow::boolean(), "[true, true, false]");
  auto field = plan::ResolveExpr(*api::ExprOf(col("id").isNull()), *b->schema());
  ASSERT_OK(field);
  EXPECT_FALSE((*field)->nullable());
}

TEST(ExprLogic, CoalesceTakesFirstNonNullInCommonType) {
  auto b = Numbers();
  ExpectEval(coalesce({col("id"), col("n")}), b, arrow::int64(), "[1, 2, 3]");
  ExpectEval(coalesce({col("price"), lit(0)}), b, arrow::float64(), "[2.5, 4.0, 0.0]");
}

TEST(ExprLogic, CaseWhenPicksFirstTrueBranchAndNullConditionIsFalse) {
  auto b = Numbers();
  auto c = when(col("n") > lit(5), lit("big")).when(col("ok"), lit("ok")).otherwise(lit("other"));
  ExpectEval(c, b, arrow::utf8(), R"(["big", "other", "other"])");
  ExpectEval(when(col("ok"), col("id")), b, arrow::int64(), "[1, null, null]");
  ExpectEval(when(col("ok"), lit(1)).otherwise(col("price")), b, arrow::float64(), "[1.0, 4.0, null]");
  EXPECT_EQ(c.toString(), "CASE WHEN (n > 5) THEN 'big' WHEN ok THEN 'ok' ELSE 'other' END");
}

TEST(ExprLogic, WhenMisuseIsReportedAtResolution) {
  EXPECT_THAT(ErrorOf(col("n").otherwise(lit(1)), Numbers()), HasSubstr("otherwise()"));
  EXPECT_THAT(ErrorOf(when(col("ok"), lit(1)).otherwise(lit(2)).when(col("ok"), lit(3)), Numbers()),
              HasSubstr("when()"));
  EXPECT_THAT(ErrorOf(when(col("n"), lit(1)), Numbers()), HasSubstr("must be boolean"));
}

TEST(ExprLogic, InListFollowsSqlNullSemantics) {
  auto b = Numbers();
  ExpectEval(col("n").isin({lit(3), lit(10)}), b, arrow::boolean(), "[true, false, true]");
  ExpectEval(col("id").isin({lit(2)}), b, arrow::boolean(), "[false, true, null]");
  // No match and a NULL in the list: NULL, as x IN (2, NULL) is unknown.
  ExpectEval(col("id").isin({lit(2), litNull("bigint")}), b, arrow::boolean(), "[null, true, null]");
  ExpectEval(col("name").isin({lit("apple"), col("name")}), b, arrow::boolean(), "[true, true, null]");
  EXPECT_EQ(col("n").isin({lit(3), lit(10)}).toString(), "(n IN (3, 10))");
}

TEST(ExprCast, SparkTypeNamesAndNonAnsiNulls) {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("d", arrow::float64())});
  auto b = BatchFromJson(schema, R"([{"s": " 42 ", "d": 1.7}, {"s": "abc", "d": -2.9}, {"s": null, "d": null}])");
  ExpectEval(Legacy(col("s").cast("bigint")), b, arrow::int64(), "[42, null, null]");
  ExpectEval(col("d").cast("int"), b, arrow::int32(), "[1, -2, null]");
  ExpectEval(col("d").cast("string"), b, arrow::utf8(), R"(["1.7", "-2.9", null])");
  ExpectEval(Legacy(col("s").cast("decimal(5,1)")), b, arrow::decimal128(5, 1), R"(["42.0", null, null])");
  EXPECT_EQ(col("d").cast("bigint").toString(), "CAST(d AS BIGINT)");
}

TEST(ExprCast, UnknownTypeNameIsReportedWithValidNames) {
  std::string error = ErrorOf(col("n").cast("bigintt"), Numbers());
  EXPECT_THAT(error, HasSubstr("Unknown type 'bigintt'"));
  EXPECT_THAT(error, HasSubstr("bigint"));
}

TEST(ExprResolve, UnknownColumnNamesItListsColumnsAndSuggests) {
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("price", arrow::float64())});
  auto field = plan::ResolveExpr(*api::ExprOf((col("pricee") * lit(2))), *schema);
  ASSERT_FALSE(field.ok());
  const std::string& msg = field.status().message();
  EXPECT_THAT(msg, HasSubstr("Column 'pricee' does not exist."));
  EXPECT_THAT(msg, HasSubstr("Did you mean 'price'?"));
  EXPECT_THAT(msg, HasSubstr("Available columns: [id, price]"));
}

TEST(ExprResolve, OutputNamesFollowSpark) {
  auto schema = Numbers()->schema();
  auto name_of = [&](const Column& c) { return (*plan::ResolveExpr(*api::ExprOf(c), *schema))->name(); };
  EXPECT_EQ(name_of(col("price") * lit(1.1)), "(price * 1.1)");
  EXPECT_EQ(name_of(upper(col("name"))), "upper(name)");
  EXPECT_EQ(name_of(col("price").alias("p")), "p");
  EXPECT_EQ(name_of(col("n")), "n");
  EXPECT_EQ(name_of(lit("x")), "x");
  EXPECT_EQ(name_of(lit(2.0)), "2.0");
  EXPECT_EQ(name_of(!(col("ok") || col("n").isNull())), "(NOT (ok OR (n IS NULL)))");
}

TEST(ExprResolve, NullabilityFollowsInputs) {
  auto schema = arrow::schema({arrow::field("a", arrow::int64(), false), arrow::field("b", arrow::int64(), true)});
  EXPECT_FALSE((*plan::ResolveExpr(*api::ExprOf((col("a") + lit(1))), *schema))->nullable());
  EXPECT_TRUE((*plan::ResolveExpr(*api::ExprOf((col("a") + col("b"))), *schema))->nullable());
  EXPECT_TRUE((*plan::ResolveExpr(*api::ExprOf((col("a") / lit(1))), *schema))->nullable());
  EXPECT_FALSE((*plan::ResolveExpr(*api::ExprOf(coalesce({col("b"), col("a")})), *schema))->nullable());
}

TEST(ExprResolve, StarIsRecognisedAndRejectedInsideExpressions) {
  EXPECT_TRUE(plan::IsStar(*api::ExprOf(col("*"))));
  EXPECT_TRUE(plan::IsStar(*api::ExprOf(col("t.*"))));
  EXPECT_FALSE(plan::IsStar(*api::ExprOf(col("id"))));
  EXPECT_FALSE(plan::ResolveExpr(*api::ExprOf((col("*") + lit(1))), *Numbers()->schema()).ok());
}

TEST(ExprResolve, CheckPredicateRejectsNonBoolean) {
  auto schema = Numbers()->schema();
  EXPECT_OK(plan::CheckPredicate(*api::ExprOf((col("n") > lit(1))), *schema));
  auto st = plan::CheckPredicate(*api::ExprOf((col("n") + lit(1))), *schema);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("(n + 1) must be boolean, but it is int"));
}

TEST(ExprText, CanonicalTextIsDeterministic) {
  EXPECT_EQ((col("a") + lit(1) * col("b")).toString(), "(a + (1 * b))");
  EXPECT_EQ((col("a") - lit(int64_t{5})).toString(), "(a - 5)");
  EXPECT_EQ((col("s") == lit("it's")).toString(), "(s = 'it\\'s')");
  EXPECT_EQ(col("s").like("a%").toString(), "s LIKE 'a%'");
  EXPECT_EQ(litNull("int").toString(), "CAST(NULL AS INT)");
  EXPECT_EQ(coalesce({col("a"), lit(true)}).toString(), "coalesce(a, true)");
  EXPECT_EQ((col("a") >= lit(0.25)).alias("x").toString(), "(a >= 0.25) AS x");
  EXPECT_EQ(substring(col("s"), 2, 3).toString(), "substring(s, 2, 3)");
  EXPECT_EQ(date_trunc("hour", col("ts")).toString(), "date_trunc('hour', ts)");
}

TEST(ExprFilterProject, FilterDropsFalseAndNullRows) {
  auto b = Numbers();
  auto kept = exec::FilterBatch(*api::ExprOf((col("n") > lit(0))), b);
  ASSERT_OK(kept);
  EXPECT_EQ((*kept)->num_rows(), 2);
  auto by_bool = exec::FilterBatch(*api::ExprOf(col("ok")), b);  // row 3 has ok = NULL
  ASSERT_OK(by_bool);
  ASSERT_EQ((*by_bool)->num_rows(), 1);
  EXPECT_EQ((*by_bool)->GetColumnByName("name")->ToString(), testing::ArrayFromJson(arrow::utf8(), R"(["apple"])")->ToString());
  EXPECT_EQ((*exec::FilterBatch(*api::ExprOf(lit(true)), b))->num_rows(), 3);
  EXPECT_EQ((*exec::FilterBatch(*api::ExprOf(litNull("boolean")), b))->num_rows(), 0);
  EXPECT_FALSE(exec::FilterBatch(*api::ExprOf(col("n")), b).ok());
}

TEST(ExprFilterProject, ProjectBroadcastsScalars) {
  auto b = Numbers();
  std::vector<plan::ExprPtr> exprs = {api::ExprOf(col("id")), api::ExprOf(lit(7).alias("seven")), api::ExprOf((lit(1) + lit(2)))};
  arrow::FieldVector fields;
  for (const auto& e : exprs) fields.push_back(*plan::ResolveExpr(*e, *b->schema()));
  auto out = exec::ProjectBatch(exprs, arrow::schema(fields), b);
  ASSERT_OK(out);
  EXPECT_EQ((*out)->num_rows(), 3);
  EXPECT_EQ((*out)->schema()->field(1)->name(), "seven");
  EXPECT_EQ((*out)->schema()->field(2)->name(), "(1 + 2)");
  EXPECT_TRUE((*out)->column(1)->Equals(*testing::ArrayFromJson(arrow::int32(), "[7, 7, 7]")));
  EXPECT_TRUE((*out)->column(2)->Equals(*testing::ArrayFromJson(arrow::int32(), "[3, 3, 3]")));
}

}  // namespace
}  // namespace sluice
