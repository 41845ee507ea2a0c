// CSV schema inference (source/schema_inference.h MakeCsvSchemaInference) follows Spark's
// CSVInferSchema: names from the first line, Spark's type lattice over every record of every
// file, read a block of lines at a time; and the CSV reader reads the inferred types to Spark's
// values (csv_field_text.h forms).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "file_source_test_util.h"
#include "source/csv_field_text.h"
#include "source/file_readers.h"
#include "source/schema_inference.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using testing::LocalFs;
using testing::Rows;
using testing::TempDir;
using testing::WriteFile;
using Strings = std::vector<std::string>;

FileFormatOptions Csv(bool header, bool infer) {
  FileFormatOptions o;
  o.format = "csv";
  o.header = header;
  o.infer_schema = infer;
  return o;
}

// The schema inferred from files with `contents` (in order), as "name: type" lines.
Result<std::string> InferText(const Strings& contents, const FileFormatOptions& options,
                              int64_t block_bytes = kLineBlockBytes) {
  auto inference = MakeCsvSchemaInference(options, block_bytes);
  ARROW_ASSIGN_OR_RAISE(auto schema, testing::InferFromContents(*inference, contents, "csv"));
  if (!schema) return std::string("(none)");
  std::string out;
  for (const auto& f : schema->fields()) out += (out.empty() ? "" : ", ") + f->name() + ": " + f->type()->ToString();
  return out;
}

std::string Typed(const Strings& contents, int64_t block_bytes = kLineBlockBytes) {
  auto got = InferText(contents, Csv(/*header=*/true, /*infer=*/true), block_bytes);
  return got.ok() ? *got : got.status().ToString();
}

// One column x, a value a line.
std::string Col(const Strings& values) {
  std::string out = "x\n";
  for (const auto& v : values) out += v + "\n";
  return out;
}

TEST(CsvSchemaInference, NumbersAreIntThenBigintThenDecimalThenDouble) {
  EXPECT_EQ(Typed({Col({"1", "+2", "-3", "00012", "2147483647"})}), "x: int32");
  EXPECT_EQ(Typed({Col({"1", "2147483648"})}), "x: int64");
  EXPECT_EQ(Typed({Col({"123456789012345678901234"})}), "x: decimal128(24, 0)");
  EXPECT_EQ(Typed({Col({"9223372036854775808", "1"})}), "x: decimal128(19, 0)");
  EXPECT_EQ(Typed({Col({"1.", "1.5e1", "0e0"})}), "x: decimal128(2, 0)");  // BigDecimals of scale 0
  EXPECT_EQ(Typed({Col({std::string(38, '9')})}), "x: decimal128(38, 0)");
  EXPECT_EQ(Typed({Col({std::string(39, '9')})}), "x: double");  // beyond DECIMAL(38)
  EXPECT_EQ(Typed({Col({"1", "1.5"})}), "x: double");
  EXPECT_EQ(Typed({Col({"1e5"})}), "x: double");  // a negative scale is no decimal type
  EXPECT_EQ(Typed({Col({"123456789012345678901234", "1.5"})}), "x: double");
  EXPECT_EQ(Typed({Col({" 1", "2\t", "3d", "4F", ".5", "NaN", "-NaN", "Infinity", "+Infinity", "Inf", "-Inf"})}),
            "x: double");
  EXPECT_EQ(Typed({Col({"inf"})}), "x: string");
  EXPECT_EQ(Typed({Col({"+Inf"})}), "x: string");
  EXPECT_EQ(Typed({Col({"0x10"})}), "x: string");
  EXPECT_EQ(Typed({Col({"1", "a"})}), "x: string");
}

TEST(CsvSchemaInference, BooleansDatesAndTimestamps) {
  EXPECT_EQ(Typed({Col({"true", "FALSE", "tRuE"})}), "x: bool");
  EXPECT_EQ(Typed({Col({"true", "1"})}), "x: string");
  EXPECT_EQ(Typed({Col({"true "})}), "x: string");
  EXPECT_EQ(Typed({Col({"2024-01-01", "2024-02-29"})}), "x: date32[day]");
  EXPECT_EQ(Typed({Col({"2023-02-29"})}), "x: string");  // no such day
  EXPECT_EQ(Typed({Col({"2024-01-01 10:00:00", "2024-01-01T10:00:00Z", "2024-1-1", "2024-01",
                        "2024-01-01 10:00:00.123456789", "2024-01-01 10:00:00 +02:00", "2024-01-01 ", "+2024-01-01"})}),
            "x: timestamp[us, tz=UTC]");
  EXPECT_EQ(Typed({Col({"2024-01-01T"})}), "x: string");
  EXPECT_EQ(Typed({Col({"2024-01-01T10:00Z"})}), "x: string");
  EXPECT_EQ(Typed({Col({"2024-01-01 24:00:00"})}), "x: string");
}

TEST(CsvSchemaInference, OrderWithinAFileMattersAndFilesMergeAsTypes) {
  // The type so far decides which types a field is tried as: after a DATE, "2024" is a
  // TIMESTAMP (year only); from nothing it is an INT, and INT with DATE is STRING.
  EXPECT_EQ(Typed({Col({"2024-01-01", "2024"})}), "x: timestamp[us, tz=UTC]");
  EXPECT_EQ(Typed({Col({"2024", "2024-01-01"})}), "x: string");
  EXPECT_EQ(Typed({Col({"2024-01-01", "2024-01-01 10:00:00"})}), "x: timestamp[us, tz=UTC]");
  EXPECT_EQ(Typed({Col({"2024-01-01 10:00:00", "2024-01-01"})}), "x: timestamp[us, tz=UTC]");
  EXPECT_EQ(Typed({Col({"2024-01-01", "1"})}), "x: string");
  // Each file folds on its own; the files' types merge.
  EXPECT_EQ(Typed({Col({"1"}), Col({"2.5"})}), "x: double");
  EXPECT_EQ(Typed({Col({"1"}), Col({"9223372036854775807"})}), "x: int64");
  EXPECT_EQ(Typed({Col({"12345678901234567890123"}), Col({"9223372036854775807"})}), "x: decimal128(23, 0)");
  EXPECT_EQ(Typed({Col({"1"}), Col({std::string(24, '1')})}), "x: decimal128(24, 0)");
  EXPECT_EQ(Typed({Col({"1"}), Col({"a"})}), "x: string");
  EXPECT_EQ(Typed({Col({"2024-01-01"}), Col({"2024-01-01 10:00:00"})}), "x: timestamp[us, tz=UTC]");
  EXPECT_EQ(Typed({Col({"true"}), Col({"2024-01-01"})}), "x: string");
}

TEST(CsvSchemaInference, EmptyFieldsKeepTheTypeAndAColumnOfNoneIsString) {
  EXPECT_EQ(Typed({"a,b,c\n,1,\n,,\n,2,\"\"\n"}), "a: string, b: int32, c: string");
}

TEST(CsvSchemaInference, HeaderNamesAreRenamedAsSpark) {
  EXPECT_EQ(Typed({"a,A,a,,b\n1,2,3,4,5\n"}), "a0: int32, A1: int32, a2: int32, _c3: int32, b: int32");
  auto strings = InferText({"a,A,a,,b\n1,2,3,4,5\n"}, Csv(true, false));
  ASSERT_OK(strings);
  EXPECT_EQ(*strings, "a0: string, A1: string, a2: string, _c3: string, b: string");
  EXPECT_EQ(Typed({"\"a,b\",c\n1,2\n"}), "a,b: int32, c: int32");
}

TEST(CsvSchemaInference, AHeaderThatRenamesToARepeatedNameIsAnErrorNamingTheFile) {
  auto got = InferText({"a,a,a0\n1,2,3\n"}, Csv(true, true));
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.status().IsInvalid());
  EXPECT_NE(got.status().message().find("part-0.csv"), std::string::npos) << got.status().ToString();
  EXPECT_NE(got.status().message().find("'a0' twice"), std::string::npos) << got.status().ToString();
}

TEST(CsvSchemaInference, RaggedRecordsAsSpark) {
  // A short record leaves its missing columns; fields beyond the names are not looked at.
  EXPECT_EQ(Typed({"a,b\n1\n2,x,9\n3,4\n"}), "a: int32, b: string");
  EXPECT_EQ(Typed({"a,b\n1\n2,3,x\n"}), "a: int32, b: int32");
  auto no_header = InferText({"1,2\n3\n4,5,6\n"}, Csv(false, true));
  ASSERT_OK(no_header);
  EXPECT_EQ(*no_header, "_c0: int32, _c1: int32");
}

TEST(CsvSchemaInference, WithoutAHeaderTheFirstLineGivesTheColumnCount) {
  auto typed = InferText({"\n\n1\n3,4\n4,5,6\n"}, Csv(false, true));
  ASSERT_OK(typed);
  EXPECT_EQ(*typed, "_c0: int32");
  auto strings = InferText({"x,1.5\n"}, Csv(false, false));
  ASSERT_OK(strings);
  EXPECT_EQ(*strings, "_c0: string, _c1: string");
}

TEST(CsvSchemaInference, BlankLinesAndCopiesOfTheHeaderAreNoRecords) {
  EXPECT_EQ(Typed({"\n  \n\t\na,b\n1,2\n\n \n3,4\r\n"}), "a: int32, b: int32");
  EXPECT_EQ(Typed({"a\n1\na\n2\n"}), "a: int32");  // as Spark, a line equal to the header is skipped
  EXPECT_EQ(Typed({"a\n1\n", "a\n2\n"}), "a: int32");
}

TEST(CsvSchemaInference, FilesWithNoLineGiveNoSchema) {
  EXPECT_EQ(Typed({"", "\n \n"}), "(none)");
  EXPECT_EQ(Typed({"", "a,b\n"}), "a: string, b: string");  // a header alone: no values, strings
  EXPECT_EQ(Typed({"\n", "a\n1\n"}), "a: int32");
}

TEST(CsvSchemaInference, SmallBlocksGiveTheSameSchema) {
  std::string big = "\n\n   \n\na,b,c\n";
  for (int i = 0; i < 300; ++i) {
    big += std::to_string(i) + "," + (i == 250 ? "2.5" : std::to_string(i)) + "," + (i % 7 ? "2024-01-0" : "") +
           (i % 7 ? std::to_string(1 + i % 9) : "") + "\n";
  }
  big += "a,b,c\n\n9,9,2024-01-01";  // a copy of the header, a blank line, no final line break
  const std::string whole = Typed({big});
  EXPECT_EQ(whole, "a: int32, b: double, c: date32[day]");
  for (int64_t block : {1, 3, 8, 64, 1000}) EXPECT_EQ(Typed({big, Col({"7"})}, block), whole + "") << block;
  // The first lines blank over several blocks: the header is still found.
  EXPECT_EQ(Typed({std::string(100, '\n') + "a\n1\n"}, 8), "a: int32");
}

TEST(CsvSchemaInference, WithoutInferSchemaOnlyTheFirstLineIsRead) {
  TempDir dir;
  WriteFile(dir.Sub("a.csv"), "\n\nk,v\n1,2\n");
  auto inference = MakeCsvSchemaInference(Csv(true, false), 4);
  ASSERT_OK(inference->AddFile(LocalFs().get(), dir.Sub("a.csv")));
  // Once the names are known, later files are not opened (this one does not exist).
  ASSERT_OK(inference->AddFile(LocalFs().get(), dir.Sub("missing.csv")));
  ASSERT_OK_AND_ASSIGN(auto schema, inference->Finish());
  EXPECT_EQ(schema->ToString(), "k: string\nv: string");
}

TEST(CsvSchemaInference, AnUnreadableFileIsAnIOErrorNamingIt) {
  TempDir dir;
  auto inference = MakeCsvSchemaInference(Csv(true, true));
  Status st = inference->AddFile(LocalFs().get(), dir.Sub("missing.csv"));
  ASSERT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_NE(st.message().find("missing.csv"), std::string::npos) << st.ToString();
}

TEST(CsvSchemaInference, IgnoreCorruptFilesSkipsAnUnreadableFileWhileInferring) {
  TempDir dir;
  WriteFile(dir.Sub("in/a.csv"), "a\n1\n");
  std::filesystem::create_directories(dir.Sub("in/b.csv"));  // a directory: cannot be read as a file
  FileSourceOptions opts;
  opts.format = Csv(true, true);
  auto spec = testing::Spec("csv", dir.Sub("in"), nullptr, {{"header", "true"}, {"inferSchema", "true"}}, false);
  const Strings files = {dir.Sub("in/a.csv"), dir.Sub("in/b.csv")};
  auto refused = InferSchemaOfFiles(spec, opts, LocalFs(), files);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("b.csv"), std::string::npos) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("ignoreCorruptFiles"), std::string::npos) << refused.status().ToString();
  opts.format.ignore_corrupt_files = true;
  ASSERT_OK_AND_ASSIGN(auto schema, InferSchemaOfFiles(spec, opts, LocalFs(), files));
  EXPECT_EQ(schema->ToString(), "a: int32");
}

// The reader reads the inferred types to Spark's values, also for the forms Arrow's CSV
// reader does not take itself ("+1", "2d", "tRuE", lenient timestamps), and renamed headers.
TEST(CsvSchemaInference, TheReaderReadsTheInferredTypesAsSpark) {
  TempDir dir;
  const std::string path = dir.Sub("t.csv");
  WriteFile(path,
            "i,I,d,f,b,t,,dt\n"
            "+1,5,123456789012345678901234,1d,tRuE,2024-1-2 3:04:05,x,2024-01-31\n"
            "-2,,+7, 2.5 ,FALSE,2024-01-01 10:00:00 UTC,,\n"
            "3,6,1.,+Infinity,true,2024-01-01T10:00:00.1234567+01:00,y,2024-02-29\n");
  auto options = Csv(true, true);
  auto inference = MakeCsvSchemaInference(options);
  ASSERT_OK(inference->AddFile(LocalFs().get(), path));
  ASSERT_OK_AND_ASSIGN(auto schema, inference->Finish());
  EXPECT_EQ(schema->ToString(),
            "i0: int32\nI1: int32\nd: decimal128(24, 0)\nf: double\nb: bool\nt: timestamp[us, tz=UTC]\n_c6: string\n"
            "dt: date32[day]");
  for (int64_t block : {int64_t{1} << 30, int64_t{16}}) {
    ASSERT_OK_AND_ASSIGN(auto read, ReadCsvFile(LocalFs().get(), path, schema, options, false, block));
    EXPECT_EQ(read.malformed_rows, 0);
    EXPECT_EQ(Rows(read.table),
              (Strings{"1|5|123456789012345678901234|1|true|2024-01-02 03:04:05.000000Z|x|2024-01-31",
                       "-2|null|7|2.5|false|2024-01-01 10:00:00.000000Z|null|null",
                       "3|6|1|inf|true|2024-01-01 09:00:00.123456Z|y|2024-02-29"}))
        << block;
  }
}

TEST(CsvSchemaInference, SparkTimestampText) {
  auto at = [](const char* text) { return SparkTimestampMicros(text); };
  constexpr int64_t kDay = 86'400'000'000;
  const int64_t jan1 = 19723 * kDay;  // 2024-01-01
  EXPECT_EQ(at("2024"), jan1);
  EXPECT_EQ(at("2024-01"), jan1);
  EXPECT_EQ(at(" 2024-1-1\t"), jan1);
  EXPECT_EQ(at("2024-01-01T10"), jan1 + 10 * 3'600'000'000);
  EXPECT_EQ(at("2024-01-01 10:00:00.5Z"), jan1 + 10 * 3'600'000'000 + 500'000);
  EXPECT_EQ(at("2024-01-01 10:00:00-0130"), jan1 + 11 * 3'600'000'000 + 30 * 60'000'000);
  EXPECT_EQ(at("2024-01-01 10:00:00 GMT+1"), jan1 + 9 * 3'600'000'000);
  EXPECT_EQ(at("2024-01-01 10:00:00.1234569"), jan1 + 10 * 3'600'000'000 + 123'456);
  for (const char* no : {"", "1", "202-01-01", "2024-01-01T", "2024-01-01  10:00", "2024-01-01Z", "2024-01-01T10Z",
                         "2024-01-32", "2024-01-01 10:00:60", "2024-01-01 10:00:00 +19", "-2024-01-01",
                         "2024-01-01 10:00:00 America/New_York"}) {
    EXPECT_FALSE(at(no).has_value()) << no;
  }
}

}  // namespace
}  // namespace sluice::source
