// The JSON-lines readers (file_readers.h, json_simdjson_reader.h): every test runs against both
// `jsonReader` values, and the simdjson decoder is checked against Arrow's reader on the inputs
// where they could differ (it must decode the common case itself and decline everything else).
#include <arrow/array/concatenate.h>
#include <arrow/json/from_string.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "file_source_test_util.h"
#include "source/file_readers.h"
#include "source/json_simdjson_reader.h"
#include "source/schema_inference.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using ::testing::HasSubstr;

using testing::Rows;
using testing::TempDir;
using testing::WriteFile;
using Strings = std::vector<std::string>;

auto fs() { return io::LocalFileSystem(); }

class JsonLinesReaders : public ::testing::TestWithParam<JsonReader> {
 protected:
  FileFormatOptions Json(ParseMode mode = ParseMode::kPermissive) const {
    FileFormatOptions o;
    o.format = "json";
    o.mode = mode;
    o.json_reader = GetParam();
    return o;
  }
};

Result<FileReadResult> Read(const std::string& path, const std::shared_ptr<arrow::Schema>& schema,
                            const FileFormatOptions& o) {
  return ReadDataFile(fs().get(), path, schema, o, /*use_threads=*/true);
}

std::shared_ptr<arrow::Schema> ABC() {
  return arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8()),
                        arrow::field("c", arrow::float64())});
}

std::shared_ptr<arrow::Schema> WithCorrupt() {
  return arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8()),
                        arrow::field("_corrupt_record", arrow::utf8())});
}

TEST_P(JsonLinesReaders, JsonLinesProjectToDeclaredSchema) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "{\"b\":\"x\",\"a\":1,\"extra\":true}\n\n{\"a\":2}\n{\"c\":1.5,\"b\":\"z\"}");
  auto r = Read(dir.Sub("a.json"), ABC(), Json());
  ASSERT_OK(r);
  EXPECT_TRUE(r->table->schema()->Equals(*ABC()));
  EXPECT_EQ(Rows(r->table), (Strings{"1|x|null", "2|null|null", "null|z|1.5"}));
  EXPECT_EQ(r->malformed_rows, 0);
}

TEST_P(JsonLinesReaders, JsonDatesAndTimestampsDecodeAndBadDateIsMalformed) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "{\"d\":\"2024-01-02\",\"t\":\"2024-01-02T03:04:05\",\"ok\":true}\n{\"d\":\"soon\"}\n");
  auto schema = arrow::schema({arrow::field("d", arrow::date32()), arrow::field("t", arrow::timestamp(arrow::TimeUnit::MICRO)),
                               arrow::field("ok", arrow::boolean())});
  auto r = Read(dir.Sub("a.json"), schema, Json());
  ASSERT_OK(r);
  EXPECT_TRUE(r->table->schema()->Equals(*schema));
  EXPECT_EQ(Rows(r->table), (Strings{"2024-01-02|2024-01-02 03:04:05.000000|true", "null|null|null"}));
  EXPECT_EQ(r->malformed_rows, 1);
}

// Lines 2 and 4 are malformed: not JSON, and a string where a number is declared.
const char* kBadJson = "{\"a\":1,\"b\":\"x\"}\n{\"a\":\n{\"a\":3}\n{\"a\":\"four\"}\n{\"a\":5}\n";

TEST_P(JsonLinesReaders, MalformedJsonPermissiveKeepsRawLine) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), kBadJson);
  auto r = Read(dir.Sub("a.json"), WithCorrupt(), Json());
  ASSERT_OK(r);
  EXPECT_EQ(Rows(r->table), (Strings{"1|x|null", "null|null|{\"a\":", "3|null|null", "null|null|{\"a\":\"four\"}",
                                     "5|null|null"}));
  EXPECT_EQ(r->malformed_rows, 2);
  // Without a corrupt-record column the rows are all null.
  auto plain = Read(dir.Sub("a.json"), arrow::schema({arrow::field("a", arrow::int64())}), Json());
  ASSERT_OK(plain);
  EXPECT_EQ(Rows(plain->table), (Strings{"1", "null", "3", "null", "5"}));
}

// Spark 4's PERMISSIVE partial results: a badly typed field is null, the record's other fields
// stay; a timestamp with more than six fractional digits is truncated, not malformed.
TEST_P(JsonLinesReaders, JsonBadFieldKeepsTheOthersAndLongFractionsTruncate) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "{\"a\":1,\"b\":\"x\",\"ts\":\"2024-01-01 00:00:00\"}\n"
                               "{\"a\":\"two\",\"b\":\"y\",\"ts\":\"2024-01-01 00:00:02\"}\n"
                               "{\"a\":3,\"b\":\"z\",\"ts\":\"2024-01-01 00:00:03.123456789\"}\n");
  auto schema = arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8()),
                               arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))});
  auto r = Read(dir.Sub("a.json"), schema, Json());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Rows(r->table), (Strings{"1|x|2024-01-01 00:00:00.000000Z", "null|y|2024-01-01 00:00:02.000000Z",
                                     "3|z|2024-01-01 00:00:03.123456Z"}));
  EXPECT_EQ(r->malformed_rows, 1);
}

TEST_P(JsonLinesReaders, MalformedJsonDropAndFailFast) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), kBadJson);
  auto dropped = Read(dir.Sub("a.json"), WithCorrupt(), Json(ParseMode::kDropMalformed));
  ASSERT_OK(dropped);
  EXPECT_EQ(Rows(dropped->table), (Strings{"1|x|null", "3|null|null", "5|null|null"}));
  EXPECT_EQ(dropped->malformed_rows, 2);

  auto failed = Read(dir.Sub("a.json"), WithCorrupt(), Json(ParseMode::kFailFast));
  ASSERT_FALSE(failed.ok());
  std::string prefix = "Malformed record in " + io::PathToUri(dir.Sub("a.json")) + " at line 2: ";
  EXPECT_EQ(failed.status().message().rfind(prefix, 0), 0u) << failed.status().message();
}

// Line 2 holds a byte that is not UTF-8 (0xFF) inside a string.
const std::string kNotUtf8Json = "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\xff" "z\"}\n{\"a\":3}\n";

TEST_P(JsonLinesReaders, JsonRecordThatIsNotUtf8IsMalformedInEveryMode) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), kNotUtf8Json);
  auto permissive = Read(dir.Sub("a.json"), WithCorrupt(), Json());
  ASSERT_OK(permissive);
  // _corrupt_record holds the line with U+FFFD in place of the bad byte: valid UTF-8.
  EXPECT_EQ(Rows(permissive->table),
            (Strings{"1|x|null", "null|null|{\"a\":2,\"b\":\"y\xEF\xBF\xBDz\"}", "3|null|null"}));
  EXPECT_EQ(permissive->malformed_rows, 1);
  ASSERT_OK(permissive->table->ValidateFull());
  // Without a corrupt-record column: a null row, not the bytes in column b.
  auto plain = Read(dir.Sub("a.json"), ABC(), Json());
  ASSERT_OK(plain);
  EXPECT_EQ(Rows(plain->table), (Strings{"1|x|null", "null|null|null", "3|null|null"}));

  auto dropped = Read(dir.Sub("a.json"), WithCorrupt(), Json(ParseMode::kDropMalformed));
  ASSERT_OK(dropped);
  EXPECT_EQ(Rows(dropped->table), (Strings{"1|x|null", "3|null|null"}));

  auto failed = Read(dir.Sub("a.json"), WithCorrupt(), Json(ParseMode::kFailFast));
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(),
              HasSubstr("Malformed record in " + io::PathToUri(dir.Sub("a.json")) + " at line 2: the record is not "
                        "valid UTF-8"));
}

TEST_P(JsonLinesReaders, BlankLinesCrlfAndAMissingFinalNewline) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "\r\n  {\"a\":1,\"b\":\"x\"}  \r\n\t\n{ \"a\" : 2 ,\t\"b\" : \"y\" }\r\n\n{\"a\":3}");
  auto r = Read(dir.Sub("a.json"), ABC(), Json(ParseMode::kFailFast));
  ASSERT_OK(r);
  EXPECT_EQ(Rows(r->table), (Strings{"1|x|null", "2|y|null", "3|null|null"}));
}

INSTANTIATE_TEST_SUITE_P(BothReaders, JsonLinesReaders, ::testing::Values(JsonReader::kSimdjson, JsonReader::kArrow),
                         [](const auto& info) { return info.param == JsonReader::kSimdjson ? "simdjson" : "arrow"; });

// ---- MAP columns (the simdjson reader only: Arrow's has no map type) -------------------------

FileFormatOptions SimdjsonJson(ParseMode mode = ParseMode::kPermissive) {
  FileFormatOptions o;
  o.format = "json";
  o.mode = mode;
  return o;
}

// Column `name` of `table` equals `json` (Arrow's JSON notation for arrays of `type`).
void ExpectColumn(const std::shared_ptr<arrow::Table>& table, const std::string& name, const std::string& json) {
  auto column = table->GetColumnByName(name);
  ASSERT_NE(column, nullptr) << name;
  ASSERT_OK_AND_ASSIGN(auto expected, arrow::json::ArrayFromJSONString(column->type(), json));
  ASSERT_OK_AND_ASSIGN(auto actual, arrow::Concatenate(column->chunks()));
  EXPECT_TRUE(actual->Equals(*expected)) << name << ": " << actual->ToString() << "\nexpected " << expected->ToString();
}

std::shared_ptr<arrow::DataType> StringTo(std::shared_ptr<arrow::DataType> value) {
  return arrow::map(arrow::utf8(), std::move(value));
}

// As Spark: keys in the record's order, a repeated key kept twice, null values kept; a null or
// missing map is NULL, an empty object an empty map.
TEST(JsonMapColumns, ObjectsReadAsMapsInRecordOrder) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "{\"id\":1,\"m\":{\"b\":1,\"a\":null,\"c\":3}}\n{\"id\":2,\"m\":null}\n{\"id\":3}\n"
                               "{\"m\":{},\"id\":4}\n{\"id\":5,\"m\":{\"a\":1,\"a\":2},\"other\":[1]}\n");
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("m", StringTo(arrow::int32()))});
  ASSERT_OK_AND_ASSIGN(auto r, Read(dir.Sub("a.json"), schema, SimdjsonJson()));
  EXPECT_TRUE(r.table->schema()->Equals(*schema));
  EXPECT_EQ(r.malformed_rows, 0);
  ExpectColumn(r.table, "id", "[1, 2, 3, 4, 5]");
  ExpectColumn(r.table, "m", R"([[["b", 1], ["a", null], ["c", 3]], null, null, [], [["a", 1], ["a", 2]]])");
}

TEST(JsonMapColumns, MapValuesOfEveryDecodedType) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"),
            R"({"l":{"a":[1,null,2],"b":null,"c":[]},"s":{"a":{"x":1,"y":"s","z":9},"b":{}},"mm":{"a":{"p":1},"b":null,"c":{}},)"
            R"("lm":[{"k":1},null,{}],"sm":{"m":{"k":1},"n":2},"t":{"a":"2024-01-01 10:00:00.123456789","b":"2024-01-01T10:00:00+01:00"},)"
            R"("d":{"a":"2024-02-29"},"f":{"a":1,"b":2.5},"bo":{"a":true},"st":{"a":"x"},"top":"2024-01-01 00:00:00.1234567"})"
            "\n");
  auto schema = arrow::schema({
      arrow::field("l", StringTo(arrow::list(arrow::int64()))),
      arrow::field("s", StringTo(arrow::struct_({arrow::field("x", arrow::int32()), arrow::field("y", arrow::utf8())}))),
      arrow::field("mm", StringTo(StringTo(arrow::int64()))),
      arrow::field("lm", arrow::list(StringTo(arrow::int64()))),
      arrow::field("sm", arrow::struct_({arrow::field("m", StringTo(arrow::int64())), arrow::field("n", arrow::int32())})),
      arrow::field("t", StringTo(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))),
      arrow::field("d", StringTo(arrow::date32())),
      arrow::field("f", StringTo(arrow::float32())),
      arrow::field("bo", StringTo(arrow::boolean())),
      arrow::field("st", StringTo(arrow::utf8())),
      arrow::field("top", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
  });
  ASSERT_OK_AND_ASSIGN(auto r, Read(dir.Sub("a.json"), schema, SimdjsonJson()));
  EXPECT_EQ(r.malformed_rows, 0);
  ExpectColumn(r.table, "l", R"([[["a", [1, null, 2]], ["b", null], ["c", []]]])");
  ExpectColumn(r.table, "s", R"([[["a", {"x": 1, "y": "s"}], ["b", {"x": null, "y": null}]]])");
  ExpectColumn(r.table, "mm", R"([[["a", [["p", 1]]], ["b", null], ["c", []]]])");
  ExpectColumn(r.table, "lm", R"([[[["k", 1]], null, []]])");
  ExpectColumn(r.table, "sm", R"([{"m": [["k", 1]], "n": 2}])");
  // Fractions beyond microseconds are cut (as Spark), an offset is converted to UTC.
  ExpectColumn(r.table, "t", R"([[["a", "2024-01-01 10:00:00.123456"], ["b", "2024-01-01 09:00:00"]]])");
  ExpectColumn(r.table, "d", R"([[["a", 19782]]])");
  ExpectColumn(r.table, "f", R"([[["a", 1.0], ["b", 2.5]]])");
  ExpectColumn(r.table, "bo", R"([[["a", true]]])");
  ExpectColumn(r.table, "st", R"([[["a", "x"]]])");
  ExpectColumn(r.table, "top", R"(["2024-01-01 00:00:00.123456"])");
}

// Each line 2..6 is malformed: an array, a string and a number where the map is declared, a
// badly typed value inside the map, and a record that is not JSON.
const char* kBadMaps =
    "{\"id\":1,\"m\":{\"a\":1},\"t\":\"x\"}\n"
    "{\"id\":2,\"m\":[1],\"t\":\"kept\"}\n"
    "{\"id\":3,\"m\":\"str\"}\n"
    "{\"id\":4,\"m\":5}\n"
    "{\"id\":5,\"m\":{\"a\":\"x\",\"b\":1.5},\"t\":\"kept\"}\n"
    "{\"id\":6,\"m\":\n"
    "{\"id\":7,\"m\":{\"b\":[]}}\n";

std::shared_ptr<arrow::Schema> MapWithCorrupt() {
  return arrow::schema({arrow::field("id", arrow::int64()), arrow::field("m", StringTo(arrow::int32())),
                        arrow::field("t", arrow::utf8()), arrow::field("_corrupt_record", arrow::utf8())});
}

TEST(JsonMapColumns, MalformedMapsPermissiveKeepTheOtherFields) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), kBadMaps);
  ASSERT_OK_AND_ASSIGN(auto r, Read(dir.Sub("a.json"), MapWithCorrupt(), SimdjsonJson()));
  EXPECT_EQ(r.malformed_rows, 6);
  // Spark 4's partial results: the map is NULL, the fields that decode keep their values.
  ExpectColumn(r.table, "id", "[1, 2, 3, 4, 5, null, 7]");
  ExpectColumn(r.table, "m", R"([[["a", 1]], null, null, null, null, null, null])");
  ExpectColumn(r.table, "t", R"(["x", "kept", null, null, "kept", null, null])");
  ExpectColumn(r.table, "_corrupt_record",
               R"([null, "{\"id\":2,\"m\":[1],\"t\":\"kept\"}", "{\"id\":3,\"m\":\"str\"}", "{\"id\":4,\"m\":5}",)"
               R"( "{\"id\":5,\"m\":{\"a\":\"x\",\"b\":1.5},\"t\":\"kept\"}", "{\"id\":6,\"m\":",)"
               R"( "{\"id\":7,\"m\":{\"b\":[]}}"])");
}

TEST(JsonMapColumns, MalformedMapsDropAndFailFast) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), kBadMaps);
  ASSERT_OK_AND_ASSIGN(auto dropped, Read(dir.Sub("a.json"), MapWithCorrupt(), SimdjsonJson(ParseMode::kDropMalformed)));
  EXPECT_EQ(dropped.malformed_rows, 6);
  ExpectColumn(dropped.table, "id", "[1]");
  ExpectColumn(dropped.table, "m", R"([[["a", 1]]])");

  auto failed = Read(dir.Sub("a.json"), MapWithCorrupt(), SimdjsonJson(ParseMode::kFailFast));
  ASSERT_FALSE(failed.ok());
  const std::string prefix = "Malformed record in " + io::PathToUri(dir.Sub("a.json")) + " at line 2: ";
  EXPECT_EQ(failed.status().message().rfind(prefix, 0), 0u) << failed.status().message();
  EXPECT_THAT(failed.status().message(), HasSubstr("field 'm': an array where map<string,int> is declared"));

  // The reason names the key whose value does not fit.
  WriteFile(dir.Sub("b.json"), "{\"id\":1,\"m\":{\"a\":1,\"b\":\"two\"}}\n");
  auto inner = Read(dir.Sub("b.json"), MapWithCorrupt(), SimdjsonJson(ParseMode::kFailFast));
  ASSERT_FALSE(inner.ok());
  EXPECT_THAT(inner.status().message(), HasSubstr("at line 1: field 'm': key 'b': a string where int is declared"));
}

TEST(JsonMapColumns, ArrowReaderRefusesAMapColumn) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "{\"id\":1,\"m\":{\"a\":1}}\n");
  auto o = SimdjsonJson();
  o.json_reader = JsonReader::kArrow;
  auto r = Read(dir.Sub("a.json"), MapWithCorrupt(), o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("jsonReader = arrow"));
}

// As Spark: without a declared schema an object is inferred as a STRUCT, never a MAP.
TEST(JsonMapColumns, InferredSchemaReadsObjectsAsStructs) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "{\"id\":1,\"m\":{\"a\":1,\"b\":\"x\"}}\n");
  auto inference = MakeJsonSchemaInference(SimdjsonJson());
  ASSERT_OK(inference->AddFile(fs().get(), dir.Sub("a.json")));
  ASSERT_OK_AND_ASSIGN(auto schema, inference->Finish());
  auto m = schema->GetFieldByName("m");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->type()->id(), arrow::Type::STRUCT) << m->type()->ToString();
}

// ---- the simdjson decoder against Arrow's reader --------------------------------------------

std::shared_ptr<arrow::Schema> Typed() {
  return arrow::schema({arrow::field("i", arrow::int64()), arrow::field("n", arrow::int32()),
                        arrow::field("d", arrow::float64()), arrow::field("s", arrow::utf8()),
                        arrow::field("b", arrow::boolean()),
                        arrow::field("t", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
                        arrow::field("day", arrow::date32()), arrow::field("_corrupt_record", arrow::utf8())});
}

FileFormatOptions WithReader(JsonReader reader, ParseMode mode) {
  FileFormatOptions o;
  o.format = "json";
  o.mode = mode;
  o.json_reader = reader;
  return o;
}

// Both readers give the same rows, malformed count, or error for `content`, in every mode.
void ExpectReadersAgree(const std::string& content, const std::string& label) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), content);
  for (auto mode : {ParseMode::kPermissive, ParseMode::kDropMalformed, ParseMode::kFailFast}) {
    auto fast = Read(dir.Sub("a.json"), Typed(), WithReader(JsonReader::kSimdjson, mode));
    auto arrow = Read(dir.Sub("a.json"), Typed(), WithReader(JsonReader::kArrow, mode));
    ASSERT_EQ(fast.ok(), arrow.ok()) << label << ": " << fast.status() << " / " << arrow.status();
    if (!fast.ok()) {
      EXPECT_EQ(fast.status().message(), arrow.status().message()) << label;
      continue;
    }
    EXPECT_EQ(Rows(fast->table), Rows(arrow->table)) << label;
    EXPECT_EQ(fast->malformed_rows, arrow->malformed_rows) << label;
    EXPECT_TRUE(fast->table->schema()->Equals(*Typed())) << label;
    ASSERT_OK(fast->table->ValidateFull());
  }
}

// The simdjson decoder's own answer for `content` (nullptr = declined).
std::shared_ptr<arrow::Table> DecodeFast(const std::string& content) {
  auto parse_schema = *Typed()->RemoveField(Typed()->GetFieldIndex("_corrupt_record"));
  auto fields = parse_schema->fields();
  for (auto& f : fields) {
    if (f->type()->id() == arrow::Type::DATE32) f = f->WithType(arrow::utf8());
  }
  auto decoded = DecodeJsonLinesSimdjson(arrow::Buffer::FromString(content), arrow::schema(fields), false);
  EXPECT_TRUE(decoded.ok()) << decoded.status();
  return decoded.ok() ? *decoded : nullptr;
}

TEST(SimdjsonJsonDecoder, DecodesWellFormedFilesItselfAsArrowDoes) {
  const Strings accepted = {
      "{\"i\":-9223372036854775808,\"n\":-2147483648,\"d\":1,\"s\":\"plain\",\"b\":true}\n"
      "{\"i\":9223372036854775807,\"n\":2147483647,\"d\":-1.5e-3,\"s\":\"\",\"b\":false}\n",
      // escapes, non-ASCII text, keys in any order, nulls, unknown fields of every kind
      "{\"s\":\"tab\\t quote\\\" \\u00e9\\ud83d\\ude00 caf\xC3\xA9\",\"zz\":{\"x\":[1,{\"y\":null}]},\"i\":null}\n"
      "{\"extra\":[1,2,3],\"d\":12345678901234567890,\"other\":\"ignored\",\"b\":null,\"i\":-0}\n",
      // the timestamp forms Arrow's ISO-8601 parser takes: zone offsets are converted to UTC
      "{\"t\":\"2024-01-02T03:04:05\"}\n{\"t\":\"2024-01-02 03:04:05.123456\"}\n{\"t\":\"2024-01-02T03:04:05Z\"}\n"
      "{\"t\":\"2024-01-02T03:04:05+01:30\"}\n{\"t\":\"2024-01-02\"}\n{\"day\":\"2024-02-29\"}\n",
      // whitespace, CRLF, blank lines, an empty object, no final newline
      "\n  {\"i\" : 1 , \"s\":\"x\"}\t\r\n\r\n{}\n{\"i\":2}",
      // a declared key given twice inside a nested (unknown) object is not a duplicate
      "{\"o\":{\"i\":1,\"i\":2},\"i\":3}\n",
  };
  for (const auto& content : accepted) {
    EXPECT_NE(DecodeFast(content), nullptr) << content;
    ExpectReadersAgree(content, content);
  }
}

// What Arrow's reader rejects or reads differently, the simdjson decoder hands to it.
TEST(SimdjsonJsonDecoder, DeclinesWhatArrowJudgesAndBothReadersAgree) {
  const Strings declined = {
      "{\"i\":9223372036854775808}\n",   // out of int64's range: malformed (as Spark)
      "{\"n\":2147483648}\n",            // out of int's range
      "{\"i\":1.0}\n{\"i\":1e2}\n",       // not integer literals
      "{\"d\":123456789012345678901}\n",  // beyond 64-bit integers (Arrow reads a double)
      "{\"d\":1e400}\n",                 // beyond double's range
      "{\"s\":12}\n{\"s\":true}\n",      // D2: Spark keeps the JSON text
      "{\"s\":{\"a\":1}}\n{\"s\":[1]}\n",  // D2: Spark keeps the JSON text
      "{\"i\":1,\"i\":2}\n",             // a declared key twice
      "{\"i\":1} {\"i\":2}\n",           // two records on one line: Arrow reads both
      "\xEF\xBB\xBF{\"i\":1}\n",         // a byte-order mark
      "{\"d\":NaN}\n",                   // Arrow (and Spark) take NaN
      "[1]\n5\n",                        // not objects
      "{\"t\":\"2024-01-02T03:04:05.1234567\"}\n",  // more than six fractional digits (truncated)
      "{\"t\":\"soon\"}\n{\"t\":5}\n",    // not a timestamp
      "{\"b\":1}\n{\"b\":\"true\"}\n",    // not a JSON boolean
      "{\"s\":\"a\tb\"}\n",              // a raw control character in a string
      "{\"s\":\"\\x\"}\n",               // a bad escape
      "{\"s\":\"\\ud800\"}\n",           // a lone surrogate
      "{\"i\":1\n",                      // truncated
      "{\"day\":\"2024-02-30\"}\n",      // not a date (declined by the cast after decoding)
  };
  for (const auto& content : declined) ExpectReadersAgree(content + "{\"i\":7,\"s\":\"after\"}\n", content);
  for (size_t k = 0; k + 1 < declined.size(); ++k) {
    if (k == 9) continue;  // a byte-order mark may be skipped by the decoder; the readers agree either way
    EXPECT_EQ(DecodeFast(declined[k]), nullptr) << declined[k];
  }
}

// Keys are matched to columns by their length and first and last bytes, then memcmp beyond 16
// bytes: names of every length that differ in one byte anywhere each get their own values, and
// near-miss keys are ignored.
TEST(SimdjsonJsonDecoder, ColumnNamesOfEveryLengthAreToldApart) {
  const Strings names = {"a", "b", "ab", "abc", "abd", "abcd", "abce", "xbcd", "abcde", "abcdf", "abcdefg", "abcdefgh",
                         "abcdefgi", "abcdXfgh", "abcdefghi", "xbcdefghi", "abcdefghijklmnop", "abcdefghijklmnoq",
                         "bbcdefghijklmnop", "abcdefghijklmnopq", "abcdefghXjklmnopq", "abcdefghijklmnopqrstuvwxyz"};
  const Strings near_misses = {"c", "ac", "abcf", "abcdefgj", "abcdefghj", "abcdefghijklmnoX", "Abcdefghijklmnopq", ""};
  arrow::FieldVector fields;
  for (const auto& n : names) fields.push_back(arrow::field(n, arrow::int64()));
  auto schema = arrow::schema(fields);
  std::mt19937 random(7);
  std::string content;
  constexpr int kLines = 50;
  for (int line = 0; line < kLines; ++line) {
    std::vector<std::string> parts;
    for (size_t c = 0; c < names.size(); ++c) {
      parts.push_back("\"" + names[c] + "\":" + std::to_string(line * 100 + static_cast<int>(c)));
    }
    for (const auto& n : near_misses) parts.push_back("\"" + n + "\":-1");
    std::shuffle(parts.begin(), parts.end(), random);  // keys in a different order on every line
    content += "{";
    for (size_t i = 0; i < parts.size(); ++i) content += (i ? "," : "") + parts[i];
    content += "}\n";
  }
  ASSERT_OK_AND_ASSIGN(auto table, DecodeJsonLinesSimdjson(arrow::Buffer::FromString(content), schema, false));
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->num_rows(), kLines);
  for (int c = 0; c < table->num_columns(); ++c) {
    ASSERT_OK_AND_ASSIGN(auto column, arrow::Concatenate(table->column(c)->chunks()));
    const auto& values = static_cast<const arrow::Int64Array&>(*column);
    for (int64_t r = 0; r < kLines; ++r) {
      ASSERT_TRUE(values.IsValid(r)) << names[static_cast<size_t>(c)] << " row " << r;
      EXPECT_EQ(values.Value(r), r * 100 + c) << names[static_cast<size_t>(c)] << " row " << r;
    }
  }
}

// Seeded random lines from good and bad fragments: the readers agree line for line.
TEST(SimdjsonJsonDecoder, RandomMixedFilesReadTheSameWithBothReaders) {
  const Strings values = {"1", "-7", "2.5", "1e3", "\"x\"", "\"2024-01-02 03:04:05\"", "true", "null",
                          "{\"k\":1}", "[1,2]", "\"caf\xC3\xA9\"", "99999999999999999999", "tru", "\"\\u00e9\""};
  const Strings keys = {"i", "n", "d", "s", "b", "t", "day", "other"};
  std::mt19937 random(14);
  for (int file = 0; file < 20; ++file) {
    std::string content;
    for (int line = 0; line < 30; ++line) {
      const int fields = static_cast<int>(random() % 4);
      content += "{";
      for (int f = 0; f < fields; ++f) {
        if (f > 0) content += ",";
        content += "\"" + keys[random() % keys.size()] + "\":" + values[random() % values.size()];
      }
      content += (random() % 25 == 0) ? "\n" : "}\n";  // now and then a truncated record
    }
    ExpectReadersAgree(content, "file " + std::to_string(file));
  }
}

// Lines are parsed many at once by a document stream (stage 1 over 256 KiB batches), and a line
// gets the stream's document only when it is exactly that line's object. Each case sits between
// 300 KB of good lines, so it is met inside a stream that crosses a batch (and later lines by a
// stream started again): the simdjson reader gives what Arrow's gives in every mode, and decodes
// the files whose lines are all good itself.
TEST(SimdjsonJsonDecoder, LinesParsedManyAtOnceAreJudgedAsLinesParsedAlone) {
  std::string good;
  for (int64_t i = 0; good.size() < (300u << 10); ++i) {
    good += "{\"i\":" + std::to_string(i) + ",\"s\":\"r" + std::to_string(i) + "\",\"t\":\"2024-01-02T03:04:05\"}\n";
  }
  const std::string big(300'000, 'x');  // a line longer than a stream's batch
  const std::vector<std::pair<std::string, bool>> cases = {  // line(s), decoded by simdjson itself
      {"{\"i\":1,\"s\":\"spaces and a CR after\"}   \t\r\n", true},
      {"\n   \n\t\n{\"i\":2}\n\n", true},  // blank lines
      {"{\"s\":\"" + big + "\"}\n", true},
      {"{\"i\":3} {\"i\":4}\n", false},  // two records on one line
      {"{\"i\":3}x\n", false},             // trailing bytes
      {"{\"s\":\"unclosed}\n", false},      // a string left open: the next lines' quotes flip in a stream
      {"{\"s\":\"\xC3\x28\"}\n", false},     // not UTF-8
      {"{\"s\":\"a\tb\"}\n", false},        // a raw control character
      {"5\n", false},                      // a scalar
      {"[{\"i\":5}]\n", false},              // an array
      {"{\n\"i\":6\n}\n", false},            // one object over three lines
      {"\r\r\n", false},                     // a line of carriage returns
      {"}\n", false},
  };
  ExpectReadersAgree("\xEF\xBB\xBF" + good, "a byte-order mark before a stream's first line");
  for (const auto& [line, decoded] : cases) {
    const std::string content = good + line + good;
    ExpectReadersAgree(content, line.substr(0, 40));
    const auto fast = DecodeFast(content);
    EXPECT_EQ(fast != nullptr, decoded) << line.substr(0, 40);
    if (fast) {
      ASSERT_OK(fast->ValidateFull());
    }
  }
}

// A file larger than one part is split at line breaks and parsed in parallel; rows keep order.
TEST(SimdjsonJsonDecoder, LargeFileSplitIntoLineRangesKeepsOrder) {
  std::string content;
  for (int64_t i = 0; content.size() < (9u << 20); ++i) {
    content += "{\"i\":" + std::to_string(i) + ",\"s\":\"row " + std::to_string(i) + " padding padding padding\"}\n";
  }
  auto schema = arrow::schema({arrow::field("i", arrow::int64()), arrow::field("s", arrow::utf8())});
  auto data = arrow::Buffer::FromString(content);
  ASSERT_OK_AND_ASSIGN(auto threaded, DecodeJsonLinesSimdjson(data, schema, true));
  ASSERT_OK_AND_ASSIGN(auto single, DecodeJsonLinesSimdjson(data, schema, false));
  ASSERT_NE(threaded, nullptr);
  ASSERT_NE(single, nullptr);
  EXPECT_TRUE(threaded->Equals(*single));
  ASSERT_OK_AND_ASSIGN(auto ids, arrow::Concatenate(threaded->column(0)->chunks()));
  const auto& i = static_cast<const arrow::Int64Array&>(*ids);
  for (int64_t r = 0; r < i.length(); ++r) ASSERT_EQ(i.Value(r), r);
}

// After its first 64 lines a range reserves for the rest from their length: lines that then grow
// far longer (more than reserved), or far shorter, with values of every kind and nulls, read
// the same as with Arrow's reader.
TEST(SimdjsonJsonDecoder, LinesThatChangeLengthAfterTheReservationReadTheSame) {
  auto line = [](int64_t i, size_t pad) {
    return "{\"i\":" + std::to_string(i) + ",\"n\":" + std::to_string(i % 1000) + ",\"d\":" + std::to_string(i) +
           ".5,\"s\":" + (i % 7 == 0 ? std::string("null") : "\"" + std::string(pad, 'x') + std::to_string(i) + "\"") +
           ",\"b\":" + (i % 2 ? "true" : "false") + ",\"t\":\"2024-01-02T03:04:05\"}\n";
  };
  for (const auto& [first, then] : {std::pair<size_t, size_t>{0, 400}, {400, 0}}) {
    std::string content;
    int64_t i = 0;
    for (; i < 64; ++i) content += line(i, first);
    while (content.size() < (1u << 20)) content += line(i++, then);
    const std::string label = "first " + std::to_string(first) + ", then " + std::to_string(then);
    auto fast = DecodeFast(content);
    ASSERT_NE(fast, nullptr) << label;
    EXPECT_EQ(fast->num_rows(), i) << label;
    ExpectReadersAgree(content, label);
  }
}

TEST(SimdjsonJsonDecoder, SchemasWithNestedOrOtherTypesUseArrowsReader) {
  EXPECT_TRUE(SimdjsonDecodesSchema(*ABC()));
  EXPECT_FALSE(SimdjsonDecodesSchema(*arrow::schema({arrow::field("s", arrow::struct_({arrow::field("a", arrow::int64())}))})));
  EXPECT_FALSE(SimdjsonDecodesSchema(*arrow::schema({arrow::field("l", arrow::list(arrow::int64()))})));
  EXPECT_FALSE(SimdjsonDecodesSchema(*arrow::schema({arrow::field("f", arrow::float32())})));
  // ... and still read as before.
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "{\"s\":{\"a\":1},\"l\":[1,2]}\n");
  auto schema = arrow::schema({arrow::field("s", arrow::struct_({arrow::field("a", arrow::int64())})),
                               arrow::field("l", arrow::list(arrow::int64()))});
  auto r = Read(dir.Sub("a.json"), schema, WithReader(JsonReader::kSimdjson, ParseMode::kFailFast));
  ASSERT_OK(r);
  EXPECT_EQ(r->table->num_rows(), 1);
}

}  // namespace
}  // namespace sluice::source
