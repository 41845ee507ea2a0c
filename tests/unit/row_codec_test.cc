// The state-key encoding must sort bytewise like the values (eviction stops at the first key
// the watermark has not passed) and decode back to the same values.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "exec/row_codec.h"
#include "support/status.h"

namespace sluice::exec {
namespace {

template <typename Builder, typename T>
std::shared_ptr<arrow::Array> Build(std::shared_ptr<arrow::DataType> type, const std::vector<T>& values, bool with_null) {
  Builder b(type, arrow::default_memory_pool());
  if (with_null) EXPECT_OK(b.AppendNull());
  for (const auto& v : values) EXPECT_OK(b.Append(v));
  std::shared_ptr<arrow::Array> out;
  EXPECT_OK(b.Finish(&out));
  return out;
}

// Encodes every row, sorts the encodings, and checks nulls sort first and that decoding gives
// the values back (the per-type tests below check the order of non-null values).
void CheckOrderAndRoundTrip(const std::shared_ptr<arrow::Array>& array) {
  std::vector<std::pair<std::string, int64_t>> enc;
  for (int64_t i = 0; i < array->length(); ++i) {
    std::string s;
    EncodeValue(*array, i, &s);
    enc.emplace_back(s, i);
  }
  std::sort(enc.begin(), enc.end());
  std::unique_ptr<arrow::ArrayBuilder> builder;
  ASSERT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), array->type(), &builder));
  for (size_t k = 0; k < enc.size(); ++k) {
    size_t pos = 0;
    ASSERT_OK(DecodeValue(enc[k].first, &pos, *array->type(), builder.get()));
    EXPECT_EQ(pos, enc[k].first.size());
    if (k == 0) continue;
    auto prev = array->GetScalar(enc[k - 1].second).ValueOrDie();
    auto cur = array->GetScalar(enc[k].second).ValueOrDie();
    if (!prev->is_valid) continue;  // null sorts first
    ASSERT_TRUE(cur->is_valid) << "a null sorted after a value";
  }
  std::shared_ptr<arrow::Array> decoded;
  ASSERT_OK(builder->Finish(&decoded));
  for (size_t k = 0; k < enc.size(); ++k) {
    auto want = array->GetScalar(enc[k].second).ValueOrDie();
    auto got = decoded->GetScalar(static_cast<int64_t>(k)).ValueOrDie();
    EXPECT_TRUE(want->Equals(*got)) << want->ToString() << " vs " << got->ToString();
  }
}

TEST(RowCodec, Int64SortsNumericallyIncludingNegatives) {
  std::vector<int64_t> v = {5, -1, 0, INT64_MIN, INT64_MAX, -1000, 42, 7};
  auto a = Build<arrow::Int64Builder>(arrow::int64(), v, true);
  CheckOrderAndRoundTrip(a);
  std::vector<std::string> enc;
  for (int64_t i = 1; i < a->length(); ++i) {
    std::string s;
    EncodeValue(*a, i, &s);
    enc.push_back(s);
  }
  std::vector<int64_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  std::vector<size_t> idx(v.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return enc[x] < enc[y]; });
  for (size_t i = 0; i < idx.size(); ++i) EXPECT_EQ(v[idx[i]], sorted[i]);
}

TEST(RowCodec, DoublesSortNumerically) {
  std::vector<double> v = {1.5, -2.25, 0.0, -0.5, 1e300, -1e300, 3.0};
  auto a = Build<arrow::DoubleBuilder>(arrow::float64(), v, true);
  CheckOrderAndRoundTrip(a);
  std::vector<std::pair<std::string, double>> enc;
  for (int64_t i = 1; i < a->length(); ++i) {
    std::string s;
    EncodeValue(*a, i, &s);
    enc.emplace_back(s, v[static_cast<size_t>(i - 1)]);
  }
  std::sort(enc.begin(), enc.end());
  for (size_t i = 1; i < enc.size(); ++i) EXPECT_LE(enc[i - 1].second, enc[i].second);
}

TEST(RowCodec, StringsWithZeroBytesSortLikeBytesAndRoundTrip) {
  std::vector<std::string> v = {"b", "a", std::string("a\0b", 3), "", "ab", std::string("a\0", 2), "zz"};
  auto a = Build<arrow::StringBuilder>(arrow::utf8(), v, true);
  CheckOrderAndRoundTrip(a);
  std::vector<std::pair<std::string, std::string>> enc;
  for (int64_t i = 1; i < a->length(); ++i) {
    std::string s;
    EncodeValue(*a, i, &s);
    enc.emplace_back(s, v[static_cast<size_t>(i - 1)]);
  }
  std::sort(enc.begin(), enc.end());
  for (size_t i = 1; i < enc.size(); ++i) EXPECT_LE(enc[i - 1].second, enc[i].second);
}

TEST(RowCodec, TupleKeysSortByFirstComponentFirst) {
  // (window end, key): all keys of an earlier window end sort before any later one.
  std::mt19937 rng(7);
  std::vector<std::pair<std::string, std::pair<int64_t, std::string>>> keys;
  auto strings = Build<arrow::StringBuilder>(arrow::utf8(), std::vector<std::string>{"zzz", "a", "m"}, false);
  for (int i = 0; i < 200; ++i) {
    int64_t end = static_cast<int64_t>(rng() % 50) - 25;
    int64_t s = rng() % 3;
    std::string k;
    EncodeInt64(end, &k);
    EncodeValue(*strings, s, &k);
    keys.push_back({k, {end, strings->GetScalar(s).ValueOrDie()->ToString()}});
  }
  std::sort(keys.begin(), keys.end());
  for (size_t i = 1; i < keys.size(); ++i) EXPECT_LE(keys[i - 1].second, keys[i].second);
}

TEST(RowCodec, TimestampsDecimalsBooleansRoundTrip) {
  CheckOrderAndRoundTrip(Build<arrow::TimestampBuilder>(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                                        std::vector<int64_t>{3, -7, 1767225600000000}, true));
  CheckOrderAndRoundTrip(Build<arrow::BooleanBuilder>(arrow::boolean(), std::vector<bool>{true, false}, true));
  arrow::Decimal128Builder d(arrow::decimal128(12, 2));
  ASSERT_OK(d.AppendNull());
  for (int64_t v : {12345, -5, 0, -99999}) ASSERT_OK(d.Append(arrow::Decimal128(v)));
  std::shared_ptr<arrow::Array> dec;
  ASSERT_OK(d.Finish(&dec));
  CheckOrderAndRoundTrip(dec);
}

TEST(RowCodec, TruncatedValuesAreErrorsNotCrashes) {
  auto a = Build<arrow::StringBuilder>(arrow::utf8(), std::vector<std::string>{"hello"}, false);
  std::string s;
  EncodeValue(*a, 0, &s);
  std::unique_ptr<arrow::ArrayBuilder> b;
  ASSERT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), arrow::utf8(), &b));
  size_t pos = 0;
  EXPECT_FALSE(DecodeValue(s.substr(0, s.size() - 1), &pos, *arrow::utf8(), b.get()).ok());
  pos = 0;
  EXPECT_FALSE(DecodeInt64(std::string("\x01\x02", 2), &pos).ok());
}

TEST(RowCodec, AnInt64ReadAtAnyPositionOrAnErrorNamingIt) {
  std::string key;
  EncodeInt64(-7, &key);
  EncodeInt64(INT64_MAX, &key);
  key.push_back(0);  // a null
  size_t pos = 0;
  EXPECT_EQ(DecodeInt64(key, &pos).ValueOrDie(), -7);
  EXPECT_EQ(DecodeInt64(key, &pos).ValueOrDie(), INT64_MAX);
  EXPECT_EQ(pos, 2 * kEncodedInt64Size);
  auto null = DecodeInt64(key, &pos);
  EXPECT_NE(null.status().message().find("expected a non-null integer at 18"), std::string::npos) << null.status();
  EXPECT_EQ(pos, 2 * kEncodedInt64Size);  // not advanced
  pos = 9;
  auto truncated = DecodeInt64(key.substr(0, 14), &pos);
  EXPECT_NE(truncated.status().message().find("truncated (reading 8 bytes at 10)"), std::string::npos)
      << truncated.status();
  pos = 30;  // past the end
  EXPECT_FALSE(DecodeInt64(key, &pos).ok());
  pos = 0;
  EXPECT_FALSE(DecodeInt64(std::string(), &pos).ok());
}

}  // namespace
}  // namespace sluice::exec
