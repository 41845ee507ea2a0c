// FlatColumnBuilder: the values a JSON decoder appends, in the room reserved or growing it, with
// nulls as a bitmap made at Finish (none when the column has no null).
#include "source/flat_column_builder.h"

#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace sluice::source {
namespace {

std::shared_ptr<arrow::Array> FromJson(const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  return *arrow::json::ArrayFromJSONString(type, json);
}

TEST(FlatColumnBuilder, IntegersGrowPastTheRoomReservedAndNullsBecomeTheBitmapAtFinish) {
  FlatColumnBuilder b;
  EXPECT_FALSE(b.TryAppend(int64_t{1}));  // no room reserved: nothing appended
  EXPECT_EQ(b.length(), 0);
  ASSERT_OK(b.Reserve(2));
  EXPECT_TRUE(b.TryAppend(int64_t{7}));
  EXPECT_TRUE(b.TryAppend(int64_t{-9}));
  ASSERT_OK(b.Append(int64_t{4}));  // the room reserved is used up, or not: the same row
  for (int64_t v = 0; v < 1000; ++v) {
    if (v % 7 == 3) {
      ASSERT_OK(b.AppendNull());
    } else if (!b.TryAppend(v)) {
      ASSERT_OK(b.Append(v));
    }
  }
  EXPECT_EQ(b.IntegerAt(1), -9);
  ASSERT_OK_AND_ASSIGN(auto array, b.Finish(arrow::int64()));
  ASSERT_OK(array->ValidateFull());
  ASSERT_EQ(array->length(), 1003);
  const auto& ints = static_cast<const arrow::Int64Array&>(*array);
  EXPECT_EQ(ints.Value(0), 7);
  EXPECT_EQ(ints.Value(1), -9);
  EXPECT_EQ(ints.Value(2), 4);
  int64_t nulls = 0;
  for (int64_t v = 0; v < 1000; ++v) {
    if (v % 7 == 3) {
      ++nulls;
      EXPECT_TRUE(ints.IsNull(v + 3)) << v;
    } else {
      EXPECT_TRUE(ints.IsValid(v + 3)) << v;
      EXPECT_EQ(ints.Value(v + 3), v);
    }
  }
  EXPECT_EQ(ints.null_count(), nulls);
  // Finish starts the builder again; a column without nulls has no bitmap.
  EXPECT_EQ(b.length(), 0);
  ASSERT_OK(b.Append(int64_t{5}));
  ASSERT_OK_AND_ASSIGN(auto again, b.Finish(arrow::timestamp(arrow::TimeUnit::MICRO)));
  ASSERT_OK(again->ValidateFull());
  EXPECT_EQ(again->null_count(), 0);
  EXPECT_EQ(again->data()->buffers[0], nullptr);
  EXPECT_EQ(again->ToString(), FromJson(arrow::timestamp(arrow::TimeUnit::MICRO), "[5]")->ToString());
}

TEST(FlatColumnBuilder, StringsDoublesAndBooleansKeepTheirValuesAndNulls) {
  FlatColumnBuilder s(FlatColumnBuilder::Layout::kString);
  EXPECT_FALSE(s.TryAppend(std::string_view("no room yet")));
  ASSERT_OK(s.Reserve(3, 4));
  EXPECT_TRUE(s.TryAppend(std::string_view("ab")));
  ASSERT_OK(s.Append(std::string_view("cde")));
  ASSERT_OK(s.AppendNull());
  std::string long_text(5000, 'x');
  EXPECT_FALSE(s.TryAppend(std::string_view(long_text)));  // more than the room reserved
  EXPECT_EQ(s.length(), 3);
  ASSERT_OK(s.Append(std::string_view(long_text)));
  ASSERT_OK(s.Append(std::string_view()));  // empty, its data null: no bytes are copied
  EXPECT_TRUE(s.TryAppend(std::string_view()) || s.Append(std::string_view()).ok());
  EXPECT_EQ(s.string_bytes(), 5005);
  ASSERT_OK_AND_ASSIGN(auto strings, s.Finish(arrow::utf8()));
  ASSERT_OK(strings->ValidateFull());
  EXPECT_TRUE(strings->Equals(*FromJson(
      arrow::utf8(), "[\"ab\", \"cde\", null, \"" + long_text + "\", \"\", \"\"]")));

  FlatColumnBuilder d;
  ASSERT_OK(d.Append(1.5));
  ASSERT_OK(d.AppendNull());
  ASSERT_OK(d.Append(-0.25));
  ASSERT_OK_AND_ASSIGN(auto doubles, d.Finish(arrow::float64()));
  EXPECT_TRUE(doubles->Equals(*FromJson(arrow::float64(), "[1.5, null, -0.25]")));

  FlatColumnBuilder b(FlatColumnBuilder::Layout::kBoolean);
  for (int i = 0; i < 20; ++i) {
    if (i == 11) {
      ASSERT_OK(b.AppendNull());
    } else {
      ASSERT_OK(b.Append(i % 3 == 0));
    }
  }
  ASSERT_OK_AND_ASSIGN(auto booleans, b.Finish(arrow::boolean()));
  ASSERT_OK(booleans->ValidateFull());
  const auto& bools = static_cast<const arrow::BooleanArray&>(*booleans);
  for (int i = 0; i < 20; ++i) {
    if (i == 11) {
      EXPECT_TRUE(bools.IsNull(i));
    } else {
      EXPECT_EQ(bools.Value(i), i % 3 == 0) << i;
    }
  }
  EXPECT_EQ(bools.null_count(), 1);
}

TEST(FlatColumnBuilder, ManyValuesAtOnceOnlyInTheRoomReservedAndWithoutABitmap) {
  FlatColumnBuilder ints;
  auto square = [](int64_t i) { return i * i; };
  EXPECT_FALSE(ints.TryAppendAll(3, square));  // no room: nothing appended
  EXPECT_EQ(ints.length(), 0);
  ASSERT_OK(ints.Reserve(5));
  ASSERT_OK(ints.Append(int64_t{-1}));
  EXPECT_FALSE(ints.TryAppendAll(1000, square));  // more than the room
  EXPECT_EQ(ints.length(), 1);
  EXPECT_TRUE(ints.TryAppendAll(4, square));
  ASSERT_OK(ints.AppendNull());
  ASSERT_OK(ints.Reserve(10));
  EXPECT_FALSE(ints.TryAppendAll(2, square));  // a bitmap now: one at a time
  ASSERT_OK_AND_ASSIGN(auto a, ints.Finish(arrow::int64()));
  ASSERT_OK(a->ValidateFull());
  EXPECT_TRUE(a->Equals(*FromJson(arrow::int64(), "[-1, 0, 1, 4, 9, null]"))) << a->ToString();

  FlatColumnBuilder strings(FlatColumnBuilder::Layout::kString);
  const std::vector<std::string_view> words = {"ab", "", "cde", std::string_view()};
  auto word = [&](int64_t i) { return words[static_cast<size_t>(i)]; };
  ASSERT_OK(strings.Reserve(8, 4));
  const std::string long_word(1 << 16, 'x');
  EXPECT_FALSE(strings.TryAppendAll(4, [&](int64_t) { return std::string_view(long_word); }));  // bytes past the room
  EXPECT_EQ(strings.length(), 0);
  ASSERT_OK(strings.Append(std::string_view("z")));
  EXPECT_TRUE(strings.TryAppendAll(4, word));
  ASSERT_OK_AND_ASSIGN(auto s, strings.Finish(arrow::utf8()));
  ASSERT_OK(s->ValidateFull());
  EXPECT_TRUE(s->Equals(*FromJson(arrow::utf8(), R"(["z", "ab", "", "cde", ""])"))) << s->ToString();

  FlatColumnBuilder doubles;
  FlatColumnBuilder booleans(FlatColumnBuilder::Layout::kBoolean);
  ASSERT_OK(doubles.Reserve(3));
  ASSERT_OK(booleans.Reserve(3));
  EXPECT_TRUE(doubles.TryAppendAll(3, [](int64_t i) { return static_cast<double>(i) / 2; }));
  EXPECT_TRUE(booleans.TryAppendAll(3, [](int64_t i) { return i != 1; }));
  ASSERT_OK_AND_ASSIGN(auto d, doubles.Finish(arrow::float64()));
  ASSERT_OK_AND_ASSIGN(auto b, booleans.Finish(arrow::boolean()));
  EXPECT_TRUE(d->Equals(*FromJson(arrow::float64(), "[0, 0.5, 1]"))) << d->ToString();
  EXPECT_TRUE(b->Equals(*FromJson(arrow::boolean(), "[true, false, true]"))) << b->ToString();
}

TEST(FlatColumnBuilder, AStringColumnPastArrowsLimitIsACapacityErrorAndKeepsWhatItHad) {
  FlatColumnBuilder s(FlatColumnBuilder::Layout::kString);
  ASSERT_OK(s.Append(std::string_view("kept")));
  // The limit is checked before any byte is read: the view's length alone is past it.
  const std::string_view too_long("x", FlatColumnBuilder::kMaxStringBytes);
  EXPECT_FALSE(s.TryAppend(too_long));
  auto st = s.Append(too_long);
  ASSERT_TRUE(st.IsCapacityError()) << st;
  EXPECT_NE(st.message().find("2147483646"), std::string::npos) << st;
  EXPECT_EQ(s.length(), 1);
  ASSERT_OK_AND_ASSIGN(auto strings, s.Finish(arrow::utf8()));
  EXPECT_TRUE(strings->Equals(*FromJson(arrow::utf8(), "[\"kept\"]")));
}

TEST(FlatColumnBuilder, AColumnOfNullsKeepsABitAStartedAtTheFirstNull) {
  FlatColumnBuilder s(FlatColumnBuilder::Layout::kString);
  ASSERT_OK(s.Reserve(100, 100));
  for (int i = 0; i < 1000; ++i) ASSERT_OK(s.AppendNull());
  ASSERT_OK(s.Append(std::string_view("last")));
  ASSERT_OK_AND_ASSIGN(auto strings, s.Finish(arrow::utf8()));
  ASSERT_OK(strings->ValidateFull());
  EXPECT_EQ(strings->length(), 1001);
  EXPECT_EQ(strings->null_count(), 1000);
  EXPECT_EQ(strings->data()->buffers[0]->size(), 126);  // a bit a row, not a row number
  EXPECT_EQ(static_cast<const arrow::StringArray&>(*strings).GetString(1000), "last");
  // After Finish the builder has no bitmap again.
  ASSERT_OK(s.Append(std::string_view("a")));
  ASSERT_OK_AND_ASSIGN(auto again, s.Finish(arrow::utf8()));
  EXPECT_EQ(again->data()->buffers[0], nullptr);
}

}  // namespace
}  // namespace sluice::source
