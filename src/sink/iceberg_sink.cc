// Iceberg sink protocol, per batch (docs/architecture.md, addBatch; Spark's BaseStreamingWrite):
//   1. load the table; epoch already committed by this query (ancestry walk) -> nothing to do
//   2. conform rows to the table schema; write Parquet data files   (fault: iceberg_after_data_files)
//   3. commit loop (iceberg/table_ops): on fresh metadata re-check step 1, write manifests +
//      manifest list (iceberg_after_manifests), write the metadata file
//      (iceberg_after_metadata_file), catalog CAS (iceberg_after_catalog_commit); a lost CAS
//      re-applies the change on the winner's metadata.
// A crash anywhere before the catalog commit leaves only unreferenced files; the redone batch
// writes new ones. A crash after it leaves the epoch in the table; the redo skips it.
#include "sink/iceberg_sink.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <optional>

#include "iceberg/catalog_config.h"
#include "iceberg/location.h"
#include "iceberg/table_ops.h"
#include "io/uuid.h"
#include "util/numbers.h"

namespace sluice::sink {
namespace {

const std::vector<std::string> kOptions = {"table",         "path",          "catalog",
                                           "catalog.type",  "catalog.warehouse", "catalog.uri",
                                           "target-file-size-bytes", "mergeSchema", "merge-schema",
                                           "merge_schema",  "allowOtherQueries", "partitionBy"};
constexpr int64_t kDefaultTargetFileSize = 512LL * 1024 * 1024;  // Iceberg's write.target-file-size-bytes

std::map<std::string, std::string> OptionMap(const plan::Options& options) {
  std::map<std::string, std::string> m;
  for (const auto& [lower, kv] : options.entries()) m[lower] = kv.second;
  if (!m.count("table") && m.count("path")) m["table"] = m["path"];  // format("iceberg").start(name)
  m.erase("path");
  return m;
}

Result<int64_t> TargetFileSize(const std::map<std::string, std::string>& options) {
  auto it = options.find("target-file-size-bytes");
  if (it == options.end()) return kDefaultTargetFileSize;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0' || v <= 0) {
    return Status::Invalid("Invalid value '", it->second, "' for option target-file-size-bytes: must be a positive "
                           "number of bytes");
  }
  return static_cast<int64_t>(v);
}

// partitionBy ("days(ts), bucket(16, id), country"; iceberg/partition_spec.h): the spec of a
// table the sink creates; an existing table must have the same one.
Result<std::vector<iceberg::PartitionTerm>> PartitionTerms(const std::map<std::string, std::string>& options) {
  auto it = options.find("partitionby");
  if (it == options.end()) return std::vector<iceberg::PartitionTerm>{};
  auto terms = iceberg::ParsePartitionTerms(it->second);
  if (!terms.ok()) return terms.status().WithMessage("Option partitionBy: ", terms.status().message());
  return terms;
}

// mergeSchema (Iceberg's Spark writer: merge-schema / mergeSchema): add the query's new columns
// to an existing table as nullable columns instead of refusing them.
Result<bool> BoolOption(const std::map<std::string, std::string>& options, std::initializer_list<const char*> keys,
                        const char* name) {
  std::optional<std::pair<std::string, std::string>> found;
  for (const char* key : keys) {
    auto it = options.find(key);
    if (it != options.end()) found = {key, it->second};
  }
  if (!found) return false;
  std::string v;
  for (char c : found->second) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "true") return true;
  if (v == "false") return false;
  return Status::Invalid("Invalid value '", found->second, "' for option ", name, ": must be true or false");
}

Result<bool> MergeSchema(const std::map<std::string, std::string>& options) {
  return BoolOption(options, {"mergeschema", "merge-schema", "merge_schema"}, "mergeSchema");
}

// allowOtherQueries: let this query append to a table other streaming queries wrote.
Result<bool> AllowOtherQueries(const std::map<std::string, std::string>& options) {
  return BoolOption(options, {"allowotherqueries"}, "allowOtherQueries");
}

// The table's schema for a query: with merge_schema, the query's new columns are added first.
// Without it, a query column the table lacks is refused with a pointer to the option.
Result<iceberg::LoadedTable> EvolveOrCheck(iceberg::Catalog* catalog, const iceberg::TableRef& ref,
                                           iceberg::LoadedTable table, const arrow::Schema& query,
                                           bool merge_schema) {
  const std::string name = ref.ToString();
  auto missing = iceberg::ColumnsNotInTable(query, *table.metadata.CurrentSchema());
  if (!missing.empty()) {
    if (!merge_schema) {
      return Status::Invalid("Cannot write to Iceberg table ", name, ": column '", missing.front(),
                             "' of the query is not in the table (table columns: ",
                             table.metadata.CurrentSchema()->ToJson()["fields"].dump(),
                             "); set the sink option mergeSchema = true to add new columns to the table as "
                             "nullable columns");
    }
    ARROW_ASSIGN_OR_RAISE(table, iceberg::AddQueryColumns(catalog, ref.ident, query, name));
  }
  ARROW_RETURN_NOT_OK(iceberg::CheckWritable(query, *table.metadata.CurrentSchema(), name));
  return table;
}

// The epoch this query last committed to the table, if any (walks the current ancestry).
std::optional<int64_t> LastCommittedEpoch(const iceberg::TableMetadata& metadata, const std::string& query_id) {
  const iceberg::Snapshot* s = iceberg::FindInAncestry(metadata, [&](const iceberg::Snapshot& snap) {
    auto it = snap.summary.find(kQueryIdSummaryKey);
    return it != snap.summary.end() && it->second == query_id;
  });
  if (!s) return std::nullopt;
  auto it = s->summary.find(kEpochIdSummaryKey);
  if (it == s->summary.end()) return std::nullopt;
  auto epoch = util::ParseInt64(it->second, kEpochIdSummaryKey);
  if (!epoch.ok()) return std::nullopt;
  return *epoch;
}

// Refuses writing into a table that other streaming queries wrote and this one never did,
// unless the last of them is the query `sluice checkpoint reset` released at this checkpoint
// (`released_query_id`, see ReleasedIcebergQuery).
Status CheckTableOwner(const iceberg::TableMetadata& metadata, const std::string& table_name,
                       const std::string& query_id, const std::string& checkpoint_dir,
                       const std::string& released_query_id) {
  auto written_by = [](const std::string& id) {
    return [id](const iceberg::Snapshot& snap) {
      auto it = snap.summary.find(kQueryIdSummaryKey);
      return it != snap.summary.end() && (id.empty() ? true : it->second == id);
    };
  };
  if (iceberg::FindInAncestry(metadata, written_by(query_id))) return Status::OK();
  const iceberg::Snapshot* other = iceberg::FindInAncestry(metadata, written_by(""));
  if (!other) return Status::OK();
  auto get = [&](const char* key, const char* fallback) {
    auto it = other->summary.find(key);
    return it == other->summary.end() ? std::string(fallback) : it->second;
  };
  if (!released_query_id.empty() && get(kQueryIdSummaryKey, "") == released_query_id) return Status::OK();
  return Status::Invalid("Iceberg table ", table_name, " was written by streaming query ",
                         get(kQueryIdSummaryKey, "?"), " (checkpoint ", get(kCheckpointSummaryKey, "<not recorded>"),
                         ", batches up to ", get(kEpochIdSummaryKey, "?"), "), not by this query ", query_id,
                         " (checkpoint ", checkpoint_dir.empty() ? std::string("<none>") : checkpoint_dir,
                         "). Restarting that query from a new checkpoint would write its rows again. Restart with "
                         "the checkpoint that query used, or set the sink option allowOtherQueries = true if this "
                         "query is meant to append to the same table.");
}

// The checkpoint's record of the table it wrote (docs/checkpoint-format.md, sink/iceberg):
// which table (name and uuid) and the newest batch committed to it. A restart compares it with
// the catalog, so a deleted catalog, a dropped and re-created table or a table rolled back
// behind the checkpoint is refused instead of silently written as if nothing were missing.
struct TableRecord {
  std::string table;
  std::string table_uuid;
  int64_t batch_id = -1;  // -1: no batch committed yet
  int64_t snapshot_id = 0;
};

std::string RecordPath(const std::string& checkpoint_dir) {
  return io::JoinPath(io::JoinPath(checkpoint_dir, "sink"), "iceberg");
}

Result<std::optional<TableRecord>> ReadRecord(io::FileSystem* fs, const std::string& checkpoint_dir) {
  const std::string path = RecordPath(checkpoint_dir);
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(path));
  if (!info) return std::optional<TableRecord>{};
  ARROW_ASSIGN_OR_RAISE(std::string text, fs->ReadFile(path));
  auto corrupt = [&]() {
    return Status::Invalid("Checkpoint file '", path, "' is damaged (", text.size(),
                           " bytes, not 'v1' and a JSON object with table, tableUuid and batchId): it records which "
                           "Iceberg table this checkpoint wrote. Restore it from a backup, or delete it to restart "
                           "without the check that the table still holds the committed batches.");
  };
  if (text.rfind("v1\n", 0) != 0) return corrupt();
  auto j = nlohmann::json::parse(text.substr(3), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("table") || !j["table"].is_string() || !j.contains("tableUuid") ||
      !j["tableUuid"].is_string() || !j.contains("batchId") || !j["batchId"].is_number_integer()) {
    return corrupt();
  }
  TableRecord r;
  r.table = j["table"].get<std::string>();
  r.table_uuid = j["tableUuid"].get<std::string>();
  r.batch_id = j["batchId"].get<int64_t>();
  if (j.contains("snapshotId") && j["snapshotId"].is_number_integer()) r.snapshot_id = j["snapshotId"].get<int64_t>();
  return std::optional<TableRecord>(std::move(r));
}

Status WriteRecord(io::FileSystem* fs, const std::string& checkpoint_dir, const TableRecord& r) {
  nlohmann::json j = {{"table", r.table}, {"tableUuid", r.table_uuid}, {"batchId", r.batch_id},
                      {"snapshotId", r.snapshot_id}};
  ARROW_RETURN_NOT_OK(fs->MakeDirs(io::JoinPath(checkpoint_dir, "sink")));
  return fs->WriteAtomic(RecordPath(checkpoint_dir), "v1\n" + j.dump(), /*overwrite=*/true);
}

// At start, for a query with a checkpoint: the table must still hold what the checkpoint says
// was committed to it. Creates the table from `schema` when it is missing and nothing was
// committed (nullopt without a schema: the first batch creates it).
Result<std::optional<iceberg::LoadedTable>> CheckTableAgainstCheckpoint(iceberg::Catalog* catalog, io::FileSystem* fs,
                                                         const iceberg::TableRef& ref, const arrow::Schema* schema,
                                                         const std::vector<iceberg::PartitionTerm>& partition_by,
                                                         const SinkContext& ctx) {
  const std::string name = ref.ToString();
  ARROW_ASSIGN_OR_RAISE(auto record, ReadRecord(fs, ctx.checkpoint_dir));
  if (record && record->table != name) record.reset();  // the checkpoint wrote another table before
  const std::string restore =
      " Restore the catalog or the table (or point the sink at the catalog that holds it); to start over on "
      "purpose, use a new checkpoint location (the rows of the committed batches are then not written again).";
  ARROW_ASSIGN_OR_RAISE(auto existing, catalog->Load(ref.ident));
  if (!existing) {
    if ((record && record->batch_id >= 0) || (!record && ctx.last_committed_batch)) {
      const int64_t last = record ? record->batch_id : *ctx.last_committed_batch;
      return Status::Invalid("Iceberg table ", name, " does not exist, but checkpoint '", ctx.checkpoint_dir,
                             "' committed batches up to ", last, " into it",
                             record ? " (table uuid " + record->table_uuid + ")" : std::string(),
                             ": the catalog was deleted or emptied, or the table dropped. Restarting would create a "
                             "new, empty table and the rows of those batches would be missing from it.", restore);
    }
    if (!schema) return std::optional<iceberg::LoadedTable>{};
    ARROW_ASSIGN_OR_RAISE(auto created, iceberg::LoadOrCreate(catalog, ref.ident, *schema, partition_by));
    existing = std::move(created);
  } else if (record && record->table_uuid != existing->metadata.table_uuid) {
    if (record->batch_id >= 0) {
      return Status::Invalid("Iceberg table ", name, " is not the table checkpoint '", ctx.checkpoint_dir,
                             "' committed batches up to ", record->batch_id, " into: that table had uuid ",
                             record->table_uuid, ", the catalog's table has uuid ", existing->metadata.table_uuid,
                             " (it was dropped and created again). Restarting would leave the rows of those batches "
                             "out of it.", restore);
    }
  } else if (record && record->batch_id >= 0) {
    auto last = LastCommittedEpoch(existing->metadata, ctx.query_id);
    if (!last || *last < record->batch_id) {
      return Status::Invalid("Iceberg table ", name, " (uuid ", record->table_uuid, ") does not contain batch ",
                             record->batch_id, " that checkpoint '", ctx.checkpoint_dir,
                             "' committed to it (snapshot ", record->snapshot_id, "); the newest batch of query ",
                             ctx.query_id, " in the table is ", last ? std::to_string(*last) : std::string("none"),
                             ": the table is older than the checkpoint (restored from a backup or rolled back). "
                             "Restarting would leave the rows of the missing batches out of it.", restore);
    }
  }
  if (!record || record->table_uuid != existing->metadata.table_uuid) {
    TableRecord fresh{name, existing->metadata.table_uuid, -1, 0};
    if (auto last = LastCommittedEpoch(existing->metadata, ctx.query_id)) fresh.batch_id = *last;
    ARROW_RETURN_NOT_OK(WriteRecord(fs, ctx.checkpoint_dir, fresh));
  }
  return existing;
}

class IcebergSink final : public Sink {
 public:
  IcebergSink(std::shared_ptr<io::FileSystem> fs, std::shared_ptr<iceberg::Catalog> catalog, iceberg::TableRef ref,
              std::string query_id, std::string checkpoint_dir, bool complete, int64_t target_file_size,
              bool merge_schema, std::string table_uuid, std::vector<iceberg::PartitionTerm> partition_by)
      : fs_(std::move(fs)),
        catalog_(std::move(catalog)),
        ref_(std::move(ref)),
        query_id_(std::move(query_id)),
        checkpoint_dir_(std::move(checkpoint_dir)),
        complete_(complete),
        target_file_size_(target_file_size),
        merge_schema_(merge_schema),
        table_uuid_(std::move(table_uuid)),
        partition_by_(std::move(partition_by)) {}

  std::string Description() const override { return "IcebergSink[" + ref_.ToString() + "]"; }
  bool idempotent() const override { return !query_id_.empty(); }

  Status AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) override {
    ARROW_ASSIGN_OR_RAISE(auto table,
                          iceberg::LoadOrCreate(catalog_.get(), ref_.ident, *rows->schema(), partition_by_));
    if (Committed(table.metadata, batch_id)) return Status::OK();  // a redone batch
    ARROW_RETURN_NOT_OK(iceberg::CheckPartitioning(table.metadata, partition_by_, ref_.ToString()));
    if (!complete_ && rows->num_rows() == 0) return Status::OK();
    if (merge_schema_ && !iceberg::ColumnsNotInTable(*rows->schema(), *table.metadata.CurrentSchema()).empty()) {
      // Normally done when the query starts; again here if the table was replaced since.
      ARROW_ASSIGN_OR_RAISE(table, EvolveOrCheck(catalog_.get(), ref_, std::move(table), *rows->schema(), true));
    }
    const iceberg::Schema schema = *table.metadata.CurrentSchema();
    ARROW_ASSIGN_OR_RAISE(const iceberg::PartitionSpec spec, table.metadata.DefaultPartitionSpec());
    ARROW_ASSIGN_OR_RAISE(auto conformed, iceberg::ConformToSchema(*rows, schema, ref_.ToString()));
    ARROW_ASSIGN_OR_RAISE(auto files, WriteDataFiles(table.metadata, schema, spec, *conformed, batch_id));
    auto cleanup = [&]() {
      for (const auto& f : files) (void)fs_->Delete(iceberg::LocalPath(fs_.get(), f.path));
    };
    Status st = fs_->FaultPoint("iceberg_after_data_files");
    if (!st.ok()) {
      cleanup();
      return st;
    }
    auto outcome = iceberg::CommitWithRetry(
        catalog_.get(), fs_.get(), ref_.ident,
        [&](const iceberg::LoadedTable& base) -> Result<std::optional<iceberg::SnapshotChange>> {
          if (Committed(base.metadata, batch_id)) return std::nullopt;
          if (!base.metadata.CurrentSchema()->SameColumns(schema)) {
            return Status::Invalid("The schema of Iceberg table ", ref_.ToString(),
                                   " changed while batch ", batch_id, " was being written");
          }
          ARROW_ASSIGN_OR_RAISE(auto base_spec, base.metadata.DefaultPartitionSpec());
          if (base_spec.spec_id != spec.spec_id || !base_spec.SameTerms(spec)) {
            return Status::Invalid("The partition spec of Iceberg table ", ref_.ToString(), " changed while batch ",
                                   batch_id, " was being written (now ", base_spec.Describe(schema), ")");
          }
          // Before an append: the new snapshot keeps every live file of this one. (Complete
          // mode's overwrite drops them, and reads only the manifests.)
          if (!complete_) {
            ARROW_RETURN_NOT_OK(iceberg::CheckCurrentFilesExist(fs_.get(), base.metadata, ref_.ToString(),
                                                                &manifest_files_));
          }
          iceberg::SnapshotChange change;
          change.kind = complete_ ? iceberg::SnapshotChange::Kind::kOverwrite : iceberg::SnapshotChange::Kind::kAppend;
          change.added = files;
          if (!query_id_.empty()) {
            change.summary[kQueryIdSummaryKey] = query_id_;
            change.summary[kEpochIdSummaryKey] = std::to_string(batch_id);
            if (!checkpoint_dir_.empty()) change.summary[kCheckpointSummaryKey] = checkpoint_dir_;
          }
          change.summary["engine-name"] = "sluice";
          change.summary["engine-version"] = SLUICE_VERSION;
          return change;
        });
    if (!outcome.ok() || !outcome->committed) cleanup();
    if (!outcome.ok()) {
      return outcome.status().WithMessage("Cannot commit batch ", batch_id, " to Iceberg table ", ref_.ToString(), ": ",
                                          outcome.status().message());
    }
    if (outcome->committed && !checkpoint_dir_.empty() && !query_id_.empty()) {
      if (table_uuid_.empty()) table_uuid_ = outcome->table.metadata.table_uuid;  // created by this batch
    }
    if (outcome->committed && !checkpoint_dir_.empty() && !query_id_.empty() &&
        outcome->table.metadata.table_uuid == table_uuid_) {
      // After the table commit: a crash in between leaves the record one batch behind, which
      // the start-up check accepts (the table holds more, never less).
      TableRecord record{ref_.ToString(), table_uuid_, batch_id,
                         outcome->table.metadata.current_snapshot_id.value_or(0)};
      ARROW_RETURN_NOT_OK(WriteRecord(fs_.get(), checkpoint_dir_, record));
    }
    return Status::OK();
  }

 private:
  bool Committed(const iceberg::TableMetadata& metadata, int64_t batch_id) const {
    if (query_id_.empty()) return false;
    auto last = LastCommittedEpoch(metadata, query_id_);
    return last && batch_id <= *last;
  }

  // Splits rows by partition tuple (one directory per tuple, data/<field>=<value>/...), then
  // each part into files of about target_file_size_ bytes (estimated from the in-memory size,
  // which over-estimates the compressed Parquet size: files come out smaller).
  Result<std::vector<iceberg::DataFile>> WriteDataFiles(const iceberg::TableMetadata& metadata,
                                                        const iceberg::Schema& schema,
                                                        const iceberg::PartitionSpec& spec, const arrow::Table& rows,
                                                        int64_t batch_id) {
    ARROW_ASSIGN_OR_RAISE(auto parts, iceberg::SplitByPartitionSpec(rows, spec, schema));
    const std::string op = io::RandomUuid();
    std::vector<iceberg::DataFile> files;
    int file_no = 0;
    for (const auto& part : parts) {
      auto written = WritePartFiles(metadata, schema, part, batch_id, op, &file_no);
      if (!written.ok()) {
        for (const auto& f : files) (void)fs_->Delete(iceberg::LocalPath(fs_.get(), f.path));
        return written.status();
      }
      for (auto& f : *written) files.push_back(std::move(f));
    }
    return files;
  }

  // The files of one partition's rows.
  Result<std::vector<iceberg::DataFile>> WritePartFiles(const iceberg::TableMetadata& metadata,
                                                        const iceberg::Schema& schema,
                                                        const iceberg::PartitionedRows& part, int64_t batch_id,
                                                        const std::string& op, int* file_no) {
    const arrow::Table& rows = *part.rows;
    const int64_t n = rows.num_rows();
    std::vector<iceberg::DataFile> files;
    if (n == 0) return files;
    int64_t bytes = 0;
    for (const auto& column : rows.columns()) {
      for (const auto& chunk : column->chunks()) bytes += arrow::util::TotalBufferSize(*chunk->data());
    }
    const int64_t bytes_per_row = std::max<int64_t>(1, bytes / n);
    const int64_t rows_per_file = std::max<int64_t>(1, target_file_size_ / bytes_per_row);
    const std::string dir = part.dir.empty() ? "data" : "data/" + part.dir;
    ARROW_RETURN_NOT_OK(fs_->MakeDirs(iceberg::TableFileAt(fs_.get(), metadata, dir).path));
    for (int64_t offset = 0; offset < n; offset += rows_per_file) {
      char name[128];
      std::snprintf(name, sizeof(name), "00000-%lld-%s-%05d.parquet", static_cast<long long>(batch_id), op.c_str(),
                    ++*file_no);
      auto file = iceberg::WriteDataFile(fs_.get(), iceberg::TableFileAt(fs_.get(), metadata, dir + "/" + name),
                                         *rows.Slice(offset, rows_per_file), schema);
      if (!file.ok()) {
        for (const auto& f : files) (void)fs_->Delete(iceberg::LocalPath(fs_.get(), f.path));
        return file.status();
      }
      file->partition = part.partition;
      files.push_back(std::move(*file));
    }
    return files;
  }

  std::shared_ptr<io::FileSystem> fs_;
  std::shared_ptr<iceberg::Catalog> catalog_;
  iceberg::TableRef ref_;
  std::string query_id_;
  std::string checkpoint_dir_;
  bool complete_;
  int64_t target_file_size_;
  bool merge_schema_;
  std::string table_uuid_;  // of the table checked at start (or created by the first batch)
  iceberg::ManifestFilesCache manifest_files_;  // manifests checked before earlier commits
  std::vector<iceberg::PartitionTerm> partition_by_;  // option partitionBy (a new table's spec)
};

}  // namespace

Status ValidateIcebergSinkSpec(const SinkSpec& spec) {
  ARROW_RETURN_NOT_OK(spec.options.CheckKnown(kOptions, "iceberg sink"));
  if (spec.output_mode == plan::OutputMode::kUpdate) {
    return Status::Invalid("Data source iceberg does not support ", plan::OutputModeName(spec.output_mode),
                           " output mode (the Iceberg sink supports append and complete)");
  }
  auto options = OptionMap(spec.options);
  ARROW_RETURN_NOT_OK(TargetFileSize(options).status());
  ARROW_RETURN_NOT_OK(MergeSchema(options).status());
  ARROW_RETURN_NOT_OK(AllowOtherQueries(options).status());
  ARROW_RETURN_NOT_OK(PartitionTerms(options).status());
  return iceberg::TableRefFromOptions(options).status();
}

Status PrepareIcebergSinkSpec(SinkSpec* spec, const std::function<std::string(const std::string&)>& conf,
                              const arrow::Schema& query_schema, const std::shared_ptr<io::FileSystem>& fs) {
  auto options = OptionMap(spec->options);
  iceberg::AddCatalogOptions(&options, conf);
  for (const auto& [k, v] : options) spec->options.Set(k, v);
  ARROW_RETURN_NOT_OK(ValidateIcebergSinkSpec(*spec));
  ARROW_ASSIGN_OR_RAISE(auto ref, iceberg::TableRefFromOptions(OptionMap(spec->options)));
  ARROW_ASSIGN_OR_RAISE(auto catalog,
                        iceberg::MakeCatalog(ref.catalog, ref.catalog_props, fs ? fs : io::LocalFileSystem()));
  ARROW_ASSIGN_OR_RAISE(bool merge_schema, MergeSchema(OptionMap(spec->options)));
  // A missing table is created when the query opens its checkpoint (MakeIcebergSink), after
  // checking that the checkpoint committed nothing to a table of that name.
  ARROW_ASSIGN_OR_RAISE(auto table, catalog->Load(ref.ident));
  if (!table) {
    // The spec binds to the query's columns: refuse a bad term before the query starts.
    ARROW_ASSIGN_OR_RAISE(auto terms, PartitionTerms(OptionMap(spec->options)));
    ARROW_ASSIGN_OR_RAISE(auto schema, iceberg::SchemaFromArrow(query_schema));
    auto bound = iceberg::BindPartitionSpec(terms, schema);
    if (!bound.ok()) {
      return bound.status().WithMessage("Cannot create Iceberg table ", ref.ToString(), ": ", bound.status().message());
    }
    return Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(auto terms, PartitionTerms(OptionMap(spec->options)));
  ARROW_RETURN_NOT_OK(iceberg::CheckPartitioning(table->metadata, terms, ref.ToString()));
  return EvolveOrCheck(catalog.get(), ref, std::move(*table), query_schema, merge_schema).status();
}

Status WriteIcebergTableOnce(const std::shared_ptr<io::FileSystem>& fs, const SinkSpec& spec, const std::string& mode,
                             const std::string& table, const std::shared_ptr<arrow::Table>& rows) {
  SinkSpec s = spec;
  if (!s.options.Get("table")) s.options.Set("table", table);
  std::string m;
  for (char c : mode) m += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (m == "errorifexists" || m == "default" || m.empty()) m = "error";
  if (m != "append" && m != "overwrite" && m != "error" && m != "ignore") {
    return Status::Invalid("Unknown save mode '", mode, "' for Iceberg table ", table,
                           ": use append, overwrite, error (errorifexists) or ignore");
  }
  s.output_mode = m == "overwrite" ? plan::OutputMode::kComplete : plan::OutputMode::kAppend;
  auto options = OptionMap(s.options);
  ARROW_ASSIGN_OR_RAISE(auto ref, iceberg::TableRefFromOptions(options));
  auto file_system = fs ? fs : io::LocalFileSystem();
  if (m == "error" || m == "ignore") {
    ARROW_ASSIGN_OR_RAISE(auto catalog, iceberg::MakeCatalog(ref.catalog, ref.catalog_props, file_system));
    ARROW_ASSIGN_OR_RAISE(auto existing, catalog->Load(ref.ident));
    if (existing && m == "ignore") return Status::OK();
    if (existing) {
      return Status::Invalid("Iceberg table ", ref.ToString(), " already exists (save mode error); use "
                             "mode(\"append\") to add the rows or mode(\"overwrite\") to replace them");
    }
  }
  SinkContext ctx;
  ctx.fs = file_system;
  ARROW_ASSIGN_OR_RAISE(auto sink, MakeIcebergSink(s, ctx));
  return sink->AddBatch(0, rows);  // creates a missing table first, even for zero rows
}

std::string IcebergSinkTableName(const SinkSpec& spec) {
  auto ref = iceberg::TableRefFromOptions(OptionMap(spec.options));
  return ref.ok() ? ref->ToString() : spec.options.GetOr("table", spec.options.GetOr("path", ""));
}

namespace {
constexpr const char* kReleasedFile = "released_iceberg_query";
}  // namespace

Status ReleaseIcebergTables(io::FileSystem* fs, const std::string& checkpoint_dir, const std::string& query_id) {
  return fs->WriteAtomic(io::JoinPath(checkpoint_dir, kReleasedFile), "v1\n" + query_id + "\n", /*overwrite=*/true);
}

Result<std::string> ReleasedIcebergQuery(io::FileSystem* fs, const std::string& checkpoint_dir) {
  const std::string path = io::JoinPath(checkpoint_dir, kReleasedFile);
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(path));
  if (!info) return std::string();
  ARROW_ASSIGN_OR_RAISE(std::string text, fs->ReadFile(path));
  const size_t end = text.find('\n', 3);
  if (text.rfind("v1\n", 0) != 0 || end == std::string::npos || end == 3) {
    return Status::Invalid("Checkpoint file '", path, "' is damaged (", text.size(), " bytes, not 'v1' and a query "
                           "id): it records the query `sluice checkpoint reset` released. Delete it to be refused as "
                           "before the reset, or reset again.");
  }
  return text.substr(3, end - 3);
}

Result<std::unique_ptr<Sink>> MakeIcebergSink(const SinkSpec& spec, const SinkContext& ctx) {
  ARROW_RETURN_NOT_OK(ValidateIcebergSinkSpec(spec));
  auto options = OptionMap(spec.options);
  ARROW_ASSIGN_OR_RAISE(auto ref, iceberg::TableRefFromOptions(options));
  ARROW_ASSIGN_OR_RAISE(auto target, TargetFileSize(options));
  ARROW_ASSIGN_OR_RAISE(bool merge_schema, MergeSchema(options));
  auto fs = ctx.fs ? ctx.fs : io::LocalFileSystem();
  ARROW_ASSIGN_OR_RAISE(auto catalog, iceberg::MakeCatalog(ref.catalog, ref.catalog_props, fs));
  ARROW_ASSIGN_OR_RAISE(bool allow_others, AllowOtherQueries(options));
  ARROW_ASSIGN_OR_RAISE(auto partition_by, PartitionTerms(options));
  if (!ctx.query_id.empty() && !allow_others) {
    ARROW_ASSIGN_OR_RAISE(auto table, catalog->Load(ref.ident));
    std::string released;
    if (table && !ctx.checkpoint_dir.empty()) {
      ARROW_ASSIGN_OR_RAISE(released, ReleasedIcebergQuery(fs.get(), ctx.checkpoint_dir));
    }
    if (table) {
      ARROW_RETURN_NOT_OK(CheckTableOwner(table->metadata, ref.ToString(), ctx.query_id, ctx.checkpoint_dir, released));
    }
  }
  std::string table_uuid;
  if (!ctx.query_id.empty() && !ctx.checkpoint_dir.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto table,
                          CheckTableAgainstCheckpoint(catalog.get(), fs.get(), ref, ctx.query_schema.get(),
                                                      partition_by, ctx));
    if (table) {
      table_uuid = table->metadata.table_uuid;
      ARROW_RETURN_NOT_OK(iceberg::CheckPartitioning(table->metadata, partition_by, ref.ToString()));
    }
  }
  return std::unique_ptr<Sink>(new IcebergSink(fs, std::move(catalog), std::move(ref), ctx.query_id,
                                               ctx.checkpoint_dir, spec.output_mode == plan::OutputMode::kComplete,
                                               target, merge_schema, std::move(table_uuid),
                                               std::move(partition_by)));
}

}  // namespace sluice::sink
