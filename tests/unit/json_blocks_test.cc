// A JSON-lines file larger than the read block is read a block of whole lines at a time
// (file_readers.h ReadJsonFile): it must decode exactly as the same file read in one piece —
// rows, order, malformed records in every mode, line numbers in FAILFAST errors — with records
// straddling block boundaries, lines longer than a block, CRLF, blank lines and no final break.
#include <gtest/gtest.h>

#include <random>

#include "file_source_test_util.h"
#include "source/file_readers.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using testing::Rows;
using testing::TempDir;
using testing::WriteFile;

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8()),
                        arrow::field("_corrupt_record", arrow::utf8())});
}

// ~400 lines: good records of varying length, malformed ones (not JSON, a string for a number,
// bytes that are not UTF-8), blank and CRLF lines, one line longer than any block used below,
// and no line break at the end. Returns the 1-based number of the first malformed line.
int64_t WriteMixedFile(const std::string& path, uint32_t seed, bool with_malformed) {
  std::mt19937 rng(seed);
  std::string text;
  int64_t first_bad = 0;
  for (int64_t line = 1; line <= 400; ++line) {
    const unsigned kind = rng() % 20;
    if (line == 200) {
      text += "{\"a\":" + std::to_string(line) + ",\"b\":\"" + std::string(5000, 'L') + "\"}\n";
    } else if (kind == 0) {
      text += "\n";
    } else if (kind == 1) {
      text += "{\"a\":" + std::to_string(line) + "}\r\n";
    } else if (with_malformed && kind == 2 && line > 150) {
      if (first_bad == 0) first_bad = line;
      const unsigned bad = rng() % 3;
      text += bad == 0 ? "{\"a\":\n" : bad == 1 ? "{\"a\":\"many\"}\n" : "{\"a\":1,\"b\":\"\xff\"}\n";
    } else {
      text += "{\"a\":" + std::to_string(line) + ",\"b\":\"" + std::string(rng() % 90, 'x') + "\"}\n";
    }
  }
  text += "{\"a\":-1,\"b\":\"last, no line break\"}";
  WriteFile(path, text);
  return first_bad;
}

class JsonBlocks : public ::testing::TestWithParam<JsonReader> {
 protected:
  FileFormatOptions Json(ParseMode mode) const {
    FileFormatOptions o;
    o.format = "json";
    o.mode = mode;
    o.json_reader = GetParam();
    return o;
  }
  Result<FileReadResult> Read(const std::string& path, ParseMode mode, int64_t block) const {
    return ReadJsonFile(io::LocalFileSystem().get(), path, Schema(), Json(mode), /*use_threads=*/true, block);
  }
};

TEST_P(JsonBlocks, LargeFileDecodesAsInOnePieceInEveryMode) {
  TempDir dir;
  const std::string path = dir.Sub("big.json");
  WriteMixedFile(path, 3, /*with_malformed=*/true);
  for (ParseMode mode : {ParseMode::kPermissive, ParseMode::kDropMalformed}) {
    auto whole = Read(path, mode, int64_t{1} << 40);
    ASSERT_OK(whole);
    ASSERT_GT(whole->malformed_rows, 0);
    for (int64_t block : {1, 37, 256, 4096}) {  // blocks end mid-record; 5000 > every block
      auto blocks = Read(path, mode, block);
      ASSERT_OK(blocks);
      EXPECT_EQ(Rows(blocks->table), Rows(whole->table)) << "block " << block;
      EXPECT_EQ(blocks->malformed_rows, whole->malformed_rows) << "block " << block;
      EXPECT_TRUE(blocks->table->schema()->Equals(*Schema()));
    }
  }
}

TEST_P(JsonBlocks, FailFastNamesTheSameLineOfTheFile) {
  TempDir dir;
  const std::string path = dir.Sub("big.json");
  const int64_t first_bad = WriteMixedFile(path, 4, /*with_malformed=*/true);
  ASSERT_GT(first_bad, 150);
  auto whole = Read(path, ParseMode::kFailFast, int64_t{1} << 40);
  ASSERT_FALSE(whole.ok());
  const std::string at = "Malformed record in " + io::PathToUri(path) + " at line " + std::to_string(first_bad) + ": ";
  EXPECT_EQ(whole.status().message().rfind(at, 0), 0u) << whole.status().message();
  for (int64_t block : {1, 37, 256, 4096}) {
    auto blocks = Read(path, ParseMode::kFailFast, block);
    ASSERT_FALSE(blocks.ok());
    EXPECT_EQ(blocks.status().message(), whole.status().message()) << "block " << block;
  }
}

TEST_P(JsonBlocks, WellFormedFileThroughReadDataFileMatchesBlockwiseRead) {
  TempDir dir;
  const std::string path = dir.Sub("good.json");
  WriteMixedFile(path, 5, /*with_malformed=*/false);
  auto whole = ReadDataFile(io::LocalFileSystem().get(), path, Schema(), Json(ParseMode::kFailFast), true);
  ASSERT_OK(whole);
  EXPECT_EQ(whole->table->num_rows(), Read(path, ParseMode::kFailFast, 64)->table->num_rows());
  EXPECT_EQ(Rows(Read(path, ParseMode::kFailFast, 64)->table), Rows(whole->table));
  EXPECT_EQ(Rows(whole->table).back(), "-1|last, no line break|null");
}

INSTANTIATE_TEST_SUITE_P(BothReaders, JsonBlocks, ::testing::Values(JsonReader::kSimdjson, JsonReader::kArrow),
                         [](const auto& info) { return info.param == JsonReader::kSimdjson ? "simdjson" : "arrow"; });

}  // namespace
}  // namespace sluice::source
