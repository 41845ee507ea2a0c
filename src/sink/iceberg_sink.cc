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

#include <cctype>
#include <optional>

#include "iceberg/catalog_config.h"
#include "iceberg/table_ops.h"
#include "io/uuid.h"
#include "util/numbers.h"

namespace sluice::sink {
namespace {

const std::vector<std::string> kOptions = {"table",         "path",          "catalog",
                                           "catalog.type",  "catalog.warehouse", "catalog.uri",
                                           "target-file-size-bytes", "mergeSchema", "merge-schema",
                                           "merge_schema",  "allowOtherQueries"};
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

// Refuses writing into a table that other streaming queries wrote and this one never did.
Status CheckTableOwner(const iceberg::TableMetadata& metadata, const std::string& table_name,
                       const std::string& query_id, const std::string& checkpoint_dir) {
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
  return Status::Invalid("Iceberg table ", table_name, " was written by streaming query ",
                         get(kQueryIdSummaryKey, "?"), " (checkpoint ", get(kCheckpointSummaryKey, "<not recorded>"),
                         ", batches up to ", get(kEpochIdSummaryKey, "?"), "), not by this query ", query_id,
                         " (checkpoint ", checkpoint_dir.empty() ? std::string("<none>") : checkpoint_dir,
                         "). Restarting that query from a new checkpoint would write its rows again. Restart with "
                         "the checkpoint that query used, or set the sink option allowOtherQueries = true if this "
                         "query is meant to append to the same table.");
}

class IcebergSink final : public Sink {
 public:
  IcebergSink(std::shared_ptr<io::FileSystem> fs, std::shared_ptr<iceberg::Catalog> catalog, iceberg::TableRef ref,
              std::string query_id, std::string checkpoint_dir, bool complete, int64_t target_file_size,
              bool merge_schema)
      : fs_(std::move(fs)),
        catalog_(std::move(catalog)),
        ref_(std::move(ref)),
        query_id_(std::move(query_id)),
        checkpoint_dir_(std::move(checkpoint_dir)),
        complete_(complete),
        target_file_size_(target_file_size),
        merge_schema_(merge_schema) {}

  std::string Description() const override { return "IcebergSink[" + ref_.ToString() + "]"; }
  bool idempotent() const override { return !query_id_.empty(); }

  Status AddBatch(int64_t batch_id, const std::shared_ptr<arrow::Table>& rows) override {
    ARROW_ASSIGN_OR_RAISE(auto table, iceberg::LoadOrCreate(catalog_.get(), ref_.ident, *rows->schema()));
    if (Committed(table.metadata, batch_id)) return Status::OK();  // a redone batch
    if (!complete_ && rows->num_rows() == 0) return Status::OK();
    if (merge_schema_ && !iceberg::ColumnsNotInTable(*rows->schema(), *table.metadata.CurrentSchema()).empty()) {
      // Normally done when the query starts; again here if the table was replaced since.
      ARROW_ASSIGN_OR_RAISE(table, EvolveOrCheck(catalog_.get(), ref_, std::move(table), *rows->schema(), true));
    }
    const iceberg::Schema schema = *table.metadata.CurrentSchema();
    ARROW_ASSIGN_OR_RAISE(auto conformed, iceberg::ConformToSchema(*rows, schema, ref_.ToString()));
    ARROW_ASSIGN_OR_RAISE(auto files, WriteDataFiles(table.metadata, schema, *conformed, batch_id));
    auto cleanup = [&]() {
      for (const auto& f : files) (void)fs_->Delete(io::UriToPath(f.path));
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
    return Status::OK();
  }

 private:
  bool Committed(const iceberg::TableMetadata& metadata, int64_t batch_id) const {
    if (query_id_.empty()) return false;
    auto last = LastCommittedEpoch(metadata, query_id_);
    return last && batch_id <= *last;
  }

  // Splits rows into files of about target_file_size_ bytes (estimated from the in-memory
  // size, which over-estimates the compressed Parquet size: files come out smaller).
  Result<std::vector<iceberg::DataFile>> WriteDataFiles(const iceberg::TableMetadata& metadata,
                                                        const iceberg::Schema& schema, const arrow::Table& rows,
                                                        int64_t batch_id) {
    const int64_t n = rows.num_rows();
    std::vector<iceberg::DataFile> files;
    if (n == 0) return files;
    int64_t bytes = 0;
    for (const auto& column : rows.columns()) {
      for (const auto& chunk : column->chunks()) bytes += arrow::util::TotalBufferSize(*chunk->data());
    }
    const int64_t bytes_per_row = std::max<int64_t>(1, bytes / n);
    const int64_t rows_per_file = std::max<int64_t>(1, target_file_size_ / bytes_per_row);
    const std::string dir = iceberg::TablePath(metadata, "data");
    ARROW_RETURN_NOT_OK(fs_->MakeDirs(dir));
    const std::string op = io::RandomUuid();
    int file_no = 0;
    for (int64_t offset = 0; offset < n; offset += rows_per_file) {
      char name[128];
      std::snprintf(name, sizeof(name), "00000-%lld-%s-%05d.parquet", static_cast<long long>(batch_id), op.c_str(),
                    ++file_no);
      auto file = iceberg::WriteDataFile(fs_.get(), io::JoinPath(dir, name), *rows.Slice(offset, rows_per_file), schema);
      if (!file.ok()) {
        for (const auto& f : files) (void)fs_->Delete(io::UriToPath(f.path));
        return file.status();
      }
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
  ARROW_ASSIGN_OR_RAISE(auto table, iceberg::LoadOrCreate(catalog.get(), ref.ident, query_schema));
  return EvolveOrCheck(catalog.get(), ref, std::move(table), query_schema, merge_schema).status();
}

std::string IcebergSinkTableName(const SinkSpec& spec) {
  auto ref = iceberg::TableRefFromOptions(OptionMap(spec.options));
  return ref.ok() ? ref->ToString() : spec.options.GetOr("table", spec.options.GetOr("path", ""));
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
  if (!ctx.query_id.empty() && !allow_others) {
    ARROW_ASSIGN_OR_RAISE(auto table, catalog->Load(ref.ident));
    if (table) ARROW_RETURN_NOT_OK(CheckTableOwner(table->metadata, ref.ToString(), ctx.query_id, ctx.checkpoint_dir));
  }
  return std::unique_ptr<Sink>(new IcebergSink(fs, std::move(catalog), std::move(ref), ctx.query_id,
                                               ctx.checkpoint_dir, spec.output_mode == plan::OutputMode::kComplete,
                                               target, merge_schema));
}

}  // namespace sluice::sink
