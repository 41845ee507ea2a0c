// JSON lines that Spark reads and the decoders alone would not (source/json_string_values.h): any
// value given for a STRING field reads as its JSON text, what follows a line's first value is
// ignored, and a line holding an array of objects is a record per object. Checked here on the
// rewrite itself and through the reader with both decoders; against PySpark by the conformance
// cases json-number-for-string, json-nested-object-as-string, json-map-number-for-string,
// json-top-level-array* and json-trailing-content.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "file_source_test_util.h"
#include "source/file_readers.h"
#include "source/json_string_values.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using testing::Rows;
using Strings = std::vector<std::string>;

std::string Rewritten(const std::string& lines, const std::shared_ptr<arrow::Schema>& schema) {
  auto out = RewriteJsonLines(*arrow::Buffer::FromString(lines), *schema);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (!out.ok()) return "error";
  return *out ? (*out)->ToString() : "(unchanged)";
}

TEST(JsonStringValues, ValuesForStringFieldsBecomeTheirTextAtAnyDepth) {
  auto schema = arrow::schema({arrow::field("s", arrow::utf8()), arrow::field("n", arrow::int64()),
                               arrow::field("st", arrow::struct_({arrow::field("x", arrow::utf8())})),
                               arrow::field("l", arrow::list(arrow::utf8())),
                               arrow::field("m", arrow::map(arrow::utf8(), arrow::utf8()))});
  EXPECT_EQ(Rewritten("{\"s\":12,\"n\":1}\n", schema), "{\"s\":\"12\",\"n\":1}\n");
  EXPECT_EQ(Rewritten("{\"s\": { \"a\" : [1, \"q\\\"\"] } }\n", schema),
            "{\"s\": \"{ \\\"a\\\" : [1, \\\"q\\\\\\\"\\\"] }\" }\n");
  EXPECT_EQ(Rewritten("{\"st\":{\"x\":true},\"l\":[1,\"a\",null,[2]],\"m\":{\"k\":1.50}}\n", schema),
            "{\"st\":{\"x\":\"true\"},\"l\":[\"1\",\"a\",null,\"[2]\"],\"m\":{\"k\":\"1.50\"}}\n");
  // A tab between tokens is kept, escaped inside the string.
  EXPECT_EQ(Rewritten("{\"s\":[1,\t2]}", schema), "{\"s\":\"[1,\\u00092]\"}");
  // Strings, nulls, fields of other types and unknown fields are left alone; so is a line that
  // is not valid JSON (its decoder finds it malformed) or not an object.
  EXPECT_EQ(Rewritten("{\"s\":\"x\",\"n\":\"y\",\"z\":1,\"st\":null}\n{\"s\":12,bad\n[{\"s\":1}]\n", schema),
            "(unchanged)");
  // Lines are kept one for one, blank ones too.
  EXPECT_EQ(Rewritten("\n{\"s\":\"a\"}\n\n{\"s\":-0}\r\n{\"s\":\"b\"}", schema),
            "\n{\"s\":\"a\"}\n\n{\"s\":\"-0\"}\r\n{\"s\":\"b\"}");
}

TEST(JsonStringValues, WhatFollowsALinesObjectIsCut) {
  auto schema = arrow::schema({arrow::field("n", arrow::int64())});
  EXPECT_EQ(Rewritten("{\"n\":1} {\"n\":2}\n{\"n\":3}  xyz\n{\"n\":\"}\"} \n", schema),
            "{\"n\":1}\n{\"n\":3}\n{\"n\":\"}\"} \n");
  EXPECT_EQ(FirstJsonValueLength("  {\"a\":\"]}\\\"\"} x"), 14u);
  EXPECT_EQ(FirstJsonValueLength("[1,[2]] ,"), 7u);
  EXPECT_EQ(FirstJsonValueLength("5 6"), 3u);        // not an object or array: the whole line
  EXPECT_EQ(FirstJsonValueLength("{\"a\":[1}"), 8u);  // never closes: the whole line
}

TEST(JsonStringValues, ArrayElementsAsLines) {
  auto elements = [](const std::string& line) { return ArrayElementsAsLines(*arrow::Buffer::FromString(line)); };
  ASSERT_OK_AND_ASSIGN(auto two, elements(" [ {\"a\":1} , {\"b\": [2]} ] trailing"));
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(*two, "{\"a\":1}\n{\"b\": [2]}\n");
  ASSERT_OK_AND_ASSIGN(auto none, elements("[]"));
  EXPECT_EQ(none, std::optional<std::string>(""));
  ASSERT_OK_AND_ASSIGN(auto object, elements("{\"a\":1}"));
  EXPECT_FALSE(object.has_value());
  for (const char* bad : {"[{\"a\":1},5]", "[null]", "[[{\"a\":1}]]", "[{\"a\":1},"}) {
    EXPECT_FALSE(elements(bad).ok()) << bad;
  }
}

FileFormatOptions Json(JsonReader reader, ParseMode mode = ParseMode::kPermissive) {
  FileFormatOptions o;
  o.format = "json";
  o.mode = mode;
  o.json_reader = reader;
  return o;
}

TEST(JsonStringValues, BothReadersReadAsSparkDoes) {
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8()),
                               arrow::field("_corrupt_record", arrow::utf8())});
  const std::string lines =
      "{\"id\":1,\"s\":12}\n"
      "{\"id\":2,\"s\":{\"a\": [true]}} trailing\n"
      "[{\"id\":3,\"s\":\"x\"},{\"id\":4,\"s\":1e400}]\n"
      "[]\n"
      "{\"id\":\"bad\",\"s\":5}\n"
      "[{\"id\":5},6]\n";
  for (auto reader : {JsonReader::kSimdjson, JsonReader::kArrow}) {
    ASSERT_OK_AND_ASSIGN(auto r, ReadJsonLines(arrow::Buffer::FromString(lines), "/in/a.json", schema, Json(reader), true));
    // A malformed record keeps its line as written, not as rewritten for the decoder.
    EXPECT_EQ(Rows(r.table), (Strings{"1|12|null", "2|{\"a\": [true]}|null", "3|x|null", "4|1e400|null",
                                      "null|5|{\"id\":\"bad\",\"s\":5}", "null|null|[{\"id\":5},6]"}));
    EXPECT_EQ(r.malformed_rows, 2);
    ASSERT_OK_AND_ASSIGN(auto dropped, ReadJsonLines(arrow::Buffer::FromString(lines), "/in/a.json", schema,
                                                     Json(reader, ParseMode::kDropMalformed), true));
    EXPECT_EQ(dropped.table->num_rows(), 4);
    auto failed = ReadJsonLines(arrow::Buffer::FromString(lines), "/in/a.json", schema,
                                Json(reader, ParseMode::kFailFast), true);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.status().message().find("at line 5"), std::string::npos) << failed.status().message();
  }
}

TEST(JsonStringValues, AMapOfStringsReadsTheTextOfEveryValue) {
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("m", arrow::map(arrow::utf8(), arrow::utf8()))});
  ASSERT_OK_AND_ASSIGN(auto r, ReadJsonLines(arrow::Buffer::FromString("{\"id\":1,\"m\":{\"a\":1,\"b\":\"s\",\"c\":[null]}}\n"),
                                             "/in/a.json", schema, Json(JsonReader::kSimdjson), true));
  EXPECT_EQ(Rows(r.table), (Strings{"1|map<string, string>[{key:string = a, value:string = 1}, "
                                    "{key:string = b, value:string = s}, {key:string = c, value:string = [null]}]"}));
}

}  // namespace
}  // namespace sluice::source
