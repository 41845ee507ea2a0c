// Data-file encoding (Spark's text forms in JSON/CSV, parquet types) and batch writes
// (WriteFilesOnce modes).
#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>
#include <arrow/util/thread_pool.h>
#include <arrow/io/memory.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>
#include <parquet/metadata.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "io/file_system.h"
#include "sink/file_sink.h"
#include "sink/file_sink_json.h"
#include "util/json_text.h"
#include "util/parquet_dictionary.h"
#include "util/parquet_write.h"
#include "util/value_text.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::sink {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

using sluice::testing::TempDir;
using util::AppendJsonValue;
using util::FormatDate;
using util::FormatDoubleJava;
using util::FormatFloatJava;
using util::FormatShowCell;
using util::FormatTimestamp;
using util::TimestampStyle;

std::shared_ptr<arrow::Array> Json(const std::shared_ptr<arrow::DataType>& type, const std::string& json) {
  auto a = arrow::json::ArrayFromJSONString(type, json);
  EXPECT_OK(a);
  return *a;
}

// id, name (null, quote, newline), price (integral, fraction, NaN), ts (UTC micros), flag, day.
std::shared_ptr<arrow::Table> Sample() {
  auto ts = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                               arrow::field("price", arrow::float64()), arrow::field("ts", ts),
                               arrow::field("flag", arrow::boolean()), arrow::field("day", arrow::date32())});
  return arrow::Table::Make(schema, {Json(arrow::int64(), "[1, 2, 3]"),
                                     Json(arrow::utf8(), R"(["a\"b", null, "x\ny"])"),
                                     Json(arrow::float64(), "[1.0, 2.5, NaN]"),
                                     Json(ts, "[0, 1718000000123456, null]"),
                                     Json(arrow::boolean(), "[true, false, null]"),
                                     Json(arrow::date32(), "[19000, -1, null]")});
}

std::vector<std::string> DataFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("part-", 0) == 0) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string WriteOne(const std::string& dir, const std::string& format, const plan::Options& options,
                     const std::shared_ptr<arrow::Table>& rows) {
  Status st = WriteFilesOnce(io::LocalFileSystem(), format, options, "overwrite", dir, rows);
  EXPECT_OK(st);
  auto files = DataFiles(dir);
  EXPECT_EQ(files.size(), 1u);
  return files.empty() ? "" : *io::LocalFileSystem()->ReadFile(files[0]);
}

TEST(FileSinkFormatTest, DoublesPrintLikeJava) {
  EXPECT_EQ(FormatDoubleJava(1.0), "1.0");
  EXPECT_EQ(FormatDoubleJava(-2.5), "-2.5");
  EXPECT_EQ(FormatDoubleJava(0.001), "0.001");
  EXPECT_EQ(FormatDoubleJava(0.0001), "1.0E-4");
  EXPECT_EQ(FormatDoubleJava(1234567.0), "1234567.0");
  EXPECT_EQ(FormatDoubleJava(1e7), "1.0E7");
  EXPECT_EQ(FormatDoubleJava(1.5e300), "1.5E300");
  EXPECT_EQ(FormatDoubleJava(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatDoubleJava(100.0), "100.0");
  EXPECT_EQ(FormatDoubleJava(-0.0), "-0.0");
  EXPECT_EQ(FormatDoubleJava(NAN), "NaN");
  EXPECT_EQ(FormatDoubleJava(-INFINITY), "-Infinity");
  EXPECT_EQ(FormatFloatJava(0.1f), "0.1");
}

TEST(FileSinkFormatTest, TimestampsAndDates) {
  using arrow::TimeUnit;
  EXPECT_EQ(FormatTimestamp(0, TimeUnit::MICRO, true, TimestampStyle::kIso), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTimestamp(1718000000123, TimeUnit::MILLI, true, TimestampStyle::kIso), "2024-06-10T06:13:20.123Z");
  EXPECT_EQ(FormatTimestamp(1718000000123456, TimeUnit::MICRO, false, TimestampStyle::kIso),
            "2024-06-10T06:13:20.123456");
  EXPECT_EQ(FormatTimestamp(-1500, TimeUnit::MILLI, true, TimestampStyle::kIso), "1969-12-31T23:59:58.500Z");
  EXPECT_EQ(FormatTimestamp(1718000000, TimeUnit::SECOND, true, TimestampStyle::kShow), "2024-06-10 06:13:20");
  EXPECT_EQ(FormatTimestamp(1718000000500000, TimeUnit::MICRO, true, TimestampStyle::kShow), "2024-06-10 06:13:20.5");
  EXPECT_EQ(FormatDate(19000), "2022-01-08");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
}

TEST(FileSinkFormatTest, JsonLinesMatchSparkGenerator) {
  TempDir tmp;
  std::string text = WriteOne(tmp.path(), "json", {}, Sample());
  EXPECT_EQ(text,
            "{\"id\":1,\"name\":\"a\\\"b\",\"price\":1.0,\"ts\":\"1970-01-01T00:00:00.000Z\",\"flag\":true,"
            "\"day\":\"2022-01-08\"}\n"
            "{\"id\":2,\"price\":2.5,\"ts\":\"2024-06-10T06:13:20.123456Z\",\"flag\":false,\"day\":\"1969-12-31\"}\n"
            "{\"id\":3,\"name\":\"x\\ny\",\"price\":\"NaN\"}\n");

  plan::Options keep_nulls;
  keep_nulls.Set("ignoreNullFields", "false");
  auto one = Sample()->Slice(2, 1);
  EXPECT_EQ(WriteOne(tmp.path(), "json", keep_nulls, one),
            "{\"id\":3,\"name\":\"x\\ny\",\"price\":\"NaN\",\"ts\":null,\"flag\":null,\"day\":null}\n");
}

TEST(FileSinkFormatTest, JsonNestedValues) {
  auto type = arrow::struct_({arrow::field("xs", arrow::list(arrow::int32())),
                              arrow::field("m", arrow::map(arrow::utf8(), arrow::float64())),
                              arrow::field("b", arrow::binary())});
  auto a = Json(type, R"([{"xs": [1, null], "m": [["k", 0.5]], "b": "hi"}, {"xs": null, "m": [], "b": null}])");
  std::string out;
  ASSERT_OK(AppendJsonValue(*a, 0, true, &out));
  EXPECT_EQ(out, R"({"xs":[1,null],"m":{"k":0.5},"b":"aGk="})");
  out.clear();
  ASSERT_OK(AppendJsonValue(*a, 1, true, &out));
  EXPECT_EQ(out, R"({"m":{}})");
}

TEST(FileSinkFormatTest, CsvUsesSparkTextFormsAndOptions) {
  TempDir tmp;
  // Arrow's CSV writer quotes every string-typed value; timestamps and doubles are strings
  // here (Spark's text forms), so they are quoted too. Spark and pyarrow unquote them.
  EXPECT_EQ(WriteOne(tmp.path(), "csv", {}, Sample()),
            "1,\"a\"\"b\",\"1.0\",\"1970-01-01T00:00:00.000Z\",true,2022-01-08\n"
            "2,,\"2.5\",\"2024-06-10T06:13:20.123456Z\",false,1969-12-31\n"
            "3,\"x\ny\",\"NaN\",,,\n");
  plan::Options o;
  o.Set("header", "true");
  o.Set("sep", ";");
  o.Set("nullValue", "NA");
  EXPECT_EQ(WriteOne(tmp.path(), "csv", o, Sample()->SelectColumns({0, 1}).ValueOrDie()),
            "\"id\";\"name\"\n1;\"a\"\"b\"\n2;NA\n3;\"x\ny\"\n");
}

TEST(FileSinkFormatTest, ParquetKeepsTypesWithMicrosecondTimestamps) {
  TempDir tmp;
  ASSERT_OK(WriteFilesOnce(io::LocalFileSystem(), "parquet", {}, "error", tmp.path() + "/p", Sample()));
  auto files = DataFiles(tmp.path() + "/p");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0], HasSubstr(".c000.snappy.parquet"));
  auto reader = *parquet::arrow::OpenFile(*io::LocalFileSystem()->OpenInputFile(files[0]), arrow::default_memory_pool());
  auto table = *reader->ReadTable();
  EXPECT_TRUE(table->schema()->Equals(*Sample()->schema())) << table->schema()->ToString();
  ASSERT_EQ(table->num_rows(), 3);
  for (int c = 0; c < table->num_columns(); ++c) {
    EXPECT_TRUE(table->column(c)->Equals(*Sample()->column(c), arrow::EqualOptions::Defaults().nans_equal(true)))
        << table->schema()->field(c)->name();
  }
}

// A table of many chunks (one per decoded file) is written as one row group, its columns encoded
// on the CPU pool; the same write issued from the pool's own threads, all of them at once, must
// not wait on tasks queued behind itself. There each file is written on its own thread, column
// after column, and its bytes are the same.
TEST(FileSinkFormatTest, ParquetOfManyChunksIsOneRowGroupAlsoWhenWrittenFromPoolThreads) {
  TempDir tmp;
  std::vector<std::shared_ptr<arrow::Table>> samples(170, Sample());
  auto chunk = *(*arrow::ConcatenateTables(samples))->CombineChunks();
  std::vector<std::shared_ptr<arrow::Table>> parts(40, chunk);
  auto rows = *arrow::ConcatenateTables(parts);
  ASSERT_EQ(rows->column(0)->num_chunks(), 40);
  ASSERT_EQ(rows->num_rows(), 20'400);  // enough to be encoded on the pool from outside it
  std::string main_bytes;
  auto check = [&](const std::string& dir) {
    auto files = DataFiles(dir);
    ASSERT_EQ(files.size(), 1u);
    auto bytes = *io::LocalFileSystem()->ReadFile(files[0]);
    if (main_bytes.empty()) main_bytes = bytes;
    EXPECT_TRUE(bytes == main_bytes) << dir << ": " << bytes.size() << " bytes, " << main_bytes.size() << " from outside the pool";
    auto reader = *parquet::arrow::OpenFile(*io::LocalFileSystem()->OpenInputFile(files[0]), arrow::default_memory_pool());
    EXPECT_EQ(reader->num_row_groups(), 1);
    auto table = *reader->ReadTable();
    EXPECT_TRUE(table->Equals(*rows, arrow::EqualOptions::Defaults().nans_equal(true)));
  };
  ASSERT_OK(WriteFilesOnce(io::LocalFileSystem(), "parquet", {}, "error", tmp.path() + "/main", rows));
  check(tmp.path() + "/main");

  auto* pool = arrow::internal::GetCpuThreadPool();
  const int n = std::max(2, pool->GetCapacity());
  std::vector<arrow::Future<>> writes;
  for (int i = 0; i < n; ++i) {
    auto dir = tmp.path() + "/pool" + std::to_string(i);
    writes.push_back(*pool->Submit([&rows, dir] { return WriteFilesOnce(io::LocalFileSystem(), "parquet", {}, "error", dir, rows); }));
  }
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(writes[i].Wait(60)) << "write " << i << " from a pool thread did not finish";
    ASSERT_OK(writes[i].status());
    check(tmp.path() + "/pool" + std::to_string(i));
  }
}

TEST(ParquetDictionary, ItPaysUnlessThreeQuartersOfTheSampleAreDistinct) {
  EXPECT_TRUE(util::DictionaryDoesNotPay(3, 4));
  EXPECT_TRUE(util::DictionaryDoesNotPay(4096, 4096));
  EXPECT_FALSE(util::DictionaryDoesNotPay(2, 4));
  EXPECT_FALSE(util::DictionaryDoesNotPay(3071, 4096));
  EXPECT_FALSE(util::DictionaryDoesNotPay(0, 0));  // no value sampled: the writer's default
}

// Columns whose sampled values are mostly distinct are written plain, the others with a
// dictionary page; every value reads back the same either way.
TEST(FileSinkFormatTest, ParquetDictionaryOnlyForColumnsThatRepeat) {
  const int64_t n = 3 * util::kDictionarySampleRows;
  arrow::Int64Builder id, kind, empty, late;
  arrow::StringBuilder name, tag;
  arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"), arrow::default_memory_pool());
  arrow::BooleanBuilder flag;
  arrow::Decimal128Builder amount(arrow::decimal128(12, 2));
  arrow::Date32Builder day;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_OK(amount.Append(arrow::Decimal128(i * 101)));
    ASSERT_OK(day.Append(static_cast<int32_t>(19000 + i % 30)));
    ASSERT_OK(id.Append(i * 7919));
    ASSERT_OK(kind.Append(i % 7));
    ASSERT_OK(empty.AppendNull());
    // Repeats within the sample, distinct after it: decided on the sample, so a dictionary.
    ASSERT_OK(late.Append(i < util::kDictionarySampleRows ? i % 3 : i));
    ASSERT_OK(name.Append("name-" + std::to_string(i)));
    ASSERT_OK(tag.Append(i % 3 == 0 ? "red" : "blue"));
    ASSERT_OK(ts.Append(1718000000000000 + i * 1000));
    ASSERT_OK(flag.Append(i % 2 == 0));
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("kind", arrow::int64()),
                               arrow::field("empty", arrow::int64()), arrow::field("late", arrow::int64()),
                               arrow::field("name", arrow::utf8()), arrow::field("tag", arrow::utf8()),
                               arrow::field("ts", ts.type()), arrow::field("flag", arrow::boolean()),
                               arrow::field("amount", amount.type()), arrow::field("day", arrow::date32())});
  auto rows = arrow::Table::Make(schema, {*id.Finish(), *kind.Finish(), *empty.Finish(), *late.Finish(),
                                          *name.Finish(), *tag.Finish(), *ts.Finish(), *flag.Finish(),
                                          *amount.Finish(), *day.Finish()});
  TempDir tmp;
  ASSERT_OK(WriteFilesOnce(io::LocalFileSystem(), "parquet", {}, "error", tmp.path() + "/p", rows));
  auto files = DataFiles(tmp.path() + "/p");
  ASSERT_EQ(files.size(), 1u);
  auto file = parquet::ParquetFileReader::OpenFile(files[0]);
  auto group = file->metadata()->RowGroup(0);
  std::map<std::string, bool> dictionary;
  for (int c = 0; c < group->num_columns(); ++c) {
    dictionary[group->ColumnChunk(c)->path_in_schema()->ToDotString()] = group->ColumnChunk(c)->has_dictionary_page();
  }
  const std::map<std::string, bool> expected = {{"id", false}, {"kind", true}, {"empty", true}, {"late", true},
                                                {"name", false}, {"tag", true}, {"ts", false}, {"flag", false},
                                                {"amount", false}, {"day", true}};
  EXPECT_EQ(dictionary, expected);
  auto reader = *parquet::arrow::OpenFile(*io::LocalFileSystem()->OpenInputFile(files[0]), arrow::default_memory_pool());
  auto back = *reader->ReadTable();
  EXPECT_TRUE(back->Equals(*rows)) << back->schema()->ToString();
}

// An output stream that keeps what is written, counts the writes and can refuse them.
class RecordingStream : public arrow::io::OutputStream {
 public:
  explicit RecordingStream(bool refuse_writes = false) : refuse_writes_(refuse_writes) {}
  Status Write(const void* data, int64_t nbytes) override {
    if (refuse_writes_) return Status::IOError("disk full");
    ++writes;
    bytes.append(static_cast<const char*>(data), static_cast<size_t>(nbytes));
    return Status::OK();
  }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }
  bool closed() const override { return closed_; }
  Result<int64_t> Tell() const override { return static_cast<int64_t>(bytes.size()); }

  std::string bytes;
  int writes = 0;

 private:
  bool refuse_writes_;
  bool closed_ = false;
};

std::shared_ptr<parquet::WriterProperties> SnappyProperties() {
  return parquet::WriterProperties::Builder().compression(arrow::Compression::SNAPPY)->build();
}

// Column after column through one buffer: a file under the buffer's size reaches its stream in
// one write (the writer alone writes each page header and each page separately), in row groups
// of the size asked, and the stream is left open for its owner to close.
TEST(ParquetWrite, AFileReachesItsStreamThroughOneBufferInRowGroupsOfTheSizeAsked) {
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (int i = 0; i < 40; ++i) parts.push_back(Sample());
  auto rows = *arrow::ConcatenateTables(parts);
  auto out = std::make_shared<RecordingStream>();
  auto footer = util::WriteParquetFile(*rows, SnappyProperties(), parquet::default_arrow_writer_properties(),
                                       /*max_row_group_rows=*/50, out);
  ASSERT_OK(footer);
  EXPECT_FALSE(out->closed());
  EXPECT_EQ(out->writes, 1);
  EXPECT_EQ((*footer)->num_rows(), 120);
  EXPECT_EQ((*footer)->num_row_groups(), 3);
  auto reader = *parquet::arrow::OpenFile(std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(out->bytes)),
                                          arrow::default_memory_pool());
  EXPECT_EQ(reader->num_row_groups(), 3);
  auto back = *reader->ReadTable();
  ASSERT_OK(back->ValidateFull());
  EXPECT_EQ(back->num_rows(), 120);
  EXPECT_TRUE(back->Equals(*rows, arrow::EqualOptions::Defaults().nans_equal(true)));

  // An empty table is a file of one empty row group.
  auto empty_out = std::make_shared<RecordingStream>();
  auto empty = util::WriteParquetFile(*rows->Slice(0, 0), SnappyProperties(), parquet::default_arrow_writer_properties(),
                                      50, empty_out);
  ASSERT_OK(empty);
  EXPECT_EQ((*empty)->num_rows(), 0);
  EXPECT_EQ((*empty)->num_row_groups(), 1);
}

// A failed write, in the writer or in the stream under the buffer, leaves the stream open: a file
// made by OpenNewFile is named by its Close, so closing it here would name a torn file.
TEST(ParquetWrite, AFailedWriteLeavesTheStreamOpenForItsOwnerToGiveUp) {
  auto refusing = std::make_shared<RecordingStream>(/*refuse_writes=*/true);
  auto st = util::WriteParquetFile(*Sample(), SnappyProperties(), parquet::default_arrow_writer_properties(), 50,
                                   refusing);
  EXPECT_THAT(st.status().message(), HasSubstr("disk full"));
  EXPECT_FALSE(refusing->closed());

  // A type Parquet cannot hold fails in the writer, before anything reaches the stream.
  auto unions = arrow::Table::Make(
      arrow::schema({arrow::field("u", arrow::dense_union({arrow::field("i", arrow::int32())}))}),
      {*arrow::MakeArrayOfNull(arrow::dense_union({arrow::field("i", arrow::int32())}), 3)});
  auto out = std::make_shared<RecordingStream>();
  auto failed = util::WriteParquetFile(*unions, SnappyProperties(), parquet::default_arrow_writer_properties(), 50, out);
  EXPECT_FALSE(failed.ok());
  EXPECT_FALSE(out->closed());
}

TEST(FileSinkFormatTest, GzipTextFilesGetSparkExtension) {
  TempDir tmp;
  plan::Options o;
  o.Set("compression", "gzip");
  ASSERT_OK(WriteFilesOnce(io::LocalFileSystem(), "json", o, "error", tmp.path(), Sample()));
  auto files = DataFiles(tmp.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_THAT(files[0], HasSubstr(".c000.json.gz"));
  std::string bytes = *io::LocalFileSystem()->ReadFile(files[0]);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);  // gzip magic
}

TEST(FileSinkWriteOnceTest, ErrorModeRefusesNonEmptyDirectory) {
  TempDir tmp;
  ASSERT_OK(WriteFilesOnce(io::LocalFileSystem(), "json", {}, "error", tmp.path(), Sample()));  // empty dir is fine
  EXPECT_TRUE(fs::exists(tmp.path() + "/_SUCCESS"));
  Status st = WriteFilesOnce(io::LocalFileSystem(), "json", {}, "errorifexists", tmp.path(), Sample());
  EXPECT_TRUE(st.IsAlreadyExists());
  EXPECT_THAT(st.message(), HasSubstr("file://" + io::AbsolutePath(tmp.path()))) << st.ToString();
  EXPECT_EQ(DataFiles(tmp.path()).size(), 1u);
}

TEST(FileSinkWriteOnceTest, OverwriteAppendAndIgnore) {
  TempDir tmp;
  auto fsys = io::LocalFileSystem();
  { std::ofstream(tmp.path() + "/old.txt") << "x"; }
  ASSERT_OK(WriteFilesOnce(fsys, "csv", {}, "overwrite", tmp.path(), Sample()));
  EXPECT_FALSE(fs::exists(tmp.path() + "/old.txt"));
  EXPECT_EQ(DataFiles(tmp.path()).size(), 1u);

  ASSERT_OK(WriteFilesOnce(fsys, "csv", {}, "append", tmp.path(), Sample()));
  EXPECT_EQ(DataFiles(tmp.path()).size(), 2u);

  ASSERT_OK(WriteFilesOnce(fsys, "csv", {}, "ignore", tmp.path(), Sample()));
  EXPECT_EQ(DataFiles(tmp.path()).size(), 2u);

  plan::Options split;
  split.Set("maxRecordsPerFile", "1");
  ASSERT_OK(WriteFilesOnce(fsys, "csv", split, "Overwrite", tmp.path(), Sample()));
  EXPECT_EQ(DataFiles(tmp.path()).size(), 3u);

  EXPECT_FALSE(WriteFilesOnce(fsys, "csv", {}, "upsert", tmp.path(), Sample()).ok());
}

TEST(FileSinkWriteOnceTest, EmptyTableWritesOneFileWithTheSchema) {
  TempDir tmp;
  auto empty = Sample()->Slice(0, 0);
  ASSERT_OK(WriteFilesOnce(io::LocalFileSystem(), "parquet", {}, "error", tmp.path(), empty));
  auto files = DataFiles(tmp.path());
  ASSERT_EQ(files.size(), 1u);
  auto reader = *parquet::arrow::OpenFile(*io::LocalFileSystem()->OpenInputFile(files[0]), arrow::default_memory_pool());
  auto table = *reader->ReadTable();
  EXPECT_EQ(table->num_rows(), 0);
  EXPECT_EQ(table->num_columns(), 6);
}

}  // namespace
}  // namespace sluice::sink
