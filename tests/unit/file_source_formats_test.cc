// Decoding of each format into the declared schema, malformed records in the three modes, and
// static (batch) reads with schema inference. JSON lines: json_lines_reader_test.cc.
#include <arrow/io/file.h>
#include <gtest/gtest.h>
#include <parquet/arrow/writer.h>

#include <fstream>
#include <iterator>

#include "file_source_test_util.h"
#include "source/file_readers.h"
#include "source/file_source.h"
#include "support/counting_file_system.h"
#include "support/status.h"

namespace sluice::source {
namespace {

using ::testing::HasSubstr;

using testing::ABC;
using testing::LocalFs;
using testing::Rows;
using testing::Spec;
using testing::TempDir;
using testing::WriteFile;
using Strings = std::vector<std::string>;

FileFormatOptions Format(const std::string& format, ParseMode mode = ParseMode::kPermissive, bool header = false) {
  FileFormatOptions o;
  o.format = format;
  o.mode = mode;
  o.header = header;
  return o;
}

Result<FileReadResult> Read(const std::string& path, const std::shared_ptr<arrow::Schema>& schema,
                            const FileFormatOptions& o) {
  return ReadDataFile(LocalFs().get(), path, schema, o, /*use_threads=*/true);
}

TEST(FileSourceFormats, CsvWithHeaderMapsByName) {
  TempDir dir;
  WriteFile(dir.Sub("a.csv"), "b,extra,a\nx,q,1\n,q,2\n\"y,z\",q,\n");
  auto r = Read(dir.Sub("a.csv"), ABC(), Format("csv", ParseMode::kPermissive, /*header=*/true));
  ASSERT_OK(r);
  EXPECT_EQ(Rows(r->table), (Strings{"1|x|null", "2|null|null", "null|y,z|null"}));
}

TEST(FileSourceFormats, CsvWithoutHeaderMapsByPositionWithSeparator) {
  TempDir dir;
  WriteFile(dir.Sub("a.csv"), "1;x;0.5\r\n2;'y;z';1\n");
  auto o = Format("csv");
  o.delimiter = ';';
  o.quote = '\'';
  auto r = Read(dir.Sub("a.csv"), ABC(), o);
  ASSERT_OK(r);
  EXPECT_EQ(Rows(r->table), (Strings{"1|x|0.5", "2|y;z|1"}));
}

TEST(FileSourceFormats, ParquetReadsDeclaredColumnsAndCasts) {
  TempDir dir;
  auto file_schema = arrow::schema({arrow::field("z", arrow::utf8()), arrow::field("a", arrow::int32()),
                                    arrow::field("b", arrow::utf8())});
  arrow::Int32Builder a;
  ASSERT_OK(a.AppendValues({7, 8}));
  arrow::StringBuilder b, z;
  ASSERT_OK(b.AppendValues({"p", "q"}));
  ASSERT_OK(z.AppendValues({"u", "v"}));
  auto table = arrow::Table::Make(file_schema, {*z.Finish(), *a.Finish(), *b.Finish()});
  auto out = *arrow::io::FileOutputStream::Open(dir.Sub("a.parquet"));
  ASSERT_OK(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out));
  ASSERT_OK(out->Close());

  auto r = Read(dir.Sub("a.parquet"), ABC(), Format("parquet"));
  ASSERT_OK(r);
  EXPECT_TRUE(r->table->schema()->Equals(*ABC()));
  EXPECT_EQ(Rows(r->table), (Strings{"7|p|null", "8|q|null"}));

  WriteFile(dir.Sub("bad.parquet"), "not parquet at all");
  auto bad = Read(dir.Sub("bad.parquet"), ABC(), Format("parquet"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr(io::PathToUri(dir.Sub("bad.parquet"))));
}

void WriteParquet(const std::string& path) {
  arrow::Int64Builder a;
  ASSERT_OK(a.AppendValues({1, 2}));
  auto table = arrow::Table::Make(arrow::schema({arrow::field("a", arrow::int64())}), {*a.Finish()});
  auto out = *arrow::io::FileOutputStream::Open(path);
  ASSERT_OK(parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out));
  ASSERT_OK(out->Close());
}

TEST(FileSourceFormats, TheTextFormatsAskForTheirFilesToBeReadAheadButParquetDoesNot) {
  TempDir dir;
  WriteFile(dir.Sub("a.json"), "{\"a\": 1}\n");
  WriteFile(dir.Sub("b.json"), "{\"a\": 2}\n");
  WriteParquet(dir.Sub("a.parquet"));
  WriteParquet(dir.Sub("b.parquet"));
  auto fs = std::make_shared<sluice::testing::CountingFileSystem>();
  ASSERT_OK_AND_ASSIGN(auto json,
                       ReadDataFiles(fs.get(), {dir.Sub("a.json"), dir.Sub("b.json")}, ABC(), Format("json")));
  EXPECT_EQ(Rows(json.table), (Strings{"1|null|null", "2|null|null"}));
  EXPECT_EQ(fs->Calls("WillRead", "a.json"), 1);
  EXPECT_EQ(fs->Calls("WillRead", "b.json"), 1);
  // A Parquet read takes only the column chunks it needs: the whole file is not asked for.
  ASSERT_OK_AND_ASSIGN(auto parquet, ReadDataFiles(fs.get(), {dir.Sub("a.parquet"), dir.Sub("b.parquet")}, ABC(),
                                                   Format("parquet")));
  EXPECT_EQ(parquet.table->num_rows(), 4);
  EXPECT_EQ(fs->Calls("WillRead", ".parquet"), 0);
  // A batch of many files: only the first 64 are asked for (a hint costs what reading a tiny file does).
  std::vector<std::string> many;
  for (int i = 0; i < 70; ++i) {
    many.push_back(dir.Sub("many-" + std::to_string(100 + i) + ".json"));
    WriteFile(many.back(), "{\"a\": " + std::to_string(i) + "}\n");
  }
  ASSERT_OK_AND_ASSIGN(auto read, ReadDataFiles(fs.get(), many, ABC(), Format("json")));
  EXPECT_EQ(read.table->num_rows(), 70);
  EXPECT_EQ(fs->Calls("WillRead", "many-"), 64);
  EXPECT_EQ(fs->Calls("WillRead", "many-163"), 1);
  EXPECT_EQ(fs->Calls("WillRead", "many-164"), 0);
}

TEST(FileSourceFormats, CorruptAndMissingFilesNameTheOptionOrAreSkippedWithIt) {
  TempDir dir;
  WriteParquet(dir.Sub("good.parquet"));
  WriteFile(dir.Sub("empty.parquet"), "");  // 0 bytes: no rows, as Spark
  auto o = Format("parquet");
  ASSERT_OK_AND_ASSIGN(auto empty, ReadDataFiles(LocalFs().get(), {dir.Sub("good.parquet"), dir.Sub("empty.parquet")},
                                                 ABC(), o));
  EXPECT_EQ(Rows(empty.table), (Strings{"1|null|null", "2|null|null"}));
  EXPECT_EQ(empty.skipped_files, 0);

  // Truncated: the first half of a real Parquet file.
  {
    std::ifstream in(dir.Sub("good.parquet"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    WriteFile(dir.Sub("truncated.parquet"), bytes.substr(0, bytes.size() / 2));
  }
  const std::vector<std::string> files = {dir.Sub("good.parquet"), dir.Sub("truncated.parquet")};
  auto corrupt = ReadDataFiles(LocalFs().get(), files, ABC(), o);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_THAT(corrupt.status().message(), HasSubstr(io::PathToUri(dir.Sub("truncated.parquet"))));
  EXPECT_THAT(corrupt.status().message(), HasSubstr("ignoreCorruptFiles = true"));
  o.ignore_corrupt_files = true;
  ASSERT_OK_AND_ASSIGN(auto skipped, ReadDataFiles(LocalFs().get(), files, ABC(), o));
  EXPECT_EQ(Rows(skipped.table), (Strings{"1|null|null", "2|null|null"}));
  EXPECT_EQ(skipped.skipped_files, 1);

  const std::vector<std::string> gone = {dir.Sub("good.parquet"), dir.Sub("deleted.parquet")};
  auto missing = ReadDataFiles(LocalFs().get(), gone, ABC(), o);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr(io::PathToUri(dir.Sub("deleted.parquet"))));
  EXPECT_THAT(missing.status().message(), HasSubstr("ignoreMissingFiles = true"));
  o.ignore_missing_files = true;
  ASSERT_OK_AND_ASSIGN(auto without, ReadDataFiles(LocalFs().get(), gone, ABC(), o));
  EXPECT_EQ(without.table->num_rows(), 2);
  EXPECT_EQ(without.skipped_files, 1);
}

TEST(FileSourceFormats, TextIsOneValueRowPerLine) {
  TempDir dir;
  WriteFile(dir.Sub("a.txt"), "first\r\nsecond\n\nlast");
  auto schema = arrow::schema({arrow::field("value", arrow::utf8())});
  auto r = Read(dir.Sub("a.txt"), schema, Format("text"));
  ASSERT_OK(r);
  EXPECT_EQ(Rows(r->table), (Strings{"first", "second", "", "last"}));
}

TEST(FileSourceFormats, EmptyFilesGiveNoRows) {
  TempDir dir;
  for (std::string format : {"json", "csv", "text"}) {
    WriteFile(dir.Sub("empty." + format), "");
    WriteFile(dir.Sub("blank." + format), "\n\n");
    auto schema = format == "text" ? arrow::schema({arrow::field("value", arrow::utf8())}) : ABC();
    auto empty = Read(dir.Sub("empty." + format), schema, Format(format, ParseMode::kFailFast, format == "csv"));
    ASSERT_OK(empty) << format;
    EXPECT_EQ(empty->table->num_rows(), 0) << format;
    EXPECT_TRUE(empty->table->schema()->Equals(*schema)) << format;
    if (format == "text") continue;  // blank lines are rows of text
    auto blank = Read(dir.Sub("blank." + format), schema, Format(format, ParseMode::kFailFast, format == "csv"));
    ASSERT_OK(blank) << format;
    EXPECT_EQ(blank->table->num_rows(), 0) << format;
  }
}

std::shared_ptr<arrow::Schema> WithCorrupt() {
  return arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8()),
                        arrow::field("_corrupt_record", arrow::utf8())});
}

TEST(FileSourceFormats, CsvBytesThatAreNotUtf8BecomeReplacementCharactersAsInSpark) {
  TempDir dir;
  // 0xFF alone, a truncated 3-byte sequence (one U+FFFD), an overlong 0xC0 0xAF (two).
  WriteFile(dir.Sub("a.csv"), std::string("1,a\xff" "b\n2,\xe2\x82\n3,\xc0\xaf\n"));
  auto r = Read(dir.Sub("a.csv"), arrow::schema({arrow::field("a", arrow::int64()), arrow::field("b", arrow::utf8())}),
                Format("csv", ParseMode::kFailFast));
  ASSERT_OK(r);
  EXPECT_EQ(Rows(r->table), (Strings{"1|a\xEF\xBF\xBD" "b", "2|\xEF\xBF\xBD", "3|\xEF\xBF\xBD\xEF\xBF\xBD"}));
  EXPECT_EQ(r->malformed_rows, 0);
  ASSERT_OK(r->table->ValidateFull());
}

// Line 3: "zz" is not a number; line 4: too few fields; line 5: too many.
const char* kBadCsv = "a,b\n1,x\nzz,y\n3\n4,w,extra\n5,v\n";

TEST(FileSourceFormats, MalformedCsvInAllModes) {
  TempDir dir;
  WriteFile(dir.Sub("a.csv"), kBadCsv);
  auto permissive = Read(dir.Sub("a.csv"), WithCorrupt(), Format("csv", ParseMode::kPermissive, true));
  ASSERT_OK(permissive);
  // As Spark: a row with the wrong number of fields keeps what it has; in a row with a field that
  // does not convert ("zz") only that field is null (Spark 4's partial results).
  EXPECT_EQ(Rows(permissive->table),
            (Strings{"1|x|null", "null|y|zz,y", "3|null|3", "4|w|4,w,extra", "5|v|null"}));
  EXPECT_EQ(permissive->malformed_rows, 3);

  auto dropped = Read(dir.Sub("a.csv"), WithCorrupt(), Format("csv", ParseMode::kDropMalformed, true));
  ASSERT_OK(dropped);
  EXPECT_EQ(Rows(dropped->table), (Strings{"1|x|null", "5|v|null"}));
  EXPECT_EQ(dropped->malformed_rows, 3);

  auto failed = Read(dir.Sub("a.csv"), WithCorrupt(), Format("csv", ParseMode::kFailFast, true));
  ASSERT_FALSE(failed.ok());
  std::string prefix = "Malformed record in " + io::PathToUri(dir.Sub("a.csv")) + " at line 3: ";
  EXPECT_EQ(failed.status().message().rfind(prefix, 0), 0u) << failed.status().message();
}

TEST(FileSourceFormats, StaticReadInfersJsonSchemaAndSkipsHiddenFiles) {
  TempDir dir;
  WriteFile(dir.Sub("in/1.json"), "{\"name\":\"a\",\"id\":1}\n");
  WriteFile(dir.Sub("in/2.json"), "{\"id\":2,\"extra\":null}\n");
  WriteFile(dir.Sub("in/_tmp.json"), "{\"id\":99}\n");
  WriteFile(dir.Sub("in/.hidden.json"), "{\"id\":98}\n");
  auto spec = Spec("json", dir.Sub("in"), nullptr, {}, /*streaming=*/false);
  auto schema = InferFilesSchema(spec, LocalFs());
  ASSERT_OK(schema);
  EXPECT_EQ((*schema)->field_names(), (Strings{"extra", "id", "name"}));  // sorted, as Spark
  EXPECT_TRUE((*schema)->GetFieldByName("extra")->type()->Equals(arrow::utf8()));
  auto table = ReadFilesStatic(spec, LocalFs());
  ASSERT_OK(table);
  EXPECT_EQ(Rows(*table), (Strings{"null|1|a", "null|2|null"}));
}

TEST(FileSourceFormats, StaticCsvInferenceFollowsInferSchema) {
  TempDir dir;
  WriteFile(dir.Sub("in/1.csv"), "id,v\n1,2.5\n");
  auto strings = InferFilesSchema(Spec("csv", dir.Sub("in"), nullptr, {{"header", "true"}}, false), LocalFs());
  ASSERT_OK(strings);
  EXPECT_EQ((*strings)->ToString(), "id: string\nv: string");
  auto typed = InferFilesSchema(Spec("csv", dir.Sub("in"), nullptr, {{"header", "true"}, {"inferSchema", "true"}}, false), LocalFs());
  ASSERT_OK(typed);
  EXPECT_EQ((*typed)->ToString(), "id: int32\nv: double");
  auto no_header = InferFilesSchema(Spec("csv", dir.Sub("in"), nullptr, {}, false), LocalFs());
  ASSERT_OK(no_header);
  EXPECT_EQ((*no_header)->field_names(), (Strings{"_c0", "_c1"}));
}

TEST(FileSourceFormats, StaticParquetInferenceSkipsEmptyFileAndNamesTruncatedOne) {
  TempDir dir;
  WriteFile(dir.Sub("in/b.parquet"), "");  // 0 bytes: no schema, skipped as Spark skips it
  WriteParquet(dir.Sub("in/a.parquet"));
  auto spec = Spec("parquet", dir.Sub("in"), nullptr, {}, /*streaming=*/false);
  ASSERT_OK_AND_ASSIGN(auto schema, InferFilesSchema(spec, LocalFs()));
  EXPECT_EQ(schema->ToString(), "a: int64");
  ASSERT_OK_AND_ASSIGN(auto table, ReadFilesStatic(spec, LocalFs()));
  EXPECT_EQ(Rows(table), (Strings{"1", "2"}));

  // Truncated: inference fails naming the file and the option; with the option it is skipped.
  {
    std::ifstream in(dir.Sub("in/a.parquet"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    WriteFile(dir.Sub("in/c.parquet"), bytes.substr(0, bytes.size() / 2));
  }
  auto refused = InferFilesSchema(spec, LocalFs());
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr(io::PathToUri(dir.Sub("in/c.parquet"))));
  EXPECT_THAT(refused.status().message(), HasSubstr("ignoreCorruptFiles = true"));
  auto skipping = Spec("parquet", dir.Sub("in"), nullptr, {{"ignoreCorruptFiles", "true"}}, false);
  ASSERT_OK_AND_ASSIGN(auto skipped_schema, InferFilesSchema(skipping, LocalFs()));
  EXPECT_EQ(skipped_schema->ToString(), "a: int64");
  ASSERT_OK_AND_ASSIGN(auto rows, ReadFilesStatic(skipping, LocalFs()));
  EXPECT_EQ(Rows(rows), (Strings{"1", "2"}));

  // Only empty files: nothing to infer from, said as such.
  WriteFile(dir.Sub("only/e.parquet"), "");
  auto none = InferFilesSchema(Spec("parquet", dir.Sub("only"), nullptr, {}, false), LocalFs());
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("It must be specified manually"));
}

TEST(FileSourceFormats, StaticReadOfMissingPathNamesIt) {
  TempDir dir;
  auto table = ReadFilesStatic(Spec("json", dir.Sub("nope"), nullptr, {}, false), LocalFs());
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.status().message(), "Path does not exist: " + io::PathToUri(dir.Sub("nope")));
}

}  // namespace
}  // namespace sluice::source
