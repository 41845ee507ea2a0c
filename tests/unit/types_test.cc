// Spark/SQL type names and DDL schema strings.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include "plan/expr.h"
#include "support/status.h"

namespace sluice::plan {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<arrow::DataType> Parse(const std::string& name) {
  auto t = ParseTypeName(name);
  EXPECT_OK(t) << name;
  return t.ok() ? *t : arrow::null();
}

TEST(TypeNames, SparkAndSqlAliasesMapToArrowTypes) {
  for (const char* n : {"bigint", "LONG", "int8"}) EXPECT_TRUE(Parse(n)->Equals(*arrow::int64())) << n;
  for (const char* n : {"int", "Integer", "int4"}) EXPECT_TRUE(Parse(n)->Equals(*arrow::int32())) << n;
  for (const char* n : {"smallint", "short"}) EXPECT_TRUE(Parse(n)->Equals(*arrow::int16())) << n;
  for (const char* n : {"tinyint", "byte"}) EXPECT_TRUE(Parse(n)->Equals(*arrow::int8())) << n;
  for (const char* n : {"double", "float8", "DOUBLE  PRECISION"}) EXPECT_TRUE(Parse(n)->Equals(*arrow::float64())) << n;
  for (const char* n : {"float", "real", "float4"}) EXPECT_TRUE(Parse(n)->Equals(*arrow::float32())) << n;
  for (const char* n : {"boolean", "bool"}) EXPECT_TRUE(Parse(n)->Equals(*arrow::boolean())) << n;
  for (const char* n : {"string", "text", "varchar", "VARCHAR(20)", "varchar ( 20 )"}) {
    EXPECT_TRUE(Parse(n)->Equals(*arrow::utf8())) << n;
  }
  auto utc = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  for (const char* n : {"timestamp", "timestamptz"}) EXPECT_TRUE(Parse(n)->Equals(*utc)) << n;
  EXPECT_TRUE(Parse("timestamp_ntz")->Equals(*arrow::timestamp(arrow::TimeUnit::MICRO)));
  EXPECT_TRUE(Parse("date")->Equals(*arrow::date32()));
  EXPECT_TRUE(Parse("decimal(12, 3)")->Equals(*arrow::decimal128(12, 3)));
  EXPECT_TRUE(Parse("numeric(5,2)")->Equals(*arrow::decimal128(5, 2)));
  EXPECT_TRUE(Parse("decimal")->Equals(*arrow::decimal128(10, 0)));
  EXPECT_TRUE(Parse("binary")->Equals(*arrow::binary()));
}

TEST(TypeNames, UnknownTypeIsNamedAndValidOnesListed) {
  auto t = ParseTypeName("strng");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("Unknown type 'strng'"));
  EXPECT_THAT(t.status().message(), HasSubstr("string"));
  EXPECT_FALSE(ParseTypeName("decimal(40,2)").ok());
  EXPECT_FALSE(ParseTypeName("decimal(5,x)").ok());
}

TEST(TypeNames, TypeNameIsSparksName) {
  EXPECT_EQ(TypeName(*arrow::int64()), "bigint");
  EXPECT_EQ(TypeName(*arrow::int32()), "int");
  EXPECT_EQ(TypeName(*arrow::float64()), "double");
  EXPECT_EQ(TypeName(*arrow::utf8()), "string");
  EXPECT_EQ(TypeName(*arrow::boolean()), "boolean");
  EXPECT_EQ(TypeName(*arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")), "timestamp");
  EXPECT_EQ(TypeName(*arrow::timestamp(arrow::TimeUnit::MICRO)), "timestamp_ntz");
  EXPECT_EQ(TypeName(*arrow::decimal128(10, 2)), "decimal(10,2)");
  for (const char* n : {"bigint", "int", "smallint", "tinyint", "double", "float", "boolean", "string", "timestamp",
                        "timestamp_ntz", "date", "decimal(7,1)", "binary"}) {
    EXPECT_EQ(TypeName(*Parse(n)), n);  // round trip
  }
}

TEST(TypeDdl, ParsesNamesTypesAndNotNull) {
  auto schema = ParseSchemaDDL("id BIGINT, name STRING NOT NULL, ts TIMESTAMP, amount decimal(10, 2), `odd name` int");
  ASSERT_OK(schema);
  auto expected = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8(), false),
                                 arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                                 arrow::field("amount", arrow::decimal128(10, 2)), arrow::field("odd name", arrow::int32())});
  EXPECT_TRUE((*schema)->Equals(*expected)) << (*schema)->ToString();
}

TEST(TypeDdl, ErrorsNameTheColumn) {
  auto bad = ParseSchemaDDL("id BIGINT, price MONEY");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("column 'price'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("Unknown type 'MONEY'"));
  EXPECT_FALSE(ParseSchemaDDL("id").ok());
  EXPECT_FALSE(ParseSchemaDDL("id int, id bigint").ok());
  EXPECT_FALSE(ParseSchemaDDL("id int,").ok());
}

}  // namespace
}  // namespace sluice::plan
