// JSON-lines schema inference (source/schema_inference.h): Spark's JsonInferSchema rules, each
// file read a block of lines at a time. The same rules are checked against PySpark by the
// static-read cases of the conformance suite (tests/conformance/cases/static_json.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "file_source_test_util.h"
#include "source/schema_inference.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using testing::TempDir;
using testing::WriteFile;

FileFormatOptions Json(ParseMode mode = ParseMode::kPermissive) {
  FileFormatOptions o;
  o.format = "json";
  o.mode = mode;
  return o;
}

// The schema inferred from `files` (each a file's text), as "name: type" lines.
Result<std::string> Infer(const std::vector<std::string>& files, const FileFormatOptions& options = Json(),
                          int64_t block_bytes = kLineBlockBytes) {
  auto inference = MakeJsonSchemaInference(options, block_bytes);
  ARROW_ASSIGN_OR_RAISE(auto schema, testing::InferFromContents(*inference, files, "json"));
  if (!schema) return std::string("(none)");
  return schema->ToString();
}

std::string InferOk(const std::vector<std::string>& files, const FileFormatOptions& options = Json(),
                    int64_t block_bytes = kLineBlockBytes) {
  auto r = Infer(files, options, block_bytes);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : r.status().ToString();
}

TEST(JsonSchemaInference, ScalarTypesAndFieldsSortedByName) {
  EXPECT_EQ(InferOk({"{\"s\":\"x\",\"b\":true,\"l\":1,\"d\":1.5,\"e\":1e3,\"n\":null}\n"}),
            "b: bool\nd: double\ne: double\nl: int64\nn: string\ns: string");
}

TEST(JsonSchemaInference, StringsStayStringsWhateverTheyLookLike) {
  EXPECT_EQ(InferOk({"{\"t\":\"2024-01-01T00:00:00\",\"d\":\"2024-01-01\",\"n\":\"12\"}\n"}),
            "d: string\nn: string\nt: string");
}

TEST(JsonSchemaInference, IntegersBeyondBigintAreDecimalsOfTheirDigits) {
  EXPECT_EQ(InferOk({"{\"a\":9223372036854775807,\"b\":-9223372036854775808}\n"}), "a: int64\nb: int64");
  EXPECT_EQ(InferOk({"{\"a\":9223372036854775808,\"b\":-9223372036854775809}\n"}),
            "a: decimal128(19, 0)\nb: decimal128(19, 0)");
  EXPECT_EQ(InferOk({"{\"a\":12345678901234567890123456789012345678}\n"}), "a: decimal128(38, 0)");
  EXPECT_EQ(InferOk({"{\"a\":123456789012345678901234567890123456789}\n"}), "a: double");
}

TEST(JsonSchemaInference, ConflictingTypesWidenOrBecomeStrings) {
  EXPECT_EQ(InferOk({"{\"a\":1}\n{\"a\":2.5}\n"}), "a: double");
  EXPECT_EQ(InferOk({"{\"a\":1}\n", "{\"a\":\"x\"}\n"}), "a: string");  // across files too
  EXPECT_EQ(InferOk({"{\"a\":true}\n{\"a\":1}\n"}), "a: string");
  EXPECT_EQ(InferOk({"{\"a\":{\"x\":1}}\n{\"a\":[1]}\n"}), "a: string");
  EXPECT_EQ(InferOk({"{\"a\":null}\n{\"a\":[1]}\n{\"a\":null}\n"}), "a: list<element: int64>");
  // BIGINT with a decimal: a decimal of at least 20 integer digits; with a double: DOUBLE.
  EXPECT_EQ(InferOk({"{\"a\":1}\n{\"a\":12345678901234567890}\n"}), "a: decimal128(20, 0)");
  EXPECT_EQ(InferOk({"{\"a\":1.5}\n{\"a\":12345678901234567890}\n"}), "a: double");
}

TEST(JsonSchemaInference, NestedStructsMergeFieldByFieldSortedAndArraysByElement) {
  EXPECT_EQ(InferOk({"{\"s\":{\"z\":1,\"a\":\"x\"},\"l\":[1,2]}\n{\"s\":{\"m\":true,\"z\":2.5},\"l\":[2.5]}\n"}),
            "l: list<element: double>\ns: struct<a: string, m: bool, z: double>");
  EXPECT_EQ(InferOk({"{\"l\":[{\"b\":1},{\"a\":\"x\"}]}\n"}), "l: list<element: struct<a: string, b: int64>>");
}

TEST(JsonSchemaInference, EmptyStructsAndNamelessFieldsAreLeftOutAndNullsAreStrings) {
  EXPECT_EQ(InferOk({"{\"a\":null,\"b\":[],\"c\":{},\"d\":[{}],\"\":1,\"e\":1}\n{\"b\":[null]}\n"}),
            "a: string\nb: list<element: string>\ne: int64");
  FileFormatOptions drop = Json();
  drop.drop_field_if_all_null = true;
  EXPECT_EQ(InferOk({"{\"a\":null,\"b\":[],\"c\":{\"x\":null},\"e\":1}\n"}, drop), "e: int64");
}

TEST(JsonSchemaInference, PrimitivesAsStringAndPrefersDecimal) {
  const std::vector<std::string> files = {"{\"x\":1.50,\"y\":0.001,\"z\":1,\"b\":true,\"s\":\"t\"}\n{\"x\":12.5,\"y\":0.0}\n"};
  FileFormatOptions text = Json();
  text.primitives_as_string = true;
  EXPECT_EQ(InferOk(files, text), "b: string\ns: string\nx: string\ny: string\nz: string");
  FileFormatOptions decimal = Json();
  decimal.prefers_decimal = true;
  // 1.50 is DECIMAL(3,2) and 12.5 DECIMAL(3,1): both fit DECIMAL(4,2); integers stay BIGINT.
  EXPECT_EQ(InferOk(files, decimal), "b: bool\ns: string\nx: decimal128(4, 2)\ny: decimal128(3, 3)\nz: int64");
  EXPECT_EQ(InferOk({"{\"x\":1.5e-2,\"y\":0.5E1}\n"}, decimal), "x: decimal128(3, 3)\ny: decimal128(1, 0)");
  EXPECT_EQ(InferOk({"{\"x\":1.5}\n{\"x\":123456789012345678901234567890.123456789}\n"}, decimal), "x: double");
  // A negative scale (1e3 is 1 with scale -3) fails the inference, as in Spark.
  auto negative = Infer({"{\"x\":1}\n{\"x\":1e3}\n"}, decimal);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("line 2 gives the number 1e3, a decimal of negative scale"),
            std::string::npos) << negative.status().message();
}

TEST(JsonSchemaInference, MalformedLinesFollowTheMode) {
  const std::vector<std::string> files = {"{\"a\":1}\n{\"a\":2,bad\n5\n\"text\"\n[1,2]\n{\"b\":1} {\"c\":2}\n"};
  EXPECT_EQ(InferOk(files), "_corrupt_record: string\na: int64\nb: int64");
  FileFormatOptions named = Json();
  named.corrupt_column = "zz_bad";
  EXPECT_EQ(InferOk(files, named), "a: int64\nb: int64\nzz_bad: string");
  // The last line's first object counts; what follows it is ignored, as Spark does.
  EXPECT_EQ(InferOk(files, Json(ParseMode::kDropMalformed)), "a: int64\nb: int64");
  // Only malformed lines: the corrupt-record column alone.
  EXPECT_EQ(InferOk({"5\n"}), "_corrupt_record: string");
  EXPECT_EQ(InferOk({"5\n"}, Json(ParseMode::kDropMalformed)), "(none)");
}

TEST(JsonSchemaInference, FailFastNamesTheFileAndTheLineAcrossBlocks) {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "{\"a\":" + std::to_string(i) + "}\n";
  text += "{\"a\":oops}\n";
  TempDir dir;
  const std::string path = dir.Sub("in.json");
  WriteFile(path, text);
  for (int64_t block : {int64_t{7}, int64_t{64}, kLineBlockBytes}) {
    auto inference = MakeJsonSchemaInference(Json(ParseMode::kFailFast), block);
    Status st = inference->AddFile(io::LocalFileSystem().get(), path);
    ASSERT_FALSE(st.ok()) << block;
    EXPECT_FALSE(st.IsIOError());  // not a file that cannot be read: ignoreCorruptFiles does not skip it
    EXPECT_NE(st.message().find("Parse Mode: FAILFAST"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find(io::PathToUri(path) + " line 51:"), std::string::npos) << st.message();
  }
}

TEST(JsonSchemaInference, TopLevelArraysHoldRecords) {
  EXPECT_EQ(InferOk({"[{\"b\":1},{\"a\":\"x\"}]\n[]\n[null]\n"}), "a: string\nb: int64");
  EXPECT_EQ(InferOk({"[[{\"a\":1}]]\n"}), "a: int64");
  // An array with an element that is not an object is not a record.
  EXPECT_EQ(InferOk({"{\"a\":1}\n[{\"a\":2},5]\n"}), "_corrupt_record: string\na: int64");
}

TEST(JsonSchemaInference, BlankAndNullLinesHoldNoRecord) {
  EXPECT_EQ(InferOk({"\n  \n\t\r\nnull\n{\"a\":1}\r\n"}), "a: int64");
  EXPECT_EQ(InferOk({"\n\nnull\n"}), "(none)");
  EXPECT_EQ(InferOk({""}), "(none)");
}

TEST(JsonSchemaInference, AFieldTwiceInOneObjectFailsNamingTheLine) {
  for (auto mode : {ParseMode::kPermissive, ParseMode::kDropMalformed}) {
    auto r = Infer({"{\"a\":1}\n{\"s\":{\"a\":1,\"a\":2}}\n"}, Json(mode));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("line 2 names the field \"a\" twice"), std::string::npos)
        << r.status().message();
  }
}

TEST(JsonSchemaInference, NamesDifferingOnlyInCaseAreRefused) {
  for (const std::string& text : {std::string("{\"A\":1}\n{\"a\":2}\n"), std::string("{\"s\":{\"x\":1,\"X\":2}}\n"),
                                  std::string("{\"l\":[{\"Ab\":1}]}\n{\"l\":[{\"aB\":1}]}\n")}) {
    auto r = Infer({text});
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find("differ only in case"), std::string::npos) << r.status().message();
  }
  EXPECT_EQ(InferOk({"{\"a\":{\"a\":1},\"b\":[{\"b\":1}]}\n"}), "a: struct<a: int64>\nb: list<element: struct<b: int64>>");
}

TEST(JsonSchemaInference, SmallBlocksInferWhatOneBlockDoes) {
  std::string text = "\n";
  for (int i = 0; i < 300; ++i) {
    switch (i % 6) {
      case 0: text += "{\"a\":" + std::to_string(i) + ",\"s\":{\"x\":\"" + std::string(i % 40, 'x') + "\"}}\n"; break;
      case 1: text += "{\"b\":[1," + std::to_string(i) + ".5]}\r\n"; break;
      case 2: text += "\n"; break;
      case 3: text += "{\"s\":{\"y\":true}," + std::string(i % 13, ' ') + "\"c\":null}\n"; break;
      case 4: text += "[{\"d\":" + std::to_string(i) + "}]\n"; break;
      default: text += i == 299 ? "{\"a\":\"last\"}" : "{\"a\":" + std::to_string(i) + "}\n"; break;
    }
  }
  const std::string whole = InferOk({text});
  EXPECT_EQ(whole, "a: string\nb: list<element: double>\nc: string\nd: int64\ns: struct<x: string, y: bool>");
  for (int64_t block : {int64_t{1}, int64_t{17}, int64_t{256}}) EXPECT_EQ(InferOk({text}, Json(), block), whole) << block;
}

// A block of a few MiB is folded on several threads, a range of lines each: the same schema as
// folding it on one, and a FAILFAST error names the same (first) malformed line.
TEST(JsonSchemaInference, ABlockFoldedInParallelInfersWhatOneThreadDoes) {
  std::string text;
  int64_t lines = 0;
  for (int i = 0; text.size() < (3u << 20); ++i, ++lines) {
    if (i == 20000) text += "{\"late\":[{\"x\":1.5}]}\n";
    else if (i == 40000) text += "{\"late\":[{\"y\":true}],\"id\":\"s\"}\n";
    else text += "{\"id\":" + std::to_string(i) + ",\"pad\":\"" + std::string(i % 50, 'p') + "\"}\n";
  }
  const std::string want = "id: string\nlate: list<element: struct<x: double, y: bool>>\npad: string";
  EXPECT_EQ(InferOk({text}), want);                 // 16 MiB blocks: one block, folded in parallel
  EXPECT_EQ(InferOk({text}, Json(), 256 << 10), want);  // blocks too small to split
  const std::string bad = text + "{\"id\":1,oops}\n" + text + "{\"id\":2,oops}\n";
  for (int64_t block : {kLineBlockBytes, int64_t{256 << 10}}) {
    auto r = Infer({bad}, Json(ParseMode::kFailFast), block);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(" line " + std::to_string(lines + 1) + ":"), std::string::npos)
        << r.status().message();
  }
}

TEST(JsonSchemaInference, AFileThatCannotBeReadIsAnIOError) {
  TempDir dir;
  auto inference = MakeJsonSchemaInference(Json());
  Status st = inference->AddFile(io::LocalFileSystem().get(), dir.Sub("missing.json"));
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
}

}  // namespace
}  // namespace sluice::source
