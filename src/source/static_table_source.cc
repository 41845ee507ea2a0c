#include "source/static_table_source.h"

#include <arrow/api.h>

#include "source/file_readers.h"
#include "source/file_source.h"
#include "source/iceberg_scan.h"
#include "source/memory_source.h"
#include "source/source_registry.h"

namespace sluice::source {
namespace {

class StaticTableSource : public Source {
 public:
  StaticTableSource(plan::SourceSpec spec, std::shared_ptr<arrow::Schema> schema, SourceContext ctx)
      : spec_(std::move(spec)), schema_(std::move(schema)), ctx_(std::move(ctx)) {}

  std::string Description() const override { return spec_.Describe(); }
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  bool IsStatic() const override { return true; }

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>&, bool) override {
    ARROW_ASSIGN_OR_RAISE(Offset version, CurrentVersion());
    return std::optional<Offset>(std::move(version));
  }

  Result<std::shared_ptr<arrow::Table>> GetBatch(const std::optional<Offset>&, const Offset& end) override {
    if (cached_ && cached_version_ == end) return cached_;
    ARROW_ASSIGN_OR_RAISE(auto rows, ReadVersion(end));
    if (!rows->schema()->Equals(*schema_, /*check_metadata=*/false)) {
      return Status::Invalid("the static table ", spec_.Describe(), " now has the schema ", rows->schema()->ToString(),
                             " but the query was planned with ", schema_->ToString(),
                             "; restart the query to plan it again");
    }
    cached_version_ = end;
    cached_ = rows;
    return rows;
  }

 private:
  bool ReadsFiles() const {
    const SourceKind* k = FindSourceKind(spec_.format);
    return k && k->file_format();
  }

  // The version the table is at now.
  Result<Offset> CurrentVersion() const {
    if (ReadsFiles()) {
      ARROW_ASSIGN_OR_RAISE(auto opts, ParseFileSourceOptions(spec_));
      ARROW_ASSIGN_OR_RAISE(auto files, ListStaticFiles(spec_, opts, ctx_.fs));
      Offset list = Offset::array();
      for (const auto& f : files) list.push_back(Offset::array({f.path, f.size}));
      return Offset{{"files", std::move(list)}};
    }
    if (spec_.format == "iceberg") {
      ARROW_ASSIGN_OR_RAISE(auto snapshot, IcebergCurrentSnapshotId(spec_, ctx_.fs));
      return Offset{{"snapshot", snapshot ? Offset(*snapshot) : Offset()}};
    }
    if (spec_.format == "memory") return Offset{{"rows", spec_.memory->NumRows()}};
    return Status::NotImplemented("the ", spec_.format, " source cannot be the static side of a stream-static join: "
                                  "sluice records the version of a static table in the offsets log only for files, "
                                  "Iceberg tables and in-memory data");
  }

  // The table's rows at `version` (an offset CurrentVersion returned, maybe in an earlier run).
  Result<std::shared_ptr<arrow::Table>> ReadVersion(const Offset& version) const {
    if (ReadsFiles()) {
      ARROW_ASSIGN_OR_RAISE(auto opts, ParseFileSourceOptions(spec_));
      std::vector<std::string> paths;
      for (const auto& f : version.at("files")) {
        const std::string path = f.at(0).get<std::string>();
        ARROW_ASSIGN_OR_RAISE(auto info, ctx_.fs->Stat(path));
        if (!info || info->size != f.at(1).get<int64_t>()) {
          return Status::Invalid("the static table ", spec_.Describe(), " no longer holds the file ", path,
                                 info ? " as it was" : "", " when this batch was planned (the offsets log records it",
                                 " with ", f.at(1).get<int64_t>(), " bytes); a redone batch must join against the "
                                 "same data. Restore the file, or start the query on a new checkpoint");
        }
        paths.push_back(path);
      }
      ARROW_ASSIGN_OR_RAISE(auto read, ReadDataFiles(ctx_.fs.get(), paths, schema_, opts.format));
      return read.table;
    }
    if (spec_.format == "iceberg") {
      const Offset& id = version.at("snapshot");
      return ReadIcebergSnapshot(spec_, ctx_.fs, id.is_null() ? std::nullopt : std::optional<int64_t>(id.get<int64_t>()));
    }
    if (spec_.format == "memory") return spec_.memory->Slice(0, version.at("rows").get<int64_t>());
    return Status::NotImplemented("static ", spec_.format, " tables are not supported");
  }

  plan::SourceSpec spec_;
  std::shared_ptr<arrow::Schema> schema_;
  SourceContext ctx_;
  Offset cached_version_;
  std::shared_ptr<arrow::Table> cached_;
};

}  // namespace

Result<std::unique_ptr<Source>> MakeStaticTableSource(const plan::SourceSpec& spec,
                                                      std::shared_ptr<arrow::Schema> schema, const SourceContext& ctx) {
  auto source = std::make_unique<StaticTableSource>(spec, std::move(schema), ctx);
  // The version is taken now, so a missing path or an unsupported kind fails at start.
  ARROW_RETURN_NOT_OK(source->LatestOffset(std::nullopt, false).status());
  return std::unique_ptr<Source>(std::move(source));
}

}  // namespace sluice::source
