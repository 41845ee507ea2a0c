// The Iceberg sink at the sink level: one snapshot per batch with the streaming summary keys,
// redone batches skipped, complete mode overwrites, schema refusal, cleanup of a failed batch.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "iceberg/catalog.h"
#include "iceberg/maintenance.h"
#include "iceberg/table_ops.h"
#include "io/fault_injection.h"
#include "sink/iceberg_sink.h"
#include "support/rows.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::sink {
namespace {

using ::testing::HasSubstr;

using sluice::testing::TempDir;

std::shared_ptr<arrow::Table> Rows(int64_t first, int64_t n) { return sluice::testing::IdNameRows(first, n); }

SinkSpec Spec(const TempDir& dir, const std::string& mode = "append") {
  SinkSpec spec;
  spec.format = "iceberg";
  spec.output_mode = plan::ParseOutputMode(mode).ValueOrDie();
  spec.options.Set("table", "lake.db.events");
  spec.options.Set("catalog.type", "sql");
  spec.options.Set("catalog.uri", "sqlite:///" + dir.Sub("catalog.db"));
  spec.options.Set("catalog.warehouse", dir.Sub("wh"));
  return spec;
}

std::unique_ptr<Sink> Make(const SinkSpec& spec, const std::string& query_id,
                           std::shared_ptr<io::FileSystem> fs = io::LocalFileSystem()) {
  SinkContext ctx;
  ctx.fs = std::move(fs);
  ctx.query_id = query_id;
  auto sink = MakeIcebergSink(spec, ctx);
  EXPECT_OK(sink);
  return std::move(*sink);
}

iceberg::LoadedTable Load(const TempDir& dir) {
  auto catalog = *iceberg::MakeCatalog(
      "lake", {{"type", "sql"}, {"uri", "sqlite:///" + dir.Sub("catalog.db")}, {"warehouse", dir.Sub("wh")}},
      io::LocalFileSystem());
  auto t = iceberg::LoadExisting(catalog.get(), {{"db"}, "events"});
  EXPECT_OK(t);
  return *t;
}

int64_t RowCount(const TempDir& dir) {
  auto rows = iceberg::ReadCurrentSnapshot(io::LocalFileSystem().get(), Load(dir).metadata);
  EXPECT_OK(rows);
  return (*rows)->num_rows();
}

size_t DataFileCount(const TempDir& dir) {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.Sub("wh/db.db/events/data"))) {
    n += e.path().extension() == ".parquet";
  }
  return n;
}

TEST(IcebergSink, EachBatchIsOneAppendSnapshotTaggedWithQueryAndEpoch) {
  TempDir dir;
  auto sink = Make(Spec(dir), "q-1");
  EXPECT_EQ(sink->Description(), "IcebergSink[lake.db.events]");
  ASSERT_OK(sink->AddBatch(0, Rows(0, 5)));
  ASSERT_OK(sink->AddBatch(1, Rows(5, 5)));
  auto table = Load(dir);
  ASSERT_EQ(table.metadata.snapshots.size(), 2u);
  const auto& s = table.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(s.at("operation"), "append");
  EXPECT_EQ(s.at(kQueryIdSummaryKey), "q-1");
  EXPECT_EQ(s.at(kEpochIdSummaryKey), "1");
  EXPECT_EQ(s.at("added-records"), "5");
  EXPECT_EQ(s.at("total-records"), "10");
  EXPECT_EQ(RowCount(dir), 10);
}

TEST(IcebergSink, RedoneBatchIsNotCommittedTwice) {
  TempDir dir;
  ASSERT_OK(Make(Spec(dir), "q-1")->AddBatch(0, Rows(0, 5)));
  auto restarted = Make(Spec(dir), "q-1");  // a new sink object, as after a restart
  ASSERT_OK(restarted->AddBatch(0, Rows(0, 5)));
  ASSERT_OK(restarted->AddBatch(1, Rows(5, 5)));
  ASSERT_OK(restarted->AddBatch(1, Rows(5, 5)));
  EXPECT_EQ(Load(dir).metadata.snapshots.size(), 2u);
  EXPECT_EQ(RowCount(dir), 10);
  EXPECT_EQ(DataFileCount(dir), 2u);  // a skipped batch writes no data file
  // Another query's batch 0 (allowed to share the table) is its own.
  auto shared = Spec(dir);
  shared.options.Set("allowOtherQueries", "true");
  ASSERT_OK(Make(shared, "q-2")->AddBatch(0, Rows(100, 1)));
  EXPECT_EQ(RowCount(dir), 11);
}

TEST(IcebergSink, AnotherQueryIsRefusedNamingTheWriterAndItsCheckpointUnlessAllowed) {
  TempDir dir;
  SinkContext first{io::LocalFileSystem(), "q-1", nullptr, nullptr, 0, dir.Sub("ckpt/one")};
  auto sink = MakeIcebergSink(Spec(dir), first);
  ASSERT_OK(sink);
  ASSERT_OK((*sink)->AddBatch(0, Rows(0, 5)));
  EXPECT_EQ(Load(dir).metadata.CurrentSnapshot()->summary.at(kCheckpointSummaryKey), dir.Sub("ckpt/one"));

  // A second checkpoint on the same source would write every row again.
  SinkContext second{io::LocalFileSystem(), "q-2", nullptr, nullptr, 0, dir.Sub("ckpt/two")};
  auto refused = MakeIcebergSink(Spec(dir), second);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("written by streaming query q-1 (checkpoint " + dir.Sub("ckpt/one")));
  EXPECT_THAT(refused.status().message(), HasSubstr("not by this query q-2 (checkpoint " + dir.Sub("ckpt/two") + ")"));
  EXPECT_THAT(refused.status().message(), HasSubstr("allowOtherQueries"));
  EXPECT_EQ(RowCount(dir), 5);

  // On purpose: appends, and from then on the table counts as written by q-2 as well.
  auto spec = Spec(dir);
  spec.options.Set("allowOtherQueries", "true");
  auto allowed = MakeIcebergSink(spec, second);
  ASSERT_OK(allowed);
  ASSERT_OK((*allowed)->AddBatch(0, Rows(5, 5)));
  EXPECT_EQ(RowCount(dir), 10);
  EXPECT_OK(MakeIcebergSink(Spec(dir), second));
  // The first query's restart is still its own table.
  EXPECT_OK(MakeIcebergSink(Spec(dir), first));
}

TEST(IcebergSink, CompleteModeReplacesTheRowsWithAnOverwriteSnapshot) {
  TempDir dir;
  auto sink = Make(Spec(dir, "complete"), "q-1");
  ASSERT_OK(sink->AddBatch(0, Rows(0, 3)));
  ASSERT_OK(sink->AddBatch(1, Rows(10, 2)));
  ASSERT_OK(sink->AddBatch(1, Rows(10, 2)));  // redo
  auto table = Load(dir);
  ASSERT_EQ(table.metadata.snapshots.size(), 2u);
  const auto& s = table.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(s.at("operation"), "overwrite");
  EXPECT_EQ(s.at("deleted-records"), "3");
  EXPECT_EQ(s.at("total-records"), "2");
  EXPECT_EQ(RowCount(dir), 2);
}

TEST(IcebergSink, MismatchingTableIsRefusedAtStartNamingTheColumn) {
  TempDir dir;
  auto spec = Spec(dir);
  auto no_conf = [](const std::string&) { return std::string(); };
  // A missing table is left to the query's start (after its checkpoint is checked).
  ASSERT_OK(PrepareIcebergSinkSpec(&spec, no_conf, *Rows(0, 1)->schema(), io::LocalFileSystem()));
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("wh/db.db/events")));
  SinkContext ctx{io::LocalFileSystem(), "q-1", nullptr, nullptr, 0, dir.Sub("ckpt")};
  ctx.query_schema = Rows(0, 1)->schema();
  ASSERT_OK(MakeIcebergSink(spec, ctx).status());
  EXPECT_EQ(Load(dir).metadata.snapshots.size(), 0u);  // created, empty
  auto other = arrow::schema({arrow::field("id", arrow::utf8()), arrow::field("name", arrow::utf8())});
  Status st = PrepareIcebergSinkSpec(&spec, no_conf, *other, io::LocalFileSystem());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("column 'id' is string in the query but long"));
  EXPECT_THAT(st.message(), HasSubstr("lake.db.events"));
}

// Rows of (id, name, score): the two original columns plus one the table does not have yet.
std::shared_ptr<arrow::Table> WideRows(int64_t first, int64_t n) {
  auto narrow = Rows(first, n);
  arrow::DoubleBuilder scores;
  for (int64_t i = first; i < first + n; ++i) EXPECT_OK(scores.Append(i * 0.5));
  auto schema = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("name", arrow::utf8()),
                               arrow::field("score", arrow::float64(), /*nullable=*/false)});
  return arrow::Table::Make(schema, {narrow->column(0), narrow->column(1),
                                     std::make_shared<arrow::ChunkedArray>(*scores.Finish())});
}

TEST(IcebergSink, NewQueryColumnsAreRefusedWithoutMergeSchemaNamingTheColumnAndTheOption) {
  TempDir dir;
  ASSERT_OK(Make(Spec(dir), "q-1")->AddBatch(0, Rows(0, 3)));
  auto spec = Spec(dir);
  auto no_conf = [](const std::string&) { return std::string(); };
  Status st = PrepareIcebergSinkSpec(&spec, no_conf, *WideRows(0, 1)->schema(), io::LocalFileSystem());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("column 'score' of the query is not in the table"));
  EXPECT_THAT(st.message(), HasSubstr("mergeSchema = true"));
  spec.options.Set("mergeSchema", "false");
  EXPECT_FALSE(PrepareIcebergSinkSpec(&spec, no_conf, *WideRows(0, 1)->schema(), io::LocalFileSystem()).ok());
  EXPECT_EQ(Load(dir).metadata.schemas.size(), 1u);
  spec.options.Set("mergeSchema", "yes");
  EXPECT_THAT(ValidateIcebergSinkSpec(spec).message(), HasSubstr("option mergeSchema"));
}

TEST(IcebergSink, MergeSchemaAddsNullableColumnsAndOlderRowsReadThemAsNull) {
  TempDir dir;
  ASSERT_OK(Make(Spec(dir), "q-1")->AddBatch(0, Rows(0, 3)));
  auto spec = Spec(dir);
  spec.options.Set("mergeSchema", "true");
  auto no_conf = [](const std::string&) { return std::string(); };
  Status st = PrepareIcebergSinkSpec(&spec, no_conf, *WideRows(0, 1)->schema(), io::LocalFileSystem());
  ASSERT_OK(st);
  {
    auto md = Load(dir).metadata;
    ASSERT_EQ(md.schemas.size(), 2u);
    EXPECT_EQ(md.current_schema_id, 1);
    EXPECT_EQ(md.last_column_id, 3);
    EXPECT_EQ(md.metadata_log.size(), 2u);  // create, append, schema change
    const auto& fields = md.CurrentSchema()->fields;
    ASSERT_EQ(fields.size(), 3u);
    EXPECT_EQ(fields[2].id, 3);
    EXPECT_EQ(fields[2].name, "score");
    EXPECT_EQ(fields[2].type, "double");
    EXPECT_FALSE(fields[2].required);  // nullable although the query's column is not
    EXPECT_EQ(md.schemas[0].fields.size(), 2u);  // the old schema is kept
  }
  // Preparing again (a restart) adds nothing.
  ASSERT_OK(PrepareIcebergSinkSpec(&spec, no_conf, *WideRows(0, 1)->schema(), io::LocalFileSystem()));
  EXPECT_EQ(Load(dir).metadata.schemas.size(), 2u);

  ASSERT_OK(Make(spec, "q-1")->AddBatch(1, WideRows(3, 2)));
  auto md = Load(dir).metadata;
  EXPECT_EQ(md.CurrentSnapshot()->schema_id, std::optional<int>(1));
  auto rows = iceberg::ReadCurrentSnapshot(io::LocalFileSystem().get(), md);
  ASSERT_OK(rows);
  ASSERT_EQ((*rows)->num_rows(), 5);
  auto ids = (*rows)->GetColumnByName("id");
  auto scores = (*rows)->GetColumnByName("score");
  ASSERT_TRUE(scores);
  for (int64_t r = 0; r < 5; ++r) {
    auto id = std::static_pointer_cast<arrow::Int64Scalar>(*ids->GetScalar(r))->value;
    auto score = *scores->GetScalar(r);
    if (id < 3) {
      EXPECT_FALSE(score->is_valid) << "id " << id;
    } else {
      ASSERT_TRUE(score->is_valid) << "id " << id;
      EXPECT_EQ(std::static_pointer_cast<arrow::DoubleScalar>(score)->value, id * 0.5);
    }
  }
  // The old writer (two columns) now lacks 'score', which is nullable: still refused (a dropped
  // column), as before the evolution.
  auto narrow_spec = Spec(dir);
  st = PrepareIcebergSinkSpec(&narrow_spec, no_conf, *Rows(0, 1)->schema(), io::LocalFileSystem());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("table column 'score' is missing"));
}

TEST(IcebergSink, MergeSchemaStillRefusesTypeChangesAndDroppedColumnsWithoutCommitting) {
  TempDir dir;
  ASSERT_OK(Make(Spec(dir), "q-1")->AddBatch(0, Rows(0, 3)));
  auto spec = Spec(dir);
  spec.options.Set("merge-schema", "true");
  auto no_conf = [](const std::string&) { return std::string(); };
  auto retyped = arrow::schema({arrow::field("id", arrow::utf8()), arrow::field("name", arrow::utf8()),
                                arrow::field("extra", arrow::int32())});
  Status st = PrepareIcebergSinkSpec(&spec, no_conf, *retyped, io::LocalFileSystem());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("column 'id' is string in the query but long"));
  EXPECT_THAT(st.message(), HasSubstr("lake.db.events"));
  auto dropped = arrow::schema({arrow::field("id", arrow::int64()), arrow::field("extra", arrow::int32())});
  st = PrepareIcebergSinkSpec(&spec, no_conf, *dropped, io::LocalFileSystem());
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("table column 'name' is missing"));
  auto md = Load(dir).metadata;
  EXPECT_EQ(md.schemas.size(), 1u);  // nothing committed
  EXPECT_EQ(md.last_column_id, 2);
}

TEST(IcebergSink, UnsupportedModesAndOptionsAreRefused) {
  TempDir dir;
  auto spec = Spec(dir, "update");
  EXPECT_THAT(ValidateIcebergSinkSpec(spec).message(), HasSubstr("does not support update"));
  spec = Spec(dir);
  spec.options.Set("tabel", "x");
  EXPECT_THAT(ValidateIcebergSinkSpec(spec).message(), HasSubstr("tabel"));
}

TEST(IcebergSink, AFailedBatchLeavesNoDataFilesAndTheRetryCommits) {
  TempDir dir;
  io::FaultSpec fault;
  fault.point = "iceberg_after_manifests";
  fault.action = io::FaultSpec::Action::kFail;
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(), fault);
  auto sink = Make(Spec(dir), "q-1", faulty);
  EXPECT_FALSE(sink->AddBatch(0, Rows(0, 5)).ok());
  EXPECT_EQ(DataFileCount(dir), 0u);
  EXPECT_EQ(Load(dir).metadata.snapshots.size(), 0u);
  ASSERT_OK(sink->AddBatch(0, Rows(0, 5)));  // the fault fires once
  EXPECT_EQ(RowCount(dir), 5);
}

// A data file is named only once it is whole and synced: a write that fails (here its first
// write) leaves no file in the data directory, not even a hidden one, and the retry commits.
TEST(IcebergSink, AFailedDataFileWriteLeavesNoFileAtAllAndTheRetryCommits) {
  TempDir dir;
  auto faulty = std::make_shared<io::FaultInjectingFileSystem>(io::LocalFileSystem(),
                                                               *io::FaultSpec::Parse("write=.parquet,action=fail"));
  auto sink = Make(Spec(dir), "q-1", faulty);
  Status st = sink->AddBatch(0, Rows(0, 5));
  ASSERT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_THAT(st.message(), ::testing::HasSubstr("Cannot write Iceberg data file"));
  EXPECT_TRUE(faulty->triggered());
  std::vector<std::string> names;
  if (std::filesystem::exists(dir.Sub("wh/db.db/events/data"))) {
    for (const auto& e : std::filesystem::directory_iterator(dir.Sub("wh/db.db/events/data"))) {
      names.push_back(e.path().filename().string());
    }
  }
  EXPECT_TRUE(names.empty()) << names.front();
  EXPECT_EQ(Load(dir).metadata.snapshots.size(), 0u);
  ASSERT_OK(sink->AddBatch(0, Rows(0, 5)));  // the fault fires once
  EXPECT_EQ(RowCount(dir), 5);
  EXPECT_EQ(DataFileCount(dir), 1u);
}

TEST(IcebergSink, TargetFileSizeSplitsABatchIntoSeveralFiles) {
  TempDir dir;
  auto spec = Spec(dir);
  spec.options.Set("target-file-size-bytes", "1000");
  ASSERT_OK(Make(spec, "q-1")->AddBatch(0, Rows(0, 500)));
  EXPECT_GT(DataFileCount(dir), 3u);
  EXPECT_EQ(RowCount(dir), 500);
  EXPECT_EQ(Load(dir).metadata.CurrentSnapshot()->summary.at("added-data-files"), std::to_string(DataFileCount(dir)));
}

TEST(IcebergMaintenance, CompactionReplacesSmallFilesAndKeepsTheStreamExactlyOnce) {
  TempDir dir;
  auto sink = Make(Spec(dir), "q-1");
  for (int b = 0; b < 5; ++b) ASSERT_OK(sink->AddBatch(b, Rows(b * 10, 10)));
  auto catalog = *iceberg::MakeCatalog(
      "lake", {{"type", "sql"}, {"uri", "sqlite:///" + dir.Sub("catalog.db")}, {"warehouse", dir.Sub("wh")}},
      io::LocalFileSystem());
  auto fs = io::LocalFileSystem();
  auto result = iceberg::CompactTable(catalog.get(), fs.get(), {{"db"}, "events"}, 1 << 20);
  ASSERT_OK(result);
  EXPECT_TRUE(result->committed);
  EXPECT_EQ(result->rewritten_files, 5);
  EXPECT_EQ(result->added_files, 1);
  auto table = Load(dir);
  const auto& s = table.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(s.at("operation"), "replace");
  EXPECT_EQ(s.at("total-data-files"), "1");
  EXPECT_EQ(s.at("total-records"), "50");
  EXPECT_EQ(RowCount(dir), 50);
  // The stream's marker is found behind the replace snapshot: a redo is still skipped.
  ASSERT_OK(Make(Spec(dir), "q-1")->AddBatch(4, Rows(40, 10)));
  EXPECT_EQ(RowCount(dir), 50);

  // Expire everything older than now: the compacted snapshot (with the stream's marker) stays.
  auto expired = iceberg::ExpireSnapshots(catalog.get(), fs.get(), {{"db"}, "events"}, iceberg::NowMs() + 1);
  ASSERT_OK(expired);
  EXPECT_EQ(expired->expired_snapshots, 5);  // the replace snapshot carries the stream's marker
  EXPECT_GE(expired->deleted_files, 5 + 5);  // the small data files and the old manifest lists at least
  EXPECT_EQ(DataFileCount(dir), 1u);
  EXPECT_EQ(RowCount(dir), 50);
  ASSERT_OK(Make(Spec(dir), "q-1")->AddBatch(4, Rows(40, 10)));  // still recognised
  ASSERT_OK(Make(Spec(dir), "q-1")->AddBatch(5, Rows(50, 10)));
  EXPECT_EQ(RowCount(dir), 60);
}

// A query with a checkpoint: what the Iceberg sink needs from the runtime.
SinkContext CheckpointContext(const TempDir& dir, std::optional<int64_t> last_committed = std::nullopt) {
  SinkContext ctx{io::LocalFileSystem(), "q-1", nullptr, nullptr, 0, dir.Sub("ckpt")};
  ctx.last_committed_batch = last_committed;
  ctx.query_schema = Rows(0, 1)->schema();
  return ctx;
}

std::shared_ptr<iceberg::Catalog> LakeCatalog(const TempDir& dir) {
  return *iceberg::MakeCatalog(
      "lake", {{"type", "sql"}, {"uri", "sqlite:///" + dir.Sub("catalog.db")}, {"warehouse", dir.Sub("wh")}},
      io::LocalFileSystem());
}

bool TableExists(const TempDir& dir) {
  auto loaded = LakeCatalog(dir)->Load({{"db"}, "events"});
  EXPECT_OK(loaded);
  return loaded.ok() && loaded->has_value();
}

TEST(IcebergSink, ADeletedCatalogIsRefusedWhenTheCheckpointCommittedBatches) {
  TempDir dir;
  {
    ASSERT_OK_AND_ASSIGN(auto sink, MakeIcebergSink(Spec(dir), CheckpointContext(dir)));
    ASSERT_OK(sink->AddBatch(0, Rows(0, 5)));
    ASSERT_OK(sink->AddBatch(1, Rows(5, 5)));
  }
  EXPECT_TRUE(std::filesystem::exists(dir.Sub("ckpt/sink/iceberg")));
  std::filesystem::remove(dir.Sub("catalog.db"));  // the SQLite catalog deleted
  auto refused = MakeIcebergSink(Spec(dir), CheckpointContext(dir, 1));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("Iceberg table lake.db.events does not exist, but checkpoint '" +
                                                    dir.Sub("ckpt") + "' committed batches up to 1 into it"));
  EXPECT_THAT(refused.status().message(), HasSubstr("Restore the catalog"));
  EXPECT_FALSE(TableExists(dir));  // no new, empty table in its place

  // A checkpoint from before the record (no sink/iceberg file): its commits/ are enough.
  std::filesystem::remove(dir.Sub("ckpt/sink/iceberg"));
  auto legacy = MakeIcebergSink(Spec(dir), CheckpointContext(dir, 7));
  ASSERT_FALSE(legacy.ok());
  EXPECT_THAT(legacy.status().message(), HasSubstr("committed batches up to 7 into it"));
  EXPECT_FALSE(TableExists(dir));

  // Nothing committed yet: the table is created at start.
  TempDir fresh;
  ASSERT_OK(MakeIcebergSink(Spec(fresh), CheckpointContext(fresh)).status());
  EXPECT_TRUE(TableExists(fresh));
}

TEST(IcebergSink, ATableDroppedAndCreatedAgainIsRefusedNamingBothUuids) {
  TempDir dir;
  std::string old_uuid;
  {
    ASSERT_OK_AND_ASSIGN(auto sink, MakeIcebergSink(Spec(dir), CheckpointContext(dir)));
    ASSERT_OK(sink->AddBatch(0, Rows(0, 5)));
    old_uuid = Load(dir).metadata.table_uuid;
  }
  std::filesystem::remove(dir.Sub("catalog.db"));
  ASSERT_OK_AND_ASSIGN(auto schema, iceberg::SchemaFromArrow(*Rows(0, 1)->schema()));
  ASSERT_OK(LakeCatalog(dir)->Create({{"db"}, "events"}, schema, {}).status());
  const std::string new_uuid = Load(dir).metadata.table_uuid;
  ASSERT_NE(new_uuid, old_uuid);
  auto refused = MakeIcebergSink(Spec(dir), CheckpointContext(dir, 0));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("committed batches up to 0 into: that table had uuid " + old_uuid +
                                                    ", the catalog's table has uuid " + new_uuid));
}

TEST(IcebergSink, ATableOlderThanTheCheckpointsLastBatchIsRefused) {
  TempDir dir;
  {
    ASSERT_OK_AND_ASSIGN(auto sink, MakeIcebergSink(Spec(dir), CheckpointContext(dir)));
    ASSERT_OK(sink->AddBatch(0, Rows(0, 5)));
    ASSERT_OK(sink->AddBatch(1, Rows(5, 5)));
  }
  // Roll the table back to batch 0's snapshot (as a restored catalog backup would).
  auto catalog = LakeCatalog(dir);
  auto base = Load(dir);
  auto rolled = base.metadata;
  rolled.current_snapshot_id = rolled.snapshots.front().snapshot_id;
  ASSERT_OK(catalog->Commit({{"db"}, "events"}, base, rolled).status());
  auto refused = MakeIcebergSink(Spec(dir), CheckpointContext(dir, 1));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("does not contain batch 1 that checkpoint '" + dir.Sub("ckpt")));
  EXPECT_THAT(refused.status().message(), HasSubstr("the newest batch of query q-1 in the table is 0"));
  EXPECT_EQ(RowCount(dir), 5);
}

TEST(IcebergSink, ADamagedTableRecordIsDescribedNotEchoed) {
  TempDir dir;
  ASSERT_OK(MakeIcebergSink(Spec(dir), CheckpointContext(dir)).status());
  {
    std::ofstream out(dir.Sub("ckpt/sink/iceberg"), std::ios::trunc);
    out << "\x1b[31mgarbage";
  }
  auto refused = MakeIcebergSink(Spec(dir), CheckpointContext(dir));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("'" + dir.Sub("ckpt/sink/iceberg") + "' is damaged (12 bytes"));
  EXPECT_THAT(refused.status().message(), ::testing::Not(HasSubstr("garbage")));
}

TEST(IcebergSink, ADeletedDataFileOrManifestIsRefusedBeforeCommittingNamingIt) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto sink, MakeIcebergSink(Spec(dir), CheckpointContext(dir)));
  ASSERT_OK(sink->AddBatch(0, Rows(0, 5)));
  ASSERT_OK(sink->AddBatch(1, Rows(5, 5)));
  auto table = Load(dir);
  auto live = iceberg::LiveEntries(io::LocalFileSystem().get(), table.metadata);
  ASSERT_OK(live);
  const std::string data_file = io::UriToPath(live->front().file.path);
  const std::string saved = dir.Sub("saved.parquet");
  std::filesystem::rename(data_file, saved);
  Status st = sink->AddBatch(2, Rows(10, 5));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("references data file '" + data_file + "'"));
  EXPECT_THAT(st.message(), HasSubstr("Restore the file"));
  EXPECT_EQ(Load(dir).metadata.snapshots.size(), 2u);  // nothing committed
  EXPECT_EQ(DataFileCount(dir), 1u);  // the refused batch's files are removed

  std::filesystem::rename(saved, data_file);
  auto manifests = iceberg::ReadManifestList(io::LocalFileSystem().get(),
                                             table.metadata.CurrentSnapshot()->manifest_list);
  ASSERT_OK(manifests);
  const std::string manifest = io::UriToPath(manifests->back().path);
  std::filesystem::rename(manifest, saved);
  // A new sink (a restart) reads the manifests again.
  ASSERT_OK_AND_ASSIGN(auto restarted, MakeIcebergSink(Spec(dir), CheckpointContext(dir, 1)));
  st = restarted->AddBatch(2, Rows(10, 5));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("references manifest '" + manifest + "'"));
  std::filesystem::rename(saved, manifest);
  ASSERT_OK(restarted->AddBatch(2, Rows(10, 5)));
  EXPECT_EQ(RowCount(dir), 15);
}

}  // namespace
}  // namespace sluice::sink

namespace sluice::sink {
namespace {

// Live files of the current snapshot with their partition tuples.
std::vector<iceberg::ManifestEntry> LiveFiles(const TempDir& dir) {
  auto live = iceberg::LiveEntries(io::LocalFileSystem().get(), Load(dir).metadata);
  EXPECT_OK(live);
  return live.ok() ? *live : std::vector<iceberg::ManifestEntry>{};
}

// Every live file lies in the directory of its tuple and holds only rows of that tuple.
void ExpectFilesMatchTheirPartitions(const TempDir& dir) {
  auto table = Load(dir);
  const iceberg::Schema schema = *table.metadata.CurrentSchema();
  auto spec = *table.metadata.DefaultPartitionSpec();
  for (const auto& e : LiveFiles(dir)) {
    auto rows = iceberg::ReadDataFile(io::LocalFileSystem().get(), e.file, schema);
    ASSERT_OK(rows);
    auto parts = iceberg::SplitByPartitionSpec(**rows, spec, schema);
    ASSERT_OK(parts);
    ASSERT_EQ(parts->size(), 1u) << e.file.path;
    EXPECT_EQ((*parts)[0].partition, e.file.partition) << e.file.path;
    EXPECT_THAT(e.file.path, HasSubstr("/data/" + (*parts)[0].dir + "/"));
  }
}

TEST(IcebergSink, PartitionedTableGetsOneFilePerPartitionPerBatchUnderItsDirectory) {
  TempDir dir;
  auto spec = Spec(dir);
  spec.options.Set("partitionBy", "bucket(3, id), truncate(2, name)");
  auto sink = Make(spec, "q-1");
  ASSERT_OK(sink->AddBatch(0, Rows(0, 12)));
  ASSERT_OK(sink->AddBatch(1, Rows(12, 12)));
  auto table = Load(dir);
  EXPECT_EQ(table.metadata.ToJson()["partition-specs"][0]["fields"][1]["transform"], "truncate[2]");
  EXPECT_EQ(table.metadata.ToJson()["last-partition-id"], 1001);
  EXPECT_EQ(RowCount(dir), 24);
  std::set<std::string> tuples;
  for (const auto& e : LiveFiles(dir)) tuples.insert(e.file.partition.dump());
  // names n0..n23 truncate to "n0".."n9" and "n1"/"n2": each batch's files are one per tuple.
  const auto& s = table.metadata.CurrentSnapshot()->summary;
  EXPECT_EQ(s.at("changed-partition-count"), s.at("added-data-files"));
  EXPECT_EQ(LiveFiles(dir).size(), std::stoul(table.metadata.snapshots[0].summary.at("added-data-files")) +
                                       std::stoul(s.at("added-data-files")));
  EXPECT_GT(tuples.size(), 3u);
  ExpectFilesMatchTheirPartitions(dir);
  // A restart without partitionBy writes with the table's spec.
  ASSERT_OK(Make(Spec(dir), "q-1")->AddBatch(2, Rows(24, 6)));
  EXPECT_EQ(RowCount(dir), 30);
  ExpectFilesMatchTheirPartitions(dir);
}

TEST(IcebergSink, APartitionByDifferentFromTheTablesSpecIsRefusedNamingBoth) {
  TempDir dir;
  auto spec = Spec(dir);
  spec.options.Set("partitionBy", "bucket(3, id)");
  ASSERT_OK(Make(spec, "q-1")->AddBatch(0, Rows(0, 5)));
  auto other = Spec(dir);
  other.options.Set("partitionBy", "truncate(2, name)");
  SinkContext ctx;
  ctx.query_id = "q-1";
  auto sink = MakeIcebergSink(other, ctx);
  ASSERT_OK(sink);
  Status st = (*sink)->AddBatch(1, Rows(5, 5));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("lake.db.events is partitioned by bucket(3, id)"));
  EXPECT_THAT(st.message(), HasSubstr("(truncate(2, name))"));
  EXPECT_EQ(RowCount(dir), 5);
  other.options.Set("partitionBy", "week(ts)");
  EXPECT_THAT(ValidateIcebergSinkSpec(other).message(), HasSubstr("Option partitionBy: Unknown partition transform"));
}

TEST(IcebergMaintenance, CompactionOfAPartitionedTableNeverMixesPartitions) {
  TempDir dir;
  auto spec = Spec(dir);
  spec.options.Set("partitionBy", "bucket(2, id)");
  auto sink = Make(spec, "q-1");
  for (int b = 0; b < 3; ++b) ASSERT_OK(sink->AddBatch(b, Rows(b * 10, 10)));
  ASSERT_EQ(LiveFiles(dir).size(), 6u);  // two buckets per batch
  auto fs = io::LocalFileSystem();
  auto result = iceberg::CompactTable(LakeCatalog(dir).get(), fs.get(), {{"db"}, "events"}, 1 << 20);
  ASSERT_OK(result);
  EXPECT_TRUE(result->committed);
  EXPECT_EQ(result->rewritten_files, 6);
  EXPECT_EQ(result->added_files, 2);  // one per bucket
  EXPECT_EQ(LiveFiles(dir).size(), 2u);
  EXPECT_EQ(Load(dir).metadata.CurrentSnapshot()->summary.at("changed-partition-count"), "2");
  EXPECT_EQ(RowCount(dir), 30);
  ExpectFilesMatchTheirPartitions(dir);
}

}  // namespace
}  // namespace sluice::sink
