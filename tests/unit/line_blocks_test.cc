// A CSV or text file larger than the read block is read a block of whole lines at a time
// (file_readers.h ReadCsvFile / ReadTextFile, as JSON lines in json_blocks_test.cc): it must
// decode exactly as the same file read in one piece — rows, order, malformed records in every
// mode, line numbers in FAILFAST errors, a CSV header naming the columns of every block — with
// records straddling block boundaries, lines longer than a block, CRLF, blank lines (also before
// the header) and no final break.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "file_source_test_util.h"
#include "source/file_readers.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using testing::Rows;
using testing::TempDir;
using testing::WriteFile;

constexpr int64_t kWhole = int64_t{1} << 40;

std::shared_ptr<arrow::Schema> CsvSchema() {
  return arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8()),
                        arrow::field("_corrupt_record", arrow::utf8())});
}

// ~400 records after three blank lines. With `header`, the header "b,a" and the fields in that
// order, the other order than the schema's, so a block that named them by position would swap
// them; without, the fields in the schema's order (a,b), as positions name them. Good
// records of varying length, malformed ones (a word for a number, a field too many), blank and
// CRLF lines, one line longer than any block used below, no line break at the end. Returns the
// 1-based line of the first malformed record.
int64_t WriteCsv(const std::string& path, uint32_t seed, bool header, bool with_malformed) {
  std::mt19937 rng(seed);
  std::string text = "\n  \n\n";
  int64_t line = 4;
  if (header) {
    text += "b,a\n";
    ++line;
  }
  auto record = [&](const std::string& b, const std::string& a) { return header ? b + "," + a : a + "," + b; };
  int64_t first_bad = 0;
  for (int i = 0; i < 400; ++i, ++line) {
    const unsigned kind = rng() % 20;
    const std::string a = std::to_string(i);
    if (i == 200) {
      text += record(std::string(5000, 'L'), a) + "\n";
    } else if (kind == 0) {
      text += "\n";
    } else if (kind == 1) {
      text += record("crlf", a) + "\r\n";
    } else if (with_malformed && kind == 2 && i > 150) {
      if (first_bad == 0) first_bad = line;
      text += rng() % 2 == 0 ? record("x", "many") + "\n" : record("x", a) + ",extra\n";
    } else {
      text += record(std::string(rng() % 90, 'x'), a) + "\n";
    }
  }
  text += record("last no line break", "-1");
  WriteFile(path, text);
  return first_bad;
}

FileFormatOptions Csv(ParseMode mode, bool header) {
  FileFormatOptions o;
  o.format = "csv";
  o.mode = mode;
  o.header = header;
  return o;
}

Result<FileReadResult> ReadCsvIn(const std::string& path, ParseMode mode, bool header, int64_t block) {
  return ReadCsvFile(io::LocalFileSystem().get(), path, CsvSchema(), Csv(mode, header), /*use_threads=*/true, block);
}

TEST(CsvBlocks, LargeFileDecodesAsInOnePieceInEveryModeWithAndWithoutAHeader) {
  TempDir dir;
  for (bool header : {true, false}) {
    const std::string path = dir.Sub(header ? "with_header.csv" : "no_header.csv");
    WriteCsv(path, 3, header, /*with_malformed=*/true);
    for (ParseMode mode : {ParseMode::kPermissive, ParseMode::kDropMalformed}) {
      auto whole = ReadCsvIn(path, mode, header, kWhole);
      ASSERT_OK(whole);
      ASSERT_GT(whole->malformed_rows, 0);
      ASSERT_GT(whole->table->num_rows(), 300);
      for (int64_t block : {1, 37, 256, 4096}) {  // blocks end mid-record; 5000 > every block
        auto blocks = ReadCsvIn(path, mode, header, block);
        ASSERT_OK(blocks);
        EXPECT_EQ(Rows(blocks->table), Rows(whole->table)) << "header " << header << ", block " << block;
        EXPECT_EQ(blocks->malformed_rows, whole->malformed_rows) << "header " << header << ", block " << block;
        EXPECT_TRUE(blocks->table->schema()->Equals(*CsvSchema()));
      }
    }
  }
}

TEST(CsvBlocks, TheHeaderNamesTheColumnsOfEveryBlock) {
  TempDir dir;
  const std::string path = dir.Sub("good.csv");
  WriteCsv(path, 5, /*header=*/true, /*with_malformed=*/false);
  auto blocks = ReadCsvIn(path, ParseMode::kFailFast, /*header=*/true, 64);
  ASSERT_OK(blocks);
  const auto rows = Rows(blocks->table);
  ASSERT_EQ(rows.size(), Rows(ReadCsvIn(path, ParseMode::kFailFast, true, kWhole)->table).size());
  EXPECT_EQ(rows.back(), "-1|last no line break|null");  // a = the header's second column
  EXPECT_EQ(rows.front().rfind("0|", 0), 0u) << rows.front();
}

TEST(CsvBlocks, FailFastNamesTheSameLineOfTheFile) {
  TempDir dir;
  const std::string path = dir.Sub("big.csv");
  const int64_t first_bad = WriteCsv(path, 4, /*header=*/true, /*with_malformed=*/true);
  ASSERT_GT(first_bad, 150);
  auto whole = ReadCsvIn(path, ParseMode::kFailFast, true, kWhole);
  ASSERT_FALSE(whole.ok());
  EXPECT_NE(whole.status().message().find("line " + std::to_string(first_bad)), std::string::npos)
      << whole.status().message();
  for (int64_t block : {1, 37, 256, 4096}) {
    auto blocks = ReadCsvIn(path, ParseMode::kFailFast, true, block);
    ASSERT_FALSE(blocks.ok());
    EXPECT_EQ(blocks.status().message(), whole.status().message()) << "block " << block;
  }
}

// What a decoder is handed: whole lines, in order, together the file; no block larger than the
// block size unless one line is (so a large file is never held whole).
TEST(LineBlocks, EachBlockIsWholeLinesNoLargerThanTheBlockUnlessALineIs) {
  TempDir dir;
  const std::string path = dir.Sub("lines.txt");
  std::string text;
  for (int i = 0; i < 300; ++i) text += std::string(i == 100 ? 700 : i % 50, 'x') + "\n";
  text += "no final break";
  WriteFile(path, text);
  std::string seen;
  std::vector<int64_t> sizes, first_lines;
  std::vector<bool> lasts;
  const auto schema = arrow::schema({arrow::field("value", arrow::utf8())});
  auto read = ReadLineBlocks(io::LocalFileSystem().get(), path, 256,
                             [&](const std::shared_ptr<arrow::Buffer>& block, int64_t first_line,
                                 bool last) -> Result<FileReadResult> {
                               seen += block->ToString();
                               sizes.push_back(block->size());
                               first_lines.push_back(first_line);
                               lasts.push_back(last);
                               ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(schema));
                               return FileReadResult{std::move(empty), 0};
                             });
  ASSERT_OK(read);
  EXPECT_EQ(seen, text);
  ASSERT_GT(sizes.size(), 20u);
  int64_t line = 1, pos = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(first_lines[i], line) << "block " << i;
    EXPECT_EQ(lasts[i], i + 1 == sizes.size()) << "block " << i;
    const std::string block = text.substr(static_cast<size_t>(pos), static_cast<size_t>(sizes[i]));
    if (i + 1 < sizes.size()) {
      EXPECT_EQ(block.back(), '\n') << "block " << i << " ends mid-line";
    }
    const bool holds_the_long_line = block.find(std::string(700, 'x')) != std::string::npos;
    if (!holds_the_long_line) {
      EXPECT_LE(sizes[i], 256) << "block " << i;
    }
    line += std::count(block.begin(), block.end(), '\n');
    pos += sizes[i];
  }
}

TEST(TextBlocks, LargeFileReadsAsInOnePiece) {
  TempDir dir;
  const std::string path = dir.Sub("big.txt");
  std::mt19937 rng(7);
  std::string text;
  for (int i = 0; i < 400; ++i) {
    const unsigned kind = rng() % 10;
    text += kind == 0 ? "" : kind == 1 ? "crlf " + std::to_string(i) + "\r" : std::string(rng() % 90, 't');
    if (i == 200) text += std::string(5000, 'L');
    text += "\n";
  }
  text += "\n\nlast, no line break";
  WriteFile(path, text);
  const auto schema = arrow::schema({arrow::field("value", arrow::utf8())});
  auto whole = ReadTextFile(io::LocalFileSystem().get(), path, schema, kWhole);
  ASSERT_OK(whole);
  ASSERT_EQ(whole->table->num_rows(), 403);
  EXPECT_EQ(Rows(whole->table).back(), "last, no line break");
  for (int64_t block : {1, 37, 256, 4096}) {
    auto blocks = ReadTextFile(io::LocalFileSystem().get(), path, schema, block);
    ASSERT_OK(blocks);
    EXPECT_EQ(Rows(blocks->table), Rows(whole->table)) << "block " << block;
  }
}

}  // namespace
}  // namespace sluice::source
