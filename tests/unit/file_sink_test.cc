// The file sink's commit protocol: exact _spark_metadata bytes, skip on redo, orphan files of
// failed attempts, maxRecordsPerFile, compaction entries, option errors.
#include <arrow/api.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>
#include <arrow/util/thread_pool.h>
#include <parquet/arrow/reader.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/fault_injection.h"
#include "io/file_system.h"
#include "sink/file_sink.h"
#include "checkpoint/file_sink_log.h"
#include "support/rows.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::sink {
namespace {

using ::testing::HasSubstr;

namespace fs = std::filesystem;

using sluice::testing::TempDir;
using checkpoint::FileSinkLog;
using checkpoint::ReadCommittedFiles;
using checkpoint::SinkFileStatus;

std::shared_ptr<arrow::Table> Rows(int64_t first, int64_t n) { return sluice::testing::IdNameRows(first, n); }

SinkSpec Spec(const std::string& format, const std::string& path) {
  SinkSpec spec;
  spec.format = format;
  spec.options.Set("path", path);
  return spec;
}

std::unique_ptr<Sink> MakeSink(const SinkSpec& spec, std::shared_ptr<io::FileSystem> fsys = io::LocalFileSystem()) {
  SinkContext ctx;
  ctx.fs = std::move(fsys);
  auto sink = MakeFileSink(spec, ctx);
  EXPECT_OK(sink);
  return std::move(*sink);
}

std::vector<std::string> PartFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("part-", 0) == 0) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadAll(const std::string& path) { return *io::LocalFileSystem()->ReadFile(path); }

std::vector<std::string> Committed(const std::string& dir) {
  auto r = ReadCommittedFiles(io::LocalFileSystem(), dir);
  EXPECT_OK(r);
  EXPECT_TRUE(r->has_value());
  auto files = **r;
  std::sort(files.begin(), files.end());
  return files;
}

int64_t ParquetRows(const std::string& path) {
  auto in = *io::LocalFileSystem()->OpenInputFile(path);
  auto reader = *parquet::arrow::OpenFile(in, arrow::default_memory_pool());
  return (*reader->ReadTable())->num_rows();
}

TEST(FileSinkTest, LogEntryHasSparkSinkFileStatusLayout) {
  TempDir tmp;
  std::string out = tmp.path() + "/out";
  auto sink = MakeSink(Spec("parquet", out));
  ASSERT_OK(sink->AddBatch(0, Rows(0, 3)));

  auto parts = PartFiles(out);
  ASSERT_EQ(parts.size(), 1u);
  std::string name = fs::path(parts[0]).filename().string();
  EXPECT_THAT(name, ::testing::MatchesRegex(R"(part-00000-[0-9a-f-]{36}\.c000\.snappy\.parquet)"));
  auto info = **io::LocalFileSystem()->Stat(parts[0]);
  std::string expected = "v1\n{\"path\":\"file://" + io::AbsolutePath(parts[0]) + "\",\"size\":" + std::to_string(info.size) +
                         ",\"isDir\":false,\"modificationTime\":" + std::to_string(info.mtime_ms) +
                         ",\"blockReplication\":1,\"blockSize\":33554432,\"action\":\"add\"}";
  EXPECT_EQ(ReadAll(out + "/_spark_metadata/0"), expected);
  EXPECT_EQ(ParquetRows(parts[0]), 3);
  EXPECT_EQ(sink->Description(), "FileSink[file://" + io::AbsolutePath(out) + "]");
  EXPECT_TRUE(sink->idempotent());
}

TEST(FileSinkTest, SeveralFilesAreJoinedByNewlineWithoutTrailingNewline) {
  TempDir tmp;
  auto spec = Spec("json", tmp.path());
  spec.options.Set("maxRecordsPerFile", "2");
  ASSERT_OK(MakeSink(spec)->AddBatch(0, Rows(0, 5)));
  std::string entry = ReadAll(tmp.path() + "/_spark_metadata/0");
  EXPECT_EQ(entry.rfind("v1\n", 0), 0u);
  EXPECT_NE(entry.back(), '\n');
  EXPECT_EQ(std::count(entry.begin(), entry.end(), '\n'), 3);  // version line + 3 files
}

TEST(FileSinkTest, SinkFileStatusJsonIsExact) {
  SinkFileStatus s;
  s.path = "file:///out/part-00000-u.c000.json";
  s.size = 12;
  s.modification_time = 1718000000000;
  EXPECT_EQ(s.ToJson(),
            R"({"path":"file:///out/part-00000-u.c000.json","size":12,"isDir":false,"modificationTime":1718000000000,)"
            R"("blockReplication":1,"blockSize":33554432,"action":"add"})");
  auto back = SinkFileStatus::FromJson(s.ToJson(), "test");
  ASSERT_OK(back);
  EXPECT_EQ(back->ToJson(), s.ToJson());
  EXPECT_FALSE(SinkFileStatus::FromJson("{\"size\":1}", "'x' line 2").ok());
}

TEST(FileSinkTest, RedoneBatchIsNotWrittenTwice) {
  TempDir tmp;
  auto spec = Spec("parquet", tmp.path());
  ASSERT_OK(MakeSink(spec)->AddBatch(0, Rows(0, 3)));
  ASSERT_OK(MakeSink(spec)->AddBatch(1, Rows(3, 3)));
  std::string entry0 = ReadAll(tmp.path() + "/_spark_metadata/0");
  auto before = PartFiles(tmp.path());

  // A restarted query re-runs batch 1 (and, say, 0): nothing is written, no error.
  auto sink = MakeSink(spec);
  ASSERT_OK(sink->AddBatch(1, Rows(100, 7)));
  ASSERT_OK(sink->AddBatch(0, Rows(100, 7)));
  EXPECT_EQ(PartFiles(tmp.path()), before);
  EXPECT_EQ(ReadAll(tmp.path() + "/_spark_metadata/0"), entry0);
  EXPECT_FALSE(fs::exists(tmp.path() + "/_spark_metadata/2"));
  EXPECT_EQ(Committed(tmp.path()), before);
}

TEST(FileSinkTest, OrphanOfFailedAttemptIsNeverListedAndDeletedByNextAttempt) {
  TempDir tmp;
  auto spec = Spec("parquet", tmp.path());
  ASSERT_OK(MakeSink(spec)->AddBatch(0, Rows(0, 3)));
  auto committed0 = PartFiles(tmp.path());

  io::FaultSpec fault = *io::FaultSpec::Parse("write=_spark_metadata,action=fail");
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), fault);
  auto sink = MakeSink(spec, faulty);
  Status st = sink->AddBatch(1, Rows(3, 3));
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(faulty->triggered());
  EXPECT_EQ(PartFiles(tmp.path()).size(), 2u);  // batch 1's data file stays behind, unlisted
  EXPECT_EQ(Committed(tmp.path()), committed0);
  EXPECT_FALSE(fs::exists(tmp.path() + "/_spark_metadata/1"));

  // The same sink retries (the fault fired once): it deletes the orphan, then commits.
  ASSERT_OK(sink->AddBatch(1, Rows(3, 3)));
  auto parts = PartFiles(tmp.path());
  EXPECT_EQ(parts.size(), 2u);
  EXPECT_EQ(Committed(tmp.path()), parts);
}

TEST(FileSinkTest, RestartedSinkDeletesOrphansBeforeWriting) {
  TempDir tmp;
  auto spec = Spec("csv", tmp.path());
  ASSERT_OK(MakeSink(spec)->AddBatch(0, Rows(0, 2)));
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(
      io::LocalFileSystem(), *io::FaultSpec::Parse("write=_spark_metadata,action=fail"));
  ASSERT_FALSE(MakeSink(spec, faulty)->AddBatch(1, Rows(2, 2)).ok());
  // Also a torn temp file of batch 1, as a crash mid-write leaves it.
  const std::string torn = tmp.path() + "/.part-00000-" + FileSinkBatchUuid("", 1) + ".c001.csv.tmp";
  { std::ofstream(torn) << "1,"; }
  ASSERT_EQ(PartFiles(tmp.path()).size(), 2u);

  ASSERT_OK(MakeSink(spec)->AddBatch(1, Rows(2, 2)));
  auto parts = PartFiles(tmp.path());
  EXPECT_EQ(parts.size(), 2u);
  EXPECT_EQ(Committed(tmp.path()), parts);
  EXPECT_FALSE(fs::exists(torn));
}

TEST(FileSinkTest, UnlistedFilesOfOtherBatchesOrWritersAreLeftAlone) {
  TempDir tmp;
  auto spec = Spec("json", tmp.path());
  ASSERT_OK(MakeSink(spec)->AddBatch(0, Rows(0, 2)));
  // Not provably a leftover of batch 1: someone else's file, and a file of another query.
  const std::string stray = tmp.path() + "/part-00000-stray.c000.json";
  const std::string other = tmp.path() + "/part-00000-" + FileSinkBatchUuid("other-query", 1) + ".c000.json";
  { std::ofstream(stray) << "{\"id\":99}\n"; }
  { std::ofstream(other) << "{\"id\":98}\n"; }
  ASSERT_OK(MakeSink(spec)->AddBatch(1, Rows(2, 2)));
  EXPECT_TRUE(fs::exists(stray));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(Committed(tmp.path()).size(), 2u);
}

TEST(FileSinkTest, BatchUuidIsStablePerBatchAndQuery) {
  EXPECT_EQ(FileSinkBatchUuid("q", 3), FileSinkBatchUuid("q", 3));
  EXPECT_NE(FileSinkBatchUuid("q", 3), FileSinkBatchUuid("q", 4));
  EXPECT_NE(FileSinkBatchUuid("q", 3), FileSinkBatchUuid("r", 3));
  EXPECT_EQ(FileSinkBatchUuid("q", 3).size(), 36u);
}

// Deleting a _spark_metadata entry must never make the restart delete committed data.
class FileSinkLogGapTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FileSinkLogGapTest, MissingEntryIsRefusedNamingItAndNothingIsDeleted) {
  TempDir tmp;
  auto spec = Spec("parquet", tmp.path());
  {
    auto sink = MakeSink(spec);
    for (int64_t b = 0; b < 13; ++b) ASSERT_OK(sink->AddBatch(b, Rows(b * 10, 10)));
  }
  const auto parts = PartFiles(tmp.path());
  ASSERT_EQ(parts.size(), 13u);
  const std::string missing = GetParam();
  ASSERT_TRUE(fs::remove(tmp.path() + "/_spark_metadata/" + missing));

  // The query restarts at batch 13 (its commit log has 12).
  Status st = MakeSink(spec)->AddBatch(13, Rows(130, 10));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("missing entry " + missing));
  EXPECT_EQ(PartFiles(tmp.path()), parts);
  EXPECT_FALSE(fs::exists(tmp.path() + "/_spark_metadata/13"));
  // Readers refuse too, instead of showing a table without the missing batches (a deleted
  // latest entry leaves a log without a gap: only the writer, at batch 13, can tell).
  auto read = ReadCommittedFiles(io::LocalFileSystem(), tmp.path());
  EXPECT_EQ(read.ok(), missing == "12");
}

INSTANTIATE_TEST_SUITE_P(Entries, FileSinkLogGapTest, ::testing::Values("12", "11", "9.compact"));

TEST(FileSinkTest, GapBeforeFirstCompactionIsRefused) {
  TempDir tmp;
  auto sink = MakeSink(Spec("csv", tmp.path()));
  for (int64_t b = 0; b < 4; ++b) ASSERT_OK(sink->AddBatch(b, Rows(b, 1)));
  ASSERT_TRUE(fs::remove(tmp.path() + "/_spark_metadata/0"));
  auto files = FileSinkLog(io::LocalFileSystem(), tmp.path()).AllFiles();
  ASSERT_FALSE(files.ok());
  EXPECT_THAT(files.status().message(), HasSubstr("missing entry 0 "));
}

TEST(FileSinkTest, ReadCommittedFilesIgnoresUnlistedFiles) {
  TempDir tmp;
  auto none = ReadCommittedFiles(io::LocalFileSystem(), tmp.path());
  ASSERT_OK(none);
  EXPECT_FALSE(none->has_value());  // no log: callers list the directory themselves

  ASSERT_OK(MakeSink(Spec("json", tmp.path()))->AddBatch(0, Rows(0, 2)));
  auto listed = PartFiles(tmp.path());
  { std::ofstream(tmp.path() + "/part-00000-stray.c000.json") << "{\"id\":99}\n"; }
  EXPECT_EQ(Committed(tmp.path()), listed);
}

TEST(FileSinkTest, EmptyBatchWritesLogEntryButNoDataFile) {
  TempDir tmp;
  auto sink = MakeSink(Spec("parquet", tmp.path()));
  ASSERT_OK(sink->AddBatch(0, Rows(0, 0)));
  EXPECT_TRUE(PartFiles(tmp.path()).empty());
  auto log = FileSinkLog(io::LocalFileSystem(), tmp.path());
  EXPECT_EQ(**log.LatestBatchId(), 0);
  EXPECT_TRUE(log.AllFiles()->empty());
  EXPECT_TRUE(Committed(tmp.path()).empty());
}

TEST(FileSinkTest, MaxRecordsPerFileSplitsABatch) {
  TempDir tmp;
  auto spec = Spec("parquet", tmp.path());
  spec.options.Set("MAXRECORDSPERFILE", "3");  // option names are case-insensitive
  ASSERT_OK(MakeSink(spec)->AddBatch(0, Rows(0, 10)));
  auto parts = PartFiles(tmp.path());
  ASSERT_EQ(parts.size(), 4u);
  std::string uuid = fs::path(parts[0]).filename().string().substr(11, 36);
  std::vector<int64_t> counts;
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string name = fs::path(parts[i]).filename().string();
    EXPECT_EQ(name, "part-00000-" + uuid + ".c00" + std::to_string(i) + ".snappy.parquet");
    counts.push_back(ParquetRows(parts[i]));
  }
  EXPECT_EQ(counts, (std::vector<int64_t>{3, 3, 3, 1}));
  EXPECT_EQ(Committed(tmp.path()), parts);
}

// A batch of at least 2 x 65,536 rows (and no maxRecordsPerFile) is encoded as one part file
// per core of the CPU pool, at most one per 65,536 rows: task numbers 0, 1, ... in row order,
// written in parallel. A failed write of any of them leaves none of them behind, and no listed
// file.
TEST(FileSinkTest, ALargeBatchIsWrittenAsOnePartFilePerCoreInRowOrder) {
  TempDir tmp;
  auto spec = Spec("parquet", tmp.path());
  constexpr int64_t kRows = 200'000;
  const size_t tasks = std::min<size_t>(3, static_cast<size_t>(std::max(1, arrow::internal::GetCpuThreadPool()->GetCapacity())));
  if (tasks > 1) {
    io::FaultSpec fault = *io::FaultSpec::Parse("write=part-00001,action=fail");
    auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), fault);
    ASSERT_FALSE(MakeSink(spec, faulty)->AddBatch(0, Rows(0, kRows)).ok());
    EXPECT_TRUE(faulty->triggered());
    EXPECT_FALSE(fs::exists(tmp.path() + "/_spark_metadata/0"));
    // The other files, written in parallel with the failed one, are deleted with it.
    for (const auto& e : fs::directory_iterator(tmp.path())) {
      EXPECT_EQ(e.path().filename().string().find("part-"), std::string::npos) << e.path();
    }
  }
  ASSERT_OK(MakeSink(spec)->AddBatch(0, Rows(0, kRows)));
  auto parts = PartFiles(tmp.path());
  ASSERT_EQ(parts.size(), tasks);
  EXPECT_EQ(Committed(tmp.path()), parts);
  std::string uuid = fs::path(parts[0]).filename().string().substr(11, 36);
  int64_t next_id = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_EQ(fs::path(parts[i]).filename().string(), "part-0000" + std::to_string(i) + "-" + uuid + ".c000.snappy.parquet");
    auto in = *io::LocalFileSystem()->OpenInputFile(parts[i]);
    auto reader = *parquet::arrow::OpenFile(in, arrow::default_memory_pool());
    auto table = *(*reader->ReadTable())->CombineChunks();
    EXPECT_GE(table->num_rows(), kRows / static_cast<int64_t>(tasks + 1));
    auto ids = std::static_pointer_cast<arrow::Int64Array>(table->GetColumnByName("id")->chunk(0));
    for (int64_t r = 0; r < ids->length(); ++r, ++next_id) ASSERT_EQ(ids->Value(r), next_id) << parts[i];
  }
  EXPECT_EQ(next_id, kRows);
}

TEST(FileSinkTest, EveryTenthBatchIsACompactionEntry) {
  TempDir tmp;
  auto sink = MakeSink(Spec("json", tmp.path()));
  for (int b = 0; b <= 10; ++b) ASSERT_OK(sink->AddBatch(b, Rows(b, 1)));
  sink.reset();  // old entries are purged in the background; a sink's end waits for it
  EXPECT_TRUE(fs::exists(tmp.path() + "/_spark_metadata/9.compact"));
  EXPECT_FALSE(fs::exists(tmp.path() + "/_spark_metadata/9"));
  EXPECT_TRUE(fs::exists(tmp.path() + "/_spark_metadata/10"));
  EXPECT_FALSE(fs::exists(tmp.path() + "/_spark_metadata/0"));  // purged: the compaction holds them
  EXPECT_FALSE(fs::exists(tmp.path() + "/_spark_metadata/8"));
  std::string compact = ReadAll(tmp.path() + "/_spark_metadata/9.compact");
  EXPECT_EQ(std::count(compact.begin(), compact.end(), '\n'), 10);  // v1 + 10 files
  EXPECT_EQ(Committed(tmp.path()), PartFiles(tmp.path()));
  EXPECT_EQ(Committed(tmp.path()).size(), 11u);
  // Redo detection sees the compaction entry as batch 9.
  ASSERT_OK(MakeSink(Spec("json", tmp.path()))->AddBatch(9, Rows(0, 1)));
  EXPECT_EQ(PartFiles(tmp.path()).size(), 11u);
}

TEST(FileSinkTest, ReaderStartsAtLatestCompactionAndAppliesDeletes) {
  TempDir tmp;
  std::string log = tmp.path() + "/_spark_metadata";
  fs::create_directories(log);
  auto line = [](const std::string& p, const std::string& action) {
    SinkFileStatus s;
    s.path = "file://" + p;
    s.action = action;
    return s.ToJson();
  };
  { std::ofstream(log + "/8") << "v1\n" << line("/old/ignored", "add"); }
  { std::ofstream(log + "/9.compact") << "v1\n" << line("/o/a", "add") << "\n" << line("/o/b", "add"); }
  { std::ofstream(log + "/10") << "v1\n" << line("/o/c", "add") << "\n" << line("/o/a", "delete"); }
  { std::ofstream(log + "/.10.tmp") << "garbage"; }
  EXPECT_EQ(Committed(tmp.path()), (std::vector<std::string>{"/o/b", "/o/c"}));

  { std::ofstream(log + "/11") << "v2\n"; }
  auto r = ReadCommittedFiles(io::LocalFileSystem(), tmp.path());
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("_spark_metadata/11")) << r.status().ToString();
}

// Spark's `retention`: a compaction entry leaves out the files committed longer ago than the
// TTL (their modificationTime), whether the writer read the log first (the first compaction)
// or extends the file set it keeps (later ones); the sink takes it as an option.
TEST(FileSinkTest, RetentionLeavesOldFilesOutOfCompactions) {
  TempDir tmp;
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch()).count();
  const int64_t hour = 3600 * 1000;
  auto file = [&](const std::string& dir, int b, int64_t age) {
    SinkFileStatus f;
    f.path = "file://" + dir + "/part-" + std::to_string(100 + b);
    f.modification_time = now - age;
    return f;
  };
  auto paths = [&](const std::string& dir, const std::vector<int>& batches) {
    std::vector<std::string> out;
    for (int b : batches) out.push_back(dir + "/part-" + std::to_string(100 + b));
    return out;
  };
  FileSinkLog log(io::LocalFileSystem(), tmp.path());
  log.SetRetention(hour);
  ASSERT_OK(log.Create());
  for (int b = 0; b < 10; ++b) ASSERT_OK(log.Add(b, {file(tmp.path(), b, b % 2 == 0 ? 2 * hour : 0)}));
  EXPECT_EQ(Committed(tmp.path()), paths(tmp.path(), {1, 3, 5, 7, 9}));
  for (int b = 10; b < 20; ++b) ASSERT_OK(log.Add(b, {file(tmp.path(), b, b < 15 ? 2 * hour : 0)}));
  EXPECT_EQ(Committed(tmp.path()), paths(tmp.path(), {1, 3, 5, 7, 9, 15, 16, 17, 18, 19}));
  // Before the compaction, old files are still listed; without retention they stay listed.
  FileSinkLog keep(io::LocalFileSystem(), tmp.path() + "/keep");
  ASSERT_OK(keep.Create());
  for (int b = 0; b < 10; ++b) ASSERT_OK(keep.Add(b, {file(tmp.path() + "/keep", b, 2 * hour)}));
  EXPECT_EQ(Committed(tmp.path() + "/keep").size(), 10u);

  // The sink's option: entries 0..8 are two hours old; the sink's batch 9 compacts them away.
  const std::string out = tmp.path() + "/out";
  FileSinkLog old(io::LocalFileSystem(), out);
  ASSERT_OK(io::LocalFileSystem()->MakeDirs(out));
  ASSERT_OK(old.Create());
  for (int b = 0; b < 9; ++b) ASSERT_OK(old.Add(b, {file(out, b, 2 * hour)}));
  auto spec = Spec("json", out);
  spec.options.Set("retention", "1h");
  ASSERT_OK(MakeSink(spec)->AddBatch(9, Rows(9, 1)));
  EXPECT_EQ(Committed(out), PartFiles(out));
  EXPECT_EQ(PartFiles(out).size(), 1u);

  auto bad = Spec("json", out);
  bad.options.Set("retention", "soon");
  EXPECT_THAT(ValidateFileSinkSpec(bad).message(), HasSubstr("'retention'"));
  bad.options.Set("retention", "0");
  EXPECT_THAT(ValidateFileSinkSpec(bad).message(), HasSubstr("positive"));
}

TEST(FileSinkTest, OutputOfAnotherQueryIsRefused) {
  TempDir tmp;
  auto spec = Spec("parquet", tmp.path() + "/out");
  SinkContext q1{io::LocalFileSystem(), "q1", nullptr, nullptr, 0, ""};
  auto sink = MakeFileSink(spec, q1);
  ASSERT_OK(sink);
  EXPECT_EQ(ReadAll(tmp.path() + "/out/_sluice_query"), "v1\n{\"queryId\":\"q1\"}");
  ASSERT_OK((*sink)->AddBatch(0, Rows(0, 2)));
  EXPECT_OK(MakeFileSink(spec, q1));  // the same query, restarted

  // The same query with a new checkpoint gets a new id and would skip batch 0 as committed.
  auto other = MakeFileSink(spec, SinkContext{io::LocalFileSystem(), "q2", nullptr, nullptr, 0, ""});
  ASSERT_FALSE(other.ok());
  EXPECT_THAT(other.status().message(), HasSubstr("was written by query q1 (batches up to 0)"))
      << other.status().ToString();

  // A log without an owner (an older or foreign writer) is refused too.
  auto foreign = Spec("parquet", tmp.path() + "/foreign");
  ASSERT_OK(MakeSink(foreign)->AddBatch(0, Rows(0, 1)));
  auto unknown = MakeFileSink(foreign, SinkContext{io::LocalFileSystem(), "q3", nullptr, nullptr, 0, ""});
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("was written by query <unknown"));
}

TEST(FileSinkTest, OptionErrorsNameTheOption) {
  SinkSpec no_path;
  no_path.format = "parquet";
  Status st = ValidateFileSinkSpec(no_path);
  EXPECT_EQ(st.message(), "option 'path' is required for the parquet sink");

  auto unknown = Spec("json", "/tmp/x");
  unknown.options.Set("headr", "true");
  st = ValidateFileSinkSpec(unknown);
  EXPECT_THAT(st.message(), HasSubstr("'headr'")) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("maxRecordsPerFile")) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("ignoreNullFields")) << st.ToString();

  auto bad_max = Spec("csv", "/tmp/x");
  bad_max.options.Set("maxRecordsPerFile", "-1");
  EXPECT_THAT(ValidateFileSinkSpec(bad_max).message(), HasSubstr("'maxRecordsPerFile'"));

  auto bad_codec = Spec("parquet", "/tmp/x");
  bad_codec.options.Set("compression", "zip");
  EXPECT_THAT(ValidateFileSinkSpec(bad_codec).message(), HasSubstr("'zip'"));

  auto bad_header = Spec("csv", "/tmp/x");
  bad_header.options.Set("header", "yes");
  EXPECT_THAT(ValidateFileSinkSpec(bad_header).message(), HasSubstr("'header'"));

  auto bad_sep = Spec("csv", "/tmp/x");
  bad_sep.options.Set("sep", ";;");
  EXPECT_THAT(ValidateFileSinkSpec(bad_sep).message(), HasSubstr("'sep'"));

  EXPECT_FALSE(ValidateFileSinkSpec(Spec("orc", "/tmp/x")).ok());
  auto complete = Spec("parquet", "/tmp/x");
  complete.output_mode = plan::OutputMode::kComplete;
  EXPECT_THAT(ValidateFileSinkSpec(complete).message(), HasSubstr("complete output mode"));

  auto ok = Spec("CSV", "/tmp/x");
  ok.options.Set("Header", "TRUE");
  ok.options.Set("sep", "\\t");
  ok.options.Set("checkpointLocation", "/tmp/ck");
  EXPECT_OK(ValidateFileSinkSpec(ok));
}

}  // namespace
}  // namespace sluice::sink
