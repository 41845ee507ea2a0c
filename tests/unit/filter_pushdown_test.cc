// Filter pushdown into the file readers (source.h ScanFilter): the simdjson JSON-lines decoder
// decodes a pushed predicate's columns first and the other columns only for the rows it keeps;
// the Parquet reader skips row groups whose statistics rule the predicate out. Each test checks
// that the scan skipped work (rows dropped, row groups skipped) and that the rows the predicate
// keeps are exactly those of the read without the filter, malformed records and modes included.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

#include "exec/expr_eval.h"
#include "file_source_test_util.h"
#include "source/file_readers.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using testing::ABC;
using testing::LocalFs;
using testing::Rows;
using testing::TempDir;
using testing::WriteFile;
using Strings = std::vector<std::string>;
using plan::Expr;

plan::ExprPtr Int(int64_t v) { return Expr::Literal(std::make_shared<arrow::Int64Scalar>(v)); }

// a % m = 0
plan::ExprPtr MultipleOf(int64_t m) { return Expr::Call("=", {Expr::Call("%", {Expr::Column("a"), Int(m)}), Int(0)}); }

std::shared_ptr<const ScanFilter> FilterOf(plan::ExprPtr predicate, std::vector<std::string> columns = {"a"}) {
  auto f = std::make_shared<ScanFilter>();
  f->predicate = predicate;
  f->columns = std::move(columns);
  f->evaluate = [predicate](const std::shared_ptr<arrow::RecordBatch>& batch) {
    return exec::EvaluateToArray(*predicate, *batch);
  };
  return f;
}

// The rows of `table` the predicate keeps (what the plan's filter leaves), as text.
Strings Kept(const std::shared_ptr<arrow::Table>& table, const plan::Expr& predicate) {
  auto combined = table->CombineChunksToBatch();
  EXPECT_OK(combined);
  if (!combined.ok()) return {};
  auto kept = exec::FilterBatch(predicate, *combined);
  EXPECT_OK(kept);
  if (!kept.ok()) return {};
  auto t = arrow::Table::FromRecordBatches({*kept});
  return Rows(*t);
}

FileFormatOptions Json(ParseMode mode = ParseMode::kPermissive, std::shared_ptr<const ScanFilter> filter = nullptr) {
  FileFormatOptions o;
  o.format = "json";
  o.mode = mode;
  o.filter = std::move(filter);
  return o;
}

// n lines {"a":i,"b":"s<i>","c":i/2}, every 10th without "a" and every 13th with "a":null.
std::string Lines(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string a = i % 10 == 3 ? "" : i % 13 == 5 ? "\"a\":null," : "\"a\":" + std::to_string(i) + ",";
    out += "{" + a + "\"b\":\"s" + std::to_string(i) + "\",\"c\":" + std::to_string(i / 2.0) + "}\n";
  }
  return out;
}

TEST(FilterPushdown, JsonDecodesOtherColumnsOnlyForKeptRows) {
  TempDir dir;
  const int n = 10000;  // more than one block of lines
  WriteFile(dir.Sub("a.json"), Lines(n));
  auto predicate = MultipleOf(7);
  auto plain = ReadDataFile(LocalFs().get(), dir.Sub("a.json"), ABC(), Json(), true);
  auto pushed = ReadDataFile(LocalFs().get(), dir.Sub("a.json"), ABC(), Json(ParseMode::kPermissive, FilterOf(predicate)), true);
  ASSERT_OK(plain);
  ASSERT_OK(pushed);
  EXPECT_EQ(plain->table->num_rows(), n);
  EXPECT_EQ(plain->rows_filtered, 0);
  // The scan dropped the rows the predicate rejects (nulls included) and kept exactly the others.
  const Strings want = Kept(plain->table, *predicate);
  ASSERT_GT(want.size(), 100u);
  EXPECT_EQ(Rows(pushed->table), want);
  EXPECT_EQ(pushed->table->num_rows() + pushed->rows_filtered, n);
  EXPECT_TRUE(pushed->table->schema()->Equals(*ABC()));
  EXPECT_EQ(pushed->malformed_rows, 0);
}

TEST(FilterPushdown, JsonWithMalformedRecordsMatchesTheUnpushedReadInEveryMode) {
  TempDir dir;
  // Malformed: line 9 (a = 8, rejected by the predicate) has a string where c is a double; line
  // 15 (a = 14, kept) is not JSON. Line 22 gives b (a string) a number: not malformed, b reads
  // its text (as Spark), but the simdjson decoder declines the file for it.
  std::string text = Lines(40);
  std::vector<std::string> lines;
  for (size_t s = 0, e; (e = text.find('\n', s)) != std::string::npos; s = e + 1) lines.push_back(text.substr(s, e - s));
  lines[8] = "{\"a\":8,\"b\":\"s8\",\"c\":\"oops\"}";
  lines[14] = "{\"a\":14,\"b\":";
  lines[21] = "{\"a\":21,\"b\":5}";
  std::string joined;
  for (const auto& l : lines) joined += l + "\n";
  WriteFile(dir.Sub("m.json"), joined);
  auto predicate = MultipleOf(7);
  auto with_corrupt = arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8()),
                                     arrow::field("c", arrow::float64()), arrow::field("_corrupt_record", arrow::utf8())});
  for (auto mode : {ParseMode::kPermissive, ParseMode::kDropMalformed, ParseMode::kFailFast}) {
    for (const auto& schema : {ABC(), with_corrupt}) {
      SCOPED_TRACE(static_cast<int>(mode));
      auto plain = ReadDataFile(LocalFs().get(), dir.Sub("m.json"), schema, Json(mode), true);
      auto pushed = ReadDataFile(LocalFs().get(), dir.Sub("m.json"), schema, Json(mode, FilterOf(predicate)), true);
      ASSERT_EQ(plain.ok(), pushed.ok());
      if (!plain.ok()) {
        EXPECT_EQ(mode, ParseMode::kFailFast);
        EXPECT_EQ(plain.status().message(), pushed.status().message());
        continue;
      }
      EXPECT_EQ(Kept(pushed->table, *predicate), Kept(plain->table, *predicate));
      EXPECT_EQ(pushed->malformed_rows, plain->malformed_rows);
      EXPECT_EQ(pushed->malformed_rows, 2);
      EXPECT_EQ(pushed->table->num_rows() + pushed->rows_filtered, plain->table->num_rows());
    }
  }
}

TEST(FilterPushdown, JsonGivesUpOnAFilterThatKeepsMostRowsOrFails) {
  TempDir dir;
  const int n = 9000;
  WriteFile(dir.Sub("a.json"), Lines(n));
  auto plain = ReadDataFile(LocalFs().get(), dir.Sub("a.json"), ABC(), Json(), true);
  ASSERT_OK(plain);
  // a >= 0 keeps nearly every row: after the first block the rest is decoded whole.
  auto keep_most = Expr::Call(">=", {Expr::Column("a"), Int(0)});
  auto most = ReadDataFile(LocalFs().get(), dir.Sub("a.json"), ABC(), Json(ParseMode::kPermissive, FilterOf(keep_most)), true);
  ASSERT_OK(most);
  EXPECT_EQ(Kept(most->table, *keep_most), Kept(plain->table, *keep_most));
  EXPECT_GT(most->rows_filtered, 0);        // the nulls of the first block
  EXPECT_LT(most->rows_filtered, 4096);     // only the first block was filtered
  EXPECT_EQ(most->table->num_rows() + most->rows_filtered, n);
  // A predicate that cannot be evaluated: the decoder reads every row (the plan's filter reports it).
  auto failing = std::make_shared<ScanFilter>();
  failing->predicate = keep_most;
  failing->columns = {"a"};
  failing->evaluate = [](const std::shared_ptr<arrow::RecordBatch>&) -> Result<std::shared_ptr<arrow::Array>> {
    return Status::Invalid("cannot");
  };
  auto failed = ReadDataFile(LocalFs().get(), dir.Sub("a.json"), ABC(), Json(ParseMode::kPermissive, failing), true);
  ASSERT_OK(failed);
  EXPECT_EQ(Rows(failed->table), Rows(plain->table));
  EXPECT_EQ(failed->rows_filtered, 0);
}

TEST(FilterPushdown, JsonDoesNotFilterWhenAColumnIsCastAfterDecoding) {
  TempDir dir;
  // A date is decoded as text and cast afterwards: a bad date in a row the predicate drops must
  // still make the record malformed, so the decoder does not filter such a schema.
  WriteFile(dir.Sub("d.json"), "{\"a\":7,\"d\":\"2024-01-02\"}\n{\"a\":8,\"d\":\"soon\"}\n");
  auto schema = arrow::schema({arrow::field("a", arrow::int64()), arrow::field("d", arrow::date32())});
  auto predicate = MultipleOf(7);
  auto plain = ReadDataFile(LocalFs().get(), dir.Sub("d.json"), schema, Json(ParseMode::kFailFast), true);
  auto pushed = ReadDataFile(LocalFs().get(), dir.Sub("d.json"), schema, Json(ParseMode::kFailFast, FilterOf(predicate)), true);
  EXPECT_FALSE(plain.ok());
  EXPECT_FALSE(pushed.ok());
  auto permissive = ReadDataFile(LocalFs().get(), dir.Sub("d.json"), schema, Json(ParseMode::kPermissive, FilterOf(predicate)), true);
  ASSERT_OK(permissive);
  EXPECT_EQ(permissive->malformed_rows, 1);
  EXPECT_EQ(permissive->rows_filtered, 0);
}

// A Parquet file of `a` = 0..3999 (some nulls) and b, in row groups of 1000 rows.
void WriteGroups(const std::string& path) {
  arrow::Int64Builder a;
  arrow::StringBuilder b;
  for (int64_t i = 0; i < 4000; ++i) {
    ASSERT_OK(i % 100 == 7 ? a.AppendNull() : a.Append(i));
    ASSERT_OK(b.Append("v" + std::to_string(i)));
  }
  auto schema = arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8())});
  auto table = arrow::Table::Make(schema, {*a.Finish(), *b.Finish()});
  auto out = *arrow::io::FileOutputStream::Open(path);
  ASSERT_OK(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out, /*chunk_size=*/1000));
  ASSERT_OK(out->Close());
}

TEST(FilterPushdown, ParquetSkipsRowGroupsTheStatisticsRuleOut) {
  TempDir dir;
  WriteGroups(dir.Sub("g.parquet"));
  auto schema = arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8())});
  FileFormatOptions o;
  o.format = "parquet";
  auto plain = ReadDataFile(LocalFs().get(), dir.Sub("g.parquet"), schema, o, true);
  ASSERT_OK(plain);
  ASSERT_EQ(plain->table->num_rows(), 4000);
  struct Case {
    plan::ExprPtr predicate;
    int64_t skipped;
  };
  auto b_is = Expr::Call("=", {Expr::Column("b"), Expr::Literal(std::make_shared<arrow::StringScalar>("v5"))});
  const std::vector<Case> cases = {
      {Expr::Call(">=", {Expr::Column("a"), Int(2500)}), 2},                                  // groups 2, 3 read
      {Expr::Call("<", {Int(2999), Expr::Column("a")}), 3},                                   // literal on the left
      {Expr::Call("=", {Expr::Column("a"), Int(1500)}), 3},
      {Expr::Call("and", {Expr::Call(">", {Expr::Column("a"), Int(999)}),
                          Expr::Call("<=", {Expr::Column("a"), Int(1999)})}), 3},
      {Expr::Call("=", {Expr::Column("a"), Int(-1)}), 4},                                     // nothing read
      {Expr::Call("or", {Expr::Call("=", {Expr::Column("a"), Int(-1)}), b_is}), 0},           // not judged
      {MultipleOf(2), 0},                                                                     // not judged
      {b_is, 0},                                                                              // strings: not judged
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.predicate->ToString());
    o.filter = FilterOf(c.predicate, {"a", "b"});
    auto pushed = ReadDataFile(LocalFs().get(), dir.Sub("g.parquet"), schema, o, true);
    ASSERT_OK(pushed);
    EXPECT_EQ(pushed->row_groups_skipped, c.skipped);
    EXPECT_EQ(pushed->rows_filtered, 1000 * c.skipped);
    EXPECT_EQ(pushed->table->num_rows(), 4000 - 1000 * c.skipped);
    EXPECT_EQ(Kept(pushed->table, *c.predicate), Kept(plain->table, *c.predicate));
  }
  // A column read with a cast (bigint in the file, declared int) is not judged.
  auto wide = arrow::schema({arrow::field("a", arrow::int32()), arrow::field("b", arrow::utf8())});
  o.filter = FilterOf(Expr::Call("=", {Expr::Column("a"), Int(-1)}));
  auto cast = ReadDataFile(LocalFs().get(), dir.Sub("g.parquet"), wide, o, true);
  ASSERT_OK(cast);
  EXPECT_EQ(cast->row_groups_skipped, 0);
}

}  // namespace
}  // namespace sluice::source
