// A JSON line read by the layout learned from an earlier line (json_line_shape.h): a line of
// exactly that layout is read in place, with the values the parsed path gives; every other
// spelling is a miss (and parsed), so the decoder's answer never depends on which way it read.
#include <arrow/util/value_parsing.h>
#include <gtest/gtest.h>

#include <random>

#include "source/json_line_shape.h"
#include "source/json_simdjson_reader.h"
#include "source/json_value_builder.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using ShapeTexts = std::vector<std::string>;

std::shared_ptr<arrow::Schema> ShapeSchema(arrow::TimeUnit::type unit = arrow::TimeUnit::MICRO) {
  return arrow::schema({arrow::field("i", arrow::int64()), arrow::field("n", arrow::int32()),
                        arrow::field("d", arrow::float64()), arrow::field("s", arrow::utf8()),
                        arrow::field("b", arrow::boolean()), arrow::field("t", arrow::timestamp(unit, "UTC")),
                        arrow::field("absent", arrow::utf8())});
}

std::vector<ColumnBuilder> ShapeColumns(const arrow::Schema& schema) {
  std::vector<ColumnBuilder> columns;
  for (const auto& field : schema.fields()) columns.push_back(MakeColumnBuilder(*field));
  return columns;
}

// The layout of `{"i":..,"n":..,"d":..,"s":..,"b":..,"t":..,"x":..}` ("x": no column).
LineLayouts LearnedShape(const std::vector<ColumnBuilder>& columns) {
  LineLayouts shape;
  EXPECT_TRUE(shape.Learn({{"i", 0}, {"n", 1}, {"d", 2}, {"s", 3}, {"b", 4}, {"t", 5}, {"x", -1}}, columns));
  return shape;
}

bool ShapeMatches(LineLayouts* shape, const std::vector<ColumnBuilder>& columns, const std::string& line) {
  return shape->Match(line.data(), line.data() + line.size(), line.data() + line.size(), columns) ==
         line.data() + line.size();
}

std::string ShapedLine(const std::string& i, const std::string& n, const std::string& d, const std::string& s,
                       const std::string& b, const std::string& t, const std::string& x) {
  return "{\"i\":" + i + ",\"n\":" + n + ",\"d\":" + d + ",\"s\":" + s + ",\"b\":" + b + ",\"t\":" + t +
         ",\"x\":" + x + "}";
}

TEST(JsonLineShape, LinesOfTheLearnedLayoutAreReadInPlace) {
  auto schema = ShapeSchema();
  auto columns = ShapeColumns(*schema);
  LineLayouts shape = LearnedShape(columns);
  const std::vector<uint8_t> all(columns.size(), 1);
  Status error;
  const ShapeTexts lines = {
      ShapedLine("-12", "2147483647", "7", "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"", "true", "\"2024-01-02T03:04:05.5\"", "\"y\""),
      ShapedLine("null", "-2147483648", "-900719925474099", "\"\"", "false", "\"2024-01-02 03:04:05\"", "12"),
      ShapedLine("0", "0", "null", "null", "null", "null", "null"),
  };
  for (const auto& line : lines) {
    ASSERT_TRUE(ShapeMatches(&shape, columns, line)) << line;
    ASSERT_TRUE(shape.Append(&columns, all, &error)) << error;
  }
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  for (auto& c : columns) {
    std::shared_ptr<arrow::DataType> type = arrow::int64();  // integers of every width, timestamps
    if (c.kind == ValueKind::kString) type = arrow::utf8();
    if (c.kind == ValueKind::kDouble) type = arrow::float64();
    if (c.kind == ValueKind::kBoolean) type = arrow::boolean();
    ASSERT_OK_AND_ASSIGN(auto a, c.values.Finish(type));
    arrays.push_back(a);
  }
  auto text = [](const std::shared_ptr<arrow::Array>& a) { return a->ToString(); };
  EXPECT_EQ(text(arrays[0]), "[\n  -12,\n  null,\n  0\n]");
  EXPECT_EQ(text(arrays[1]), "[\n  2147483647,\n  -2147483648,\n  0\n]");
  EXPECT_EQ(static_cast<const arrow::DoubleArray&>(*arrays[2]).Value(1), -900719925474099.0);
  EXPECT_EQ(static_cast<const arrow::StringArray&>(*arrays[3]).GetString(0), "caf\xC3\xA9 \xF0\x9F\x98\x80");
  EXPECT_EQ(text(arrays[4]), "[\n  true,\n  false,\n  null\n]");
  int64_t t0 = 0;
  int64_t t1 = 0;
  ASSERT_TRUE(arrow::internal::ParseTimestampISO8601("2024-01-02T03:04:05.5", 21, arrow::TimeUnit::MICRO, &t0));
  ASSERT_TRUE(arrow::internal::ParseTimestampISO8601("2024-01-02T03:04:05", 19, arrow::TimeUnit::MICRO, &t1));
  EXPECT_EQ(static_cast<const arrow::Int64Array&>(*arrays[5]).Value(0), t0);
  EXPECT_EQ(static_cast<const arrow::Int64Array&>(*arrays[5]).Value(1), t1);
  EXPECT_EQ(arrays[6]->null_count(), 3);  // no key of the layout fills it
}

TEST(JsonLineShape, EveryOtherSpellingIsAMiss) {
  auto columns = ShapeColumns(*ShapeSchema());
  LineLayouts shape = LearnedShape(columns);
  const std::string good = ShapedLine("1", "2", "3", "\"s\"", "true", "\"2024-01-02T03:04:05\"", "\"x\"");
  ASSERT_TRUE(ShapeMatches(&shape, columns, good));
  const ShapeTexts misses = {
      good + " ", " " + good, good.substr(0, good.size() - 1), good + "}", "{\"i\": 1" + good.substr(6),
      ShapedLine("-0", "2", "3", "\"s\"", "true", "null", "1"),      // simdjson reads -0 as a double
      ShapedLine("01", "2", "3", "\"s\"", "true", "null", "1"),      // not JSON
      ShapedLine("1234567890123456789", "2", "3", "\"s\"", "true", "null", "1"),  // 19 digits
      ShapedLine("1.5", "2", "3", "\"s\"", "true", "null", "1"), ShapedLine("1e3", "2", "3", "\"s\"", "true", "null", "1"),
      ShapedLine("1", "2147483648", "3", "\"s\"", "true", "null", "1"),  // beyond int
      ShapedLine("1", "2", "3.5", "\"s\"", "true", "null", "1"),         // a double's text is parsed
      ShapedLine("1", "2", "3", "\"a\\nb\"", "true", "null", "1"),        // an escape
      ShapedLine("1", "2", "3", "\"a\tb\"", "true", "null", "1"),         // a control byte
      ShapedLine("1", "2", "3", "\"\xC3\x28\"", "true", "null", "1"),     // not UTF-8
      ShapedLine("1", "2", "3", "\"abcdefghij\xC3\"", "true", "null", "1"),  // cut UTF-8 after 8 plain bytes
      ShapedLine("1", "2", "3", "12", "true", "null", "1"), ShapedLine("\"1\"", "2", "3", "\"s\"", "true", "null", "1"),
      ShapedLine("1", "2", "3", "\"s\"", "1", "null", "1"), ShapedLine("1", "2", "3", "\"s\"", "tru", "null", "1"),
      ShapedLine("1", "2", "3", "\"s\"", "true", "\"2024-01-02T03:04:05.1234567\"", "1"),  // beyond micros
      ShapedLine("1", "2", "3", "\"s\"", "true", "\"2024-02-30T03:04:05\"", "1"),
      ShapedLine("1", "2", "3", "\"s\"", "true", "null", "{}"), ShapedLine("1", "2", "3", "\"s\"", "true", "null", "[1]"),
      ShapedLine("1", "2", "3", "\"s\"", "true", "null", "1.25"),
      "{\"n\":2,\"i\":1,\"d\":3,\"s\":\"s\",\"b\":true,\"t\":null,\"x\":1}",  // another order
      "{\"i\":1,\"n\":2,\"d\":3,\"s\":\"s\",\"b\":true,\"t\":null}",          // a key fewer
      "{\"i\":1,\"n\":2,\"d\":3,\"s\":\"s\",\"b\":true,\"t\":null,\"x\":1,\"i\":1}",  // a key more
      "{\"\\u0069\":1,\"n\":2,\"d\":3,\"s\":\"s\",\"b\":true,\"t\":null,\"x\":1}",   // an escaped key
      "{\"I\":1,\"n\":2,\"d\":3,\"s\":\"s\",\"b\":true,\"t\":null,\"x\":1}",
      "", "{", "{}",
  };
  for (const auto& line : misses) EXPECT_FALSE(ShapeMatches(&shape, columns, line)) << line;
  // A string that runs past the line's end is a miss even where the buffer goes on (read 8 bytes
  // at a time).
  const std::string line = "{\"i\":1,\"n\":2,\"d\":3,\"s\":\"abc";
  const std::string buffer = line + "defghijklmnop\",\"b\":true,\"t\":null,\"x\":1}";
  EXPECT_EQ(shape.Match(buffer.data(), buffer.data() + line.size(), buffer.data() + buffer.size(), columns), nullptr);
  EXPECT_TRUE(ShapeMatches(&shape, columns, buffer));
}

// One layout held is matched by comparing each key's lead (comma, token, spaces) whole; several
// are followed key by key. Both ways give the same answer: the same lines matched, at the same
// end, with the same values appended. Checked on lines of the layout with bytes changed, cut or
// inserted at random, compact and spaced.
TEST(JsonLineShape, OneLayoutHeldMatchesAsTheWalkOverSeveralDoes) {
  auto schema = ShapeSchema();
  std::mt19937 rng(14);
  const std::string pool = "{}\":, 0123456789.-+eEtrufalsn\\ \t\x01\xC3\xA9" "abcxyT";
  for (const bool spaced : {false, true}) {
    auto one_columns = ShapeColumns(*schema);
    auto several_columns = ShapeColumns(*schema);
    const std::vector<std::pair<std::string_view, int>> keys = {{"i", 0}, {"n", 1}, {"d", 2}, {"s", 3},
                                                                {"b", 4}, {"t", 5}, {"x", -1}};
    const std::vector<std::string> values = {"-12", "7", "25", "\"caf\xC3\xA9\"", "true", "\"2024-01-02T03:04:05.5\"",
                                             "\"y\""};
    std::string good = "{";
    for (size_t k = 0; k < keys.size(); ++k) {
      if (k > 0) good += spaced ? ", " : ",";
      good += "\"" + std::string(keys[k].first) + "\":" + (spaced ? " " : "") + values[k];
    }
    good += "}";
    LineLayouts one;
    LineLayouts several;
    ASSERT_TRUE(one.Learn(keys, one_columns, good));
    ASSERT_TRUE(several.Learn(keys, several_columns, good));
    ASSERT_TRUE(several.Learn({{"zz", 0}}, several_columns, "{\"zz\":1}"));  // never matches these lines
    const std::vector<uint8_t> all(one_columns.size(), 1);
    Status error;
    int matched = 0;
    for (int round = 0; round < 4000; ++round) {
      std::string line = good;
      const int edits = static_cast<int>(rng() % 3);
      for (int e = 0; e < edits && !line.empty(); ++e) {
        const size_t at = rng() % line.size();
        const char byte = pool[rng() % pool.size()];
        switch (rng() % 3) {
          case 0: line[at] = byte; break;
          case 1: line.erase(at, 1); break;
          default: line.insert(line.begin() + static_cast<std::ptrdiff_t>(at), byte);
        }
      }
      const char* end = line.data() + line.size();
      const char* a = one.Match(line.data(), end, end, one_columns);
      const char* b = several.Match(line.data(), end, end, several_columns);
      ASSERT_EQ(a, b) << line;
      if (!a) continue;
      ++matched;
      ASSERT_TRUE(one.Append(&one_columns, all, &error)) << error;
      ASSERT_TRUE(several.Append(&several_columns, all, &error)) << error;
    }
    EXPECT_GT(matched, 1000);  // the lines left as they were, and edits inside values
    for (size_t i = 0; i < one_columns.size(); ++i) {
      auto type = i == 3 || i == 6 ? arrow::utf8() : i == 2 ? arrow::float64() : i == 4 ? arrow::boolean() : arrow::int64();
      ASSERT_OK_AND_ASSIGN(auto x, one_columns[i].values.Finish(type));
      ASSERT_OK_AND_ASSIGN(auto y, several_columns[i].values.Finish(type));
      EXPECT_TRUE(x->Equals(*y)) << one_columns[i].name;
    }
  }
}

TEST(JsonLineShape, KeysALayoutCannotSpellAreNotLearned) {
  auto columns = ShapeColumns(*ShapeSchema());
  LineLayouts shape;
  EXPECT_FALSE(shape.Learn({{"a\"b", -1}}, columns));
  EXPECT_FALSE(shape.Learn({{"a\\b", -1}}, columns));
  EXPECT_FALSE(shape.Learn({{"a\nb", -1}}, columns));
  EXPECT_EQ(shape.size(), 0u);
}

// Lines of a few layouts (optional keys): each layout learned once is matched, whichever came
// last; a layout already held is not learned twice; a fifth drops the one matched least recently.
// Layouts that share their first keys are followed together.
TEST(JsonLineShape, AFewLayoutsAreHeldTheLeastRecentlyMatchedDropped) {
  auto columns = ShapeColumns(*ShapeSchema());
  LineLayouts layouts;
  auto matches = [&](const std::string& line) { return ShapeMatches(&layouts, columns, line); };
  const ShapeTexts lines = {"{\"i\":1}", "{\"i\":1,\"s\":\"a\"}", "{\"s\":\"a\",\"i\":1}", "{\"x\":true}",
                            "{\"i\":1,\"n\":2}"};
  const std::vector<std::vector<std::pair<std::string_view, int>>> keys = {
      {{"i", 0}}, {{"i", 0}, {"s", 3}}, {{"s", 3}, {"i", 0}}, {{"x", -1}}, {{"i", 0}, {"n", 1}}};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_FALSE(matches(lines[k])) << lines[k];
    ASSERT_TRUE(layouts.Learn(keys[k], columns));
    EXPECT_FALSE(layouts.Learn(keys[k], columns));  // held already
  }
  EXPECT_EQ(layouts.size(), LineLayouts::kMaxLayouts);
  for (int round = 0; round < 3; ++round) {
    for (size_t k = 0; k < 4; ++k) EXPECT_TRUE(matches(lines[k])) << lines[k];
  }
  // Matched last: lines[3]; least recently: lines[0], dropped by a fifth layout.
  ASSERT_TRUE(layouts.Learn(keys[4], columns));
  EXPECT_EQ(layouts.size(), LineLayouts::kMaxLayouts);
  EXPECT_TRUE(matches(lines[4]));
  EXPECT_FALSE(matches(lines[0]));
  for (size_t k = 1; k < 4; ++k) EXPECT_TRUE(matches(lines[k])) << lines[k];
  // The values appended are those of the layout that matched.
  ASSERT_TRUE(matches("{\"i\":7,\"n\":8}"));
  const std::vector<uint8_t> all(columns.size(), 1);
  Status error;
  ASSERT_TRUE(layouts.Append(&columns, all, &error)) << error;
  EXPECT_EQ(columns[0].values.IntegerAt(0), 7);
  EXPECT_EQ(columns[1].values.IntegerAt(0), 8);
  EXPECT_EQ(columns[3].values.length(), 1);  // a null: the layout lacks "s"
}

// Python's json.dumps puts a space after each colon and comma: the spacing is learned from the
// line with the keys, and a line of the layout must be spelled with exactly that spacing.
TEST(JsonLineShape, ASpaceAfterColonsAndCommasIsPartOfTheLayout) {
  auto columns = ShapeColumns(*ShapeSchema());
  LineLayouts layouts;
  auto matches = [&](const std::string& line) { return ShapeMatches(&layouts, columns, line); };
  const std::vector<std::pair<std::string_view, int>> keys = {{"i", 0}, {"s", 3}, {"x", -1}};
  const std::string spaced = "{\"i\": 1, \"s\": \"a, \\\"s\\\": b\", \"x\": true}";
  const std::string compact = "{\"i\":1,\"s\":\"a\",\"x\":true}";
  ASSERT_TRUE(layouts.Learn(keys, columns, spaced));
  EXPECT_TRUE(matches("{\"i\": 2, \"s\": \"b\", \"x\": null}"));
  for (const std::string& miss : {compact, std::string("{\"i\": 1,\"s\": \"a\",\"x\": true}"),
                                  std::string("{\"i\":1, \"s\":\"a\", \"x\":true}"),
                                  std::string("{\"i\":  1, \"s\": \"a\", \"x\": true}"),
                                  std::string("{\"i\": 1 , \"s\": \"a\", \"x\": true}"),
                                  std::string("{\"i\": 1,  \"s\": \"a\", \"x\": true}"),
                                  std::string("{ \"i\": 1, \"s\": \"a\", \"x\": true }")}) {
    EXPECT_FALSE(matches(miss)) << miss;
  }
  // The compact spelling of the same keys is another layout; both are then held and matched.
  ASSERT_TRUE(layouts.Learn(keys, columns, compact));
  EXPECT_FALSE(layouts.Learn(keys, columns, compact));
  EXPECT_TRUE(matches(compact));
  EXPECT_TRUE(matches("{\"i\": 2, \"s\": \"b\", \"x\": null}"));
  EXPECT_FALSE(matches("{\"i\": 1,\"s\": \"a\",\"x\": true}"));
  // Lines of one key: only the colon's space.
  LineLayouts one;
  ASSERT_TRUE(one.Learn({{"i", 0}}, columns, "{\"i\": 5}"));
  const std::string five = "{\"i\": 6}";
  EXPECT_EQ(one.Match(five.data(), five.data() + five.size(), five.data() + five.size(), columns),
            five.data() + five.size());
}

// Timestamps are their seconds (cached from the line before) plus their fraction: for every unit
// and a run of texts sharing and changing their seconds, read exactly when Arrow's parser reads
// them, as the same value.
TEST(JsonLineShape, TimestampsReadAsArrowsParserReadsThem) {
  const ShapeTexts texts = {"2024-01-02T03:04:05",       "2024-01-02T03:04:05.1",      "2024-01-02T03:04:05.123",
                       "2024-01-02T03:04:05.1234",  "2024-01-02T03:04:05.123456", "2024-01-02T03:04:05.12",
                       "2024-01-02T03:04:05.12345", "2024-01-02T03:04:05.12345678", "2024-01-02T03:04:05.1234567",
                       "2024-01-02T03:04:05.123456789", "2024-01-02T03:04:05.1234567891", "2024-01-02T03:04:05.",
                       "2024-01-02T03:04:05.12a",   "2024-01-02 03:04:05.7",      "2024-01-02T03:04:06.7",
                       "1969-12-31T23:59:59.5",     "1969-12-31T23:59:59",        "2024-02-30T03:04:05.1",
                       "2024-02-29T23:59:59.999",   "2024-01-02T03:04:05+01:00",  "2024-01-02T03:04:05.1Z",
                       "2024-01-02T03:04",          "2024-01-02",                 "9999-12-31T23:59:59.999",
                       "2024-01-02T03:04:05.1-0130", "2024-01-02T25:04:05.1",     "x024-01-02T03:04:05.1",
                       // 19 bytes Arrow reads as a time with a zone offset, the whole text not
                       "2024-01-02 03:04-00.25", "2024-01-02 03:04+01.5", "2024-01-02T03+0100.5",
                       "2024-01-02T03:04:0Z.5", "2024-01-02T03:04-0130"};
  for (auto unit : {arrow::TimeUnit::SECOND, arrow::TimeUnit::MILLI, arrow::TimeUnit::MICRO, arrow::TimeUnit::NANO}) {
    auto columns = ShapeColumns(*ShapeSchema(unit));
    LineLayouts shape;
    ASSERT_TRUE(shape.Learn({{"t", 5}}, columns));
    const std::vector<uint8_t> only_t = {0, 0, 0, 0, 0, 1, 0};
    Status error;
    int64_t expected_rows = 0;
    for (const auto& text : texts) {
      int64_t want = 0;
      const bool arrow_reads = arrow::internal::ParseTimestampISO8601(text.data(), text.size(), unit, &want);
      const std::string line = "{\"t\":\"" + text + "\"}";
      ASSERT_EQ(ShapeMatches(&shape, columns, line), arrow_reads) << text << " unit " << unit;
      if (!arrow_reads) continue;
      ASSERT_TRUE(shape.Append(&columns, only_t, &error));
      ASSERT_EQ(columns[5].values.length(), ++expected_rows);
      EXPECT_EQ(columns[5].values.IntegerAt(expected_rows - 1), want) << text << " unit " << unit;
    }
  }
}

// ---- the decoder with and without layouts ------------------------------------------------------

std::shared_ptr<arrow::Table> DecodeWithAndWithoutShapes(const std::string& content, bool threads, const std::string& label) {
  auto schema = *ShapeSchema()->RemoveField(6);
  auto data = arrow::Buffer::FromString(content);
  std::string why_shaped, why_parsed;
  auto shaped = DecodeJsonLinesSimdjson(data, schema, threads, &why_shaped, nullptr, nullptr, true);
  auto parsed = DecodeJsonLinesSimdjson(data, schema, threads, &why_parsed, nullptr, nullptr, false);
  EXPECT_TRUE(shaped.ok() && parsed.ok()) << label;
  if (!shaped.ok() || !parsed.ok()) return nullptr;
  EXPECT_EQ(*shaped == nullptr, *parsed == nullptr) << label << ": " << why_shaped << " / " << why_parsed;
  if (*shaped == nullptr || *parsed == nullptr) {
    EXPECT_EQ(why_shaped, why_parsed) << label;
    return nullptr;
  }
  EXPECT_TRUE((*shaped)->Equals(**parsed)) << label;
  return *shaped;
}

// Seeded files of one layout with random values in its places (most lines read in place, some a
// miss of every kind), now and then another order, spaces or a key fewer (relearned), and runs of
// lines of no one layout (layouts given up): the same table, or the same decline, either way.
TEST(JsonLineShape, DecoderReadsTheSameWithAndWithoutLayouts) {
  // Values the parsed path accepts (some of them misses), then ones it declines (every fourth file).
  const ShapeTexts ints = {"0", "7", "-42", "null", "123456789012345678", "1234567890123456789", "-0", "1.0", "\"3\""};
  const ShapeTexts int32s = {"1", "-5", "null", "9999999999"};
  const ShapeTexts doubles = {"0", "-42", "2.5", "null", "1e3", "\"3\""};
  const ShapeTexts strings = {"\"plain\"", "\"\"", "null", "\"caf\xC3\xA9\"", "\"a\\\"b\"", "\"\xC3\"", "5"};
  const ShapeTexts booleans = {"true", "false", "null", "0"};
  const ShapeTexts times = {"\"2024-01-02T03:04:05.001\"", "\"2024-01-02T03:04:05.002\"", "\"2024-01-02T03:04:06\"",
                            "\"2024-01-02T03:04:06+02:00\"", "null", "\"2024-01-02T03:04:06.1234567\"", "\"late\""};
  const ShapeTexts others = {"1", "\"x\"", "true", "null", "{\"k\":1}", "2.5"};
  std::mt19937 random(31);
  bool declines = false;
  // Index 0 mostly; another accepted one 1 in `rare`; in a declining file, any one.
  auto pick = [&](const ShapeTexts& from, size_t accepted, int rare) {
    if (random() % rare != 0) return from[0];
    return from[random() % (declines ? from.size() : accepted)];
  };
  int64_t decoded = 0;
  for (int file = 0; file < 40; ++file) {
    declines = file % 4 == 0;
    std::string content;
    const int lines = 50 + static_cast<int>(random() % 200);
    const int rare = 2 + file % 20;
    for (int k = 0; k < lines; ++k) {
      std::string line = ShapedLine(pick(ints, 6, rare), pick(int32s, 3, rare), pick(doubles, 4, rare),
                                    pick(strings, 5, rare), pick(booleans, 3, rare), pick(times, 5, rare),
                                    pick(others, 6, rare));
      if (random() % 40 == 0) line = "{\"s\":\"first\",\"i\":1}";             // another layout
      if (file % 5 == 1 && random() % 3 == 0) {  // optional keys: several layouts in turn
        line = "{\"i\":" + std::to_string(k) + (k % 2 ? ",\"b\":true" : "") + (k % 3 ? ",\"s\":\"o\"" : "") + "}";
      }
      if (file % 7 == 3 && k > 20) line = "{\"i\" :" + std::to_string(k) + "}";  // never in place
      if (file % 3 == 2) {  // as Python's json.dumps spaces it
        for (const std::string key : {"\"i\":", "\"n\":", "\"d\":", "\"s\":", "\"b\":", "\"t\":", "\"x\":"}) {
          const size_t at = line.find("," + key);
          if (at != std::string::npos && random() % 50 != 0) line.replace(at, key.size() + 1, ", " + key);
          const size_t colon = line.find(key);
          if (colon != std::string::npos && random() % 50 != 0) line.insert(colon + key.size(), " ");
        }
      }
      content += line + (random() % 30 == 0 ? "\r\n" : "\n");
    }
    if (DecodeWithAndWithoutShapes(content, false, "file " + std::to_string(file))) ++decoded;
  }
  EXPECT_EQ(decoded, 30);  // the files without a declined value
  // A large file split into ranges parsed on both cores, each learning its own layout.
  std::string big;
  for (int64_t i = 0; big.size() < (9u << 20); ++i) {
    big += ShapedLine(std::to_string(i), "1", "2", "\"row " + std::to_string(i) + "\"", "true",
                "\"2024-01-02T03:04:" + std::to_string(10 + i % 50) + ".5\"", "\"x\"") + "\n";
  }
  auto table = DecodeWithAndWithoutShapes(big, true, "big");
  ASSERT_NE(table, nullptr);
  EXPECT_GT(table->column(0)->num_chunks(), 1);
}

// Lines staged and appended column by column later give the columns the values, nulls and order
// that appending each line at once gives: with two layouts in turn (a flush at each change),
// nulls among the staged values, a line appended at once in between (after those staged), and
// more lines than are staged at a time.
TEST(JsonLineShape, StagedLinesAreAppendedInTheirOrder) {
  auto schema = ShapeSchema();
  auto staged = ShapeColumns(*schema);
  auto direct = ShapeColumns(*schema);
  LineLayouts a;
  LineLayouts b;
  for (LineLayouts* shape : {&a, &b}) {
    ASSERT_TRUE(shape->Learn({{"i", 0}, {"s", 3}, {"b", 4}}, staged));
    ASSERT_TRUE(shape->Learn({{"s", 3}, {"d", 2}}, staged));
  }
  const std::vector<uint8_t> all(staged.size(), 1);
  std::mt19937 random(3);
  Status error;
  std::vector<std::string> texts;  // staged values point into their line's text
  texts.reserve(300);
  for (int k = 0; k < 300; ++k) {
    const std::string n = std::to_string(k);
    const std::string s = random() % 9 == 0 ? "null" : "\"v" + n + "\"";
    const bool second = random() % 5 == 0;
    const std::string& line =
        texts.emplace_back(second ? "{\"s\":" + s + ",\"d\":" + (k % 7 ? n : "null") + "}"
                                  : "{\"i\":" + (k % 11 ? n : "null") + ",\"s\":" + s + ",\"b\":" +
                                        (k % 2 ? "true" : "false") + "}");
    const char* end = line.data() + line.size();
    ASSERT_EQ(a.Match(line.data(), end, end, staged), end) << line;
    ASSERT_EQ(b.Match(line.data(), end, end, direct), end) << line;
    ASSERT_TRUE(b.Append(&direct, all, &error)) << error;
    if (k % 97 == 50) {
      ASSERT_TRUE(a.Append(&staged, all, &error)) << error;
      EXPECT_EQ(a.staged(), 0);
    } else {
      ASSERT_TRUE(a.Stage(&staged, &error)) << error;
    }
    EXPECT_LT(a.staged(), LineLayouts::kStagedLines);
  }
  EXPECT_FALSE(a.Learn({{"b", 4}}, staged));  // not while lines are staged
  ASSERT_TRUE(a.Flush(&staged, &error)) << error;
  EXPECT_EQ(a.staged(), 0);
  for (size_t i = 0; i < staged.size(); ++i) {
    std::shared_ptr<arrow::DataType> type = arrow::int64();
    if (staged[i].kind == ValueKind::kString) type = arrow::utf8();
    if (staged[i].kind == ValueKind::kDouble) type = arrow::float64();
    if (staged[i].kind == ValueKind::kBoolean) type = arrow::boolean();
    ASSERT_OK_AND_ASSIGN(auto got, staged[i].values.Finish(type));
    ASSERT_OK_AND_ASSIGN(auto want, direct[i].values.Finish(type));
    ASSERT_OK(got->ValidateFull());
    EXPECT_EQ(got->length(), 300);
    EXPECT_TRUE(got->Equals(*want)) << schema->field(static_cast<int>(i))->name();
  }
}

// Integer literals of 1 to 20 digits (read 8 digits at a time where 8 bytes can be read), signed,
// with a leading zero, at their type's limits or followed by what makes them no integer, in a
// column of each integer-reading kind and in a key no column has, the last one at the very end
// of the file: the same values, or the same decline, as the parser gives.
TEST(JsonLineShape, IntegersOfEveryLengthReadAsTheParserReadsThem) {
  std::mt19937 random(5);
  ShapeTexts values = {"9223372036854775807", "-9223372036854775808", "2147483647", "2147483648", "-2147483648",
                       "-2147483649", "12345678", "99999999", "100000000", "-0", "00", "0", "-"};
  for (int digits = 1; digits <= 20; ++digits) {
    std::string v(1, static_cast<char>('1' + random() % 9));
    for (int k = 1; k < digits; ++k) v += static_cast<char>('0' + random() % 10);
    for (const char* after : {"", ".5", "e2", "x", "-"}) {
      values.push_back(v + after);
      values.push_back("-" + v + after);
    }
    values.push_back("0" + v);
  }
  const std::string first = ShapedLine("1", "2", "3", "\"s\"", "true", "null", "4");
  int64_t decoded = 0;
  for (const auto& v : values) {
    const ShapeTexts lines = {ShapedLine(v, "2", "3", "\"s\"", "true", "null", "4"),
                              ShapedLine("1", v, "3", "\"s\"", "true", "null", "4"),
                              ShapedLine("1", "2", v, "\"s\"", "true", "null", "4"),
                              ShapedLine("1", "2", "3", "\"s\"", "true", "null", v)};
    for (size_t at = 0; at < lines.size(); ++at) {
      const std::string content = first + "\n" + lines[at] + "\n" + lines[at];
      if (DecodeWithAndWithoutShapes(content, false, v + " at " + std::to_string(at))) ++decoded;
    }
  }
  EXPECT_GT(decoded, 100);  // (most of the others are declined, the same way)
}

// A line of the learned layout is matched and its end found in one pass: it must be followed by
// a line break or the range's end; anything else after its `}` is parsed as before.
TEST(JsonLineShape, LineEndsFoundOnTheWayAreLineEnds) {
  const std::string good = ShapedLine("1", "2", "3", "\"s\"", "true", "\"2024-01-02T03:04:05\"", "\"x\"");
  const ShapeTexts endings = {"\n", "\r\n", "\r\r\n", " \n", "\t\r\n", "x\n", "}\n", "\r", ",\n", "\n\n  \n"};
  for (const auto& ending : endings) {
    std::string content;
    for (int k = 0; k < 20; ++k) content += good + "\n";
    content += good + ending + good + ending + good;  // the last line without a line break
    auto table = DecodeWithAndWithoutShapes(content, false, "ending '" + ending + "'");
    const bool accepted = ending.find_first_not_of(" \t\r\n") == std::string::npos && ending.back() == '\n';
    EXPECT_EQ(table != nullptr, accepted) << "ending '" << ending << "'";
    if (table) {
      EXPECT_EQ(table->num_rows(), 23);
    }
  }
}

}  // namespace
}  // namespace sluice::source
