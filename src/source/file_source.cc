// FileStreamSource: the streaming file source (Spark's FileStreamSource), plus static reads.
//
// Invariants:
//  - A file (absolute path) enters the source log at most once; the seen-set is the whole log,
//    rebuilt on construction, so a restart never re-reads a logged file.
//  - Log entry K is written (create-only) inside LatestOffset before the runtime writes the
//    offsets that refer to it; GetBatch reads the files of the log, never the directory.
//  - An entry written but not yet covered by any offset (crash between the two writes) is
//    covered by the next LatestOffset, before any new listing.
//  - Listing is incremental (IncrementalListing): each batch stats only names it has not seen,
//    and skips directories whose modification time is unchanged; files listed but not yet
//    logged wait in pending_. After a restart the first listing reads every name again and
//    stats only the files the source log does not hold.
//  - Read-ahead (ReadAhead, option readAhead): after a batch's files are decoded, the files the
//    next batch will most likely take are decoded on another thread; the next batch uses that
//    only for exactly its own files, unchanged since. Batches and logs are never affected.
#include "source/file_source.h"

#include <arrow/api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "checkpoint/file_sink_log.h"
#include "plan/expr.h"
#include "source/file_listing.h"
#include "source/file_readers.h"
#include "source/file_source_log.h"
#include "source/file_source_options.h"
#include "source/json_simdjson_reader.h"
#include "source/read_ahead.h"
#include "source/schema_inference.h"
#include "util/log.h"

namespace sluice::source {
namespace {

Result<int64_t> LogOffsetOf(const Offset& offset) {
  if (offset.is_number_integer()) return offset.get<int64_t>();
  if (offset.is_object() && offset.contains("logOffset") && offset["logOffset"].is_number_integer()) {
    return offset["logOffset"].get<int64_t>();
  }
  return Status::Invalid("Invalid file source offset '", offset.dump(), "'; expected {\"logOffset\":<n>}");
}

Offset MakeOffset(int64_t log_offset) { return Offset{{"logOffset", log_offset}}; }

// The schema the source produces: declared, or `value STRING` for text.
std::shared_ptr<arrow::Schema> EffectiveSchema(const plan::SourceSpec& spec) {
  if (spec.schema) return spec.schema;
  if (spec.format == "text") return arrow::schema({arrow::field("value", arrow::utf8())});
  return nullptr;
}

bool IsStringType(const arrow::DataType& t) {
  return t.id() == arrow::Type::STRING || t.id() == arrow::Type::LARGE_STRING;
}

// A MAP whose key is not a string, at any depth of `type` (nullptr when none).
const arrow::MapType* NonStringKeyMap(const arrow::DataType& type) {
  if (type.id() == arrow::Type::MAP) {
    const auto& map = static_cast<const arrow::MapType&>(type);
    if (map.key_type()->id() != arrow::Type::STRING) return &map;
  }
  for (const auto& f : type.fields()) {
    if (const auto* inner = NonStringKeyMap(*f->type())) return inner;
  }
  return nullptr;
}

// MAP columns of a JSON source: read from JSON objects by the simdjson reader only, with string
// keys (as Spark's JSON source), and only beside columns that reader decodes.
Status CheckJsonMapColumns(const arrow::Schema& schema, const FileFormatOptions& format) {
  if (!SchemaHoldsMap(schema)) return Status::OK();
  for (const auto& f : schema.fields()) {
    if (!SchemaHoldsMap(*arrow::schema({f}))) continue;
    if (const auto* map = NonStringKeyMap(*f->type())) {
      return Status::Invalid("Input schema column '", f->name(), "' ", plan::TypeName(*f->type()),
                             " of the JSON source can only contain STRING as a key type for a MAP (",
                             plan::TypeName(*map), " has another key type)");
    }
    if (format.json_reader == JsonReader::kArrow) {
      return Status::Invalid("Column '", f->name(), "' is ", plan::TypeName(*f->type()),
                             ", which the JSON source option jsonReader = arrow cannot read (Arrow's JSON reader has "
                             "no MAP type); remove the option or set jsonReader = simdjson (the default)");
    }
  }
  arrow::FieldVector read;  // the columns the decoder reads: all but the corrupt-record column
  for (const auto& f : schema.fields()) {
    if (f->name() != format.corrupt_column) read.push_back(f);
  }
  return CheckSimdjsonDecodesMapSchema(arrow::Schema(read));
}

Status CheckSchema(const plan::SourceSpec& spec, const FileSourceOptions& opts) {
  const auto& schema = spec.schema;
  if (!schema) return Status::OK();
  if (spec.format == "text") {
    if (schema->num_fields() != 1 || !IsStringType(*schema->field(0)->type())) {
      return Status::Invalid("Text data source supports only a single string column, but the schema is ",
                             schema->ToString());
    }
    return Status::OK();
  }
  int corrupt = schema->GetFieldIndex(opts.format.corrupt_column);
  if ((spec.format == "json" || spec.format == "csv") && corrupt >= 0 &&
      !IsStringType(*schema->field(corrupt)->type())) {
    return Status::Invalid("The field for corrupt records '", opts.format.corrupt_column,
                           "' must be string type and nullable, but it is ", schema->field(corrupt)->type()->ToString());
  }
  if (spec.format == "json") ARROW_RETURN_NOT_OK(CheckJsonMapColumns(*schema, opts.format));
  if (spec.format == "csv") {
    for (const auto& f : schema->fields()) {
      if (arrow::is_nested(f->type()->id())) {
        return Status::Invalid("CSV data source does not support ", f->type()->ToString(), " column '", f->name(), "'");
      }
    }
  }
  return Status::OK();
}

// The fields of `schema` named in `columns` (all of `schema` when unset or when it names them all).
std::shared_ptr<arrow::Schema> ReadSchema(const std::shared_ptr<arrow::Schema>& schema,
                                          const std::optional<std::vector<std::string>>& columns) {
  if (!schema || !columns || columns->size() >= static_cast<size_t>(schema->num_fields())) return schema;
  arrow::FieldVector fields;
  for (const auto& f : schema->fields()) {
    if (std::find(columns->begin(), columns->end(), f->name()) != columns->end()) fields.push_back(f);
  }
  return arrow::schema(std::move(fields));
}

class FileStreamSource final : public Source {
 public:
  FileStreamSource(const plan::SourceSpec& spec, FileSourceOptions opts, const SourceContext& ctx)
      : opts_(std::move(opts)),
        fs_(ctx.fs),
        dir_(io::AbsolutePath(io::UriToPath(spec.path))),
        schema_(EffectiveSchema(spec)),
        // Positional CSV (no header) needs every column to place the ones read.
        read_schema_(opts_.format.format == "csv" && !opts_.format.header ? schema_
                                                                          : ReadSchema(schema_, ctx.read_columns)),
        log_(ctx.fs, ctx.metadata_dir, ctx.min_batches_to_retain),
        listing_(ctx.fs, dir_, FileListingOptions{opts_.path_glob_filter, opts_.recursive}),
        clock_ms_(ctx.clock_ms) {
    if (opts_.format.format == "json" || opts_.format.format == "parquet") opts_.format.filter = ctx.filter;
  }

  Status Init() {
    ARROW_ASSIGN_OR_RAISE(auto info, fs_->Stat(dir_));
    if (!info) return PathDoesNotExist(dir_);
    if (opts_.clean_source != CleanSourceMode::kOff) {
      // As Spark: files a sink's log lists belong to that sink; never delete or move them.
      ARROW_ASSIGN_OR_RAISE(auto committed, checkpoint::ReadCommittedFiles(fs_, dir_));
      if (committed) {
        return Status::Invalid("Option 'cleanSource' cannot be used on ", io::PathToUri(dir_),
                               ", which is the output of a file sink (it has a _spark_metadata log)");
      }
    }
    ARROW_RETURN_NOT_OK(log_.Load());
    for (const auto& [id, files] : log_.entries()) {
      for (const auto& f : files) Remember(f);
    }
    return Status::OK();
  }

  std::string Description() const override { return "FileStreamSource[" + io::PathToUri(dir_) + "]"; }
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  SourceMetrics metrics() const override {
    SourceMetrics m;
    m.malformed_rows = malformed_rows_.load();
    m.files_outstanding = files_outstanding_.load();
    m.custom["numSkippedFiles"] = std::to_string(skipped_files_.load());  // corrupt or missing, skipped
    m.custom["readAheadHits"] = std::to_string(read_ahead_hits_.load());
    m.last_batch_rows_filtered = rows_filtered_.load();
    if (opts_.format.filter) {  // filter pushdown (docs/file-source.md)
      m.custom["numRowsFilteredAtScan"] = std::to_string(rows_filtered_.load());
      if (opts_.format.format == "parquet") {
        m.custom["numRowGroupsSkipped"] = std::to_string(row_groups_skipped_.load());
      }
    }
    return m;
  }

  Status PrepareForAvailableNow() override {
    // The snapshot becomes the pending set, which is then never listed again: each batch costs
    // what it takes, not the size of the snapshot.
    ARROW_ASSIGN_OR_RAISE(auto files, ListAll());
    pending_.clear();
    pending_mtime_.clear();
    for (auto& f : files) {
      if (!seen_.count(f.path)) AddPending(std::move(f));
    }
    available_now_ = true;
    return Status::OK();
  }

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start, bool limited) override {
    int64_t from = -1;
    if (start) {
      ARROW_ASSIGN_OR_RAISE(from, LogOffsetOf(*start));
    }
    std::optional<int64_t> latest = log_.latest_id();
    if (latest && *latest > from) return std::optional<Offset>(MakeOffset(*latest));  // logged, not yet offered
    if (from > latest.value_or(-1)) {
      return Status::Invalid("Offset {\"logOffset\":", from, "} is beyond the source log '", log_.dir(),
                             "', which ends at ", latest.value_or(-1), "; was the checkpoint modified?");
    }
    int64_t listed = 0;
    ARROW_ASSIGN_OR_RAISE(auto candidates, NewFiles(limited, &listed));
    files_outstanding_ = listed;
    if (candidates.empty()) return start;
    std::vector<FileEntry> batch = Cut(std::move(candidates), limited);
    files_outstanding_ = listed - static_cast<int64_t>(batch.size());
    int64_t id = latest.value_or(-1) + 1;
    ARROW_RETURN_NOT_OK(log_.Add(id, batch));
    for (auto& f : batch) {
      f.batch_id = id;
      Remember(f);
      ForgetPending(f.path);
    }
    return std::optional<Offset>(MakeOffset(id));
  }

  Result<std::shared_ptr<arrow::Table>> GetBatch(const std::optional<Offset>& start, const Offset& end) override {
    rows_filtered_ = 0;
    row_groups_skipped_ = 0;
    int64_t from = -1;
    if (start) {
      ARROW_ASSIGN_OR_RAISE(from, LogOffsetOf(*start));
    }
    ARROW_ASSIGN_OR_RAISE(int64_t to, LogOffsetOf(end));
    if (to < from) return Status::Invalid("File source batch end ", to, " is before its start ", from);
    ARROW_ASSIGN_OR_RAISE(auto files, log_.FilesIn(from, to));
    std::vector<std::string> paths;
    std::vector<io::FileInfo> stats;  // of the files read, for the read-ahead's check
    paths.reserve(files.size());
    for (const auto& f : files) {
      ARROW_ASSIGN_OR_RAISE(auto info, fs_->Stat(f.path));
      if (!info && opts_.format.ignore_missing_files) {
        util::LogWarning("Skipped ", io::PathToUri(f.path), " of source log entry ", f.batch_id, " of ", Description(),
                         ": it no longer exists (ignoreMissingFiles)");
        ++skipped_files_;
        continue;
      }
      if (!info) {
        return Status::IOError("File ", io::PathToUri(f.path), " of source log entry ", f.batch_id, " (batch of entries ",
                               from + 1, "..", to, " of ", Description(), ") no longer exists; set the source option "
                               "ignoreMissingFiles = true (or spark.sql.files.ignoreMissingFiles) to skip such files");
      }
      paths.push_back(f.path);
      stats.push_back(std::move(*info));
      stats.back().path = f.path;
    }
    // Only the columns the query reads are decoded (malformed records are then judged on those,
    // as Spark judges them with a pruned schema); the others are nulls nothing reads.
    std::optional<FileReadResult> early = read_ahead_.Take(stats);
    FileReadResult result;
    if (early) {
      result = std::move(*early);
      read_ahead_hits_ = read_ahead_.hits();
    } else {
      ARROW_ASSIGN_OR_RAISE(result, ReadDataFiles(fs_.get(), paths, read_schema_, opts_.format));
    }
    ARROW_RETURN_NOT_OK(StartReadAhead());
    malformed_rows_ += result.malformed_rows;
    skipped_files_ += result.skipped_files;
    rows_filtered_ = result.rows_filtered;
    row_groups_skipped_ = result.row_groups_skipped;
    if (read_schema_ == schema_) return result.table;
    return ConformToSchema(result.table, schema_, dir_);
  }

  bool CommitChangesInput() const override { return opts_.clean_source != CleanSourceMode::kOff; }

  Status Commit(const Offset& end) override {
    if (opts_.clean_source == CleanSourceMode::kOff) return Status::OK();
    ARROW_ASSIGN_OR_RAISE(int64_t to, LogOffsetOf(end));
    if (to <= cleaned_through_) return Status::OK();
    auto files = log_.FilesIn(cleaned_through_, to);
    if (!files.ok()) {
      util::LogWarning("cleanSource skipped for ", Description(), ": ", files.status().ToString());
      return Status::OK();
    }
    for (const auto& f : *files) {
      Status st = CleanFile(f.path);
      if (!st.ok()) util::LogWarning("cleanSource could not clean ", io::PathToUri(f.path), ": ", st.ToString());
    }
    cleaned_through_ = to;
    return Status::OK();
  }

 private:
  void Remember(const FileEntry& f) {
    seen_.insert(f.path);
    newest_seen_ms_ = std::max(newest_seen_ms_, f.timestamp);
  }

  // maxFileAge counts back from the newest file taken so far, but never from later than now: one
  // file dated in the future must not make every later file "too old".
  int64_t AgeReferenceMs() {
    const int64_t now = clock_ms_ ? clock_ms_()
                                  : std::chrono::duration_cast<std::chrono::milliseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count();
    if (newest_seen_ms_ <= now) return newest_seen_ms_;
    if (!warned_future_) {
      util::LogWarning(Description(), ": a file is dated ", (newest_seen_ms_ - now) / 1000,
                       " s in the future; maxFileAge counts back from the current time instead");
      warned_future_ = true;
    }
    return now;
  }

  Result<std::vector<io::FileInfo>> ListAll() {
    return ListDataFiles(fs_, dir_, FileListingOptions{opts_.path_glob_filter, opts_.recursive});
  }

  void ForgetPending(const std::string& path) {
    auto it = pending_mtime_.find(path);
    if (it == pending_mtime_.end()) return;
    pending_.erase(std::make_pair(it->second, path));
    pending_mtime_.erase(it);
  }

  void AddPending(io::FileInfo f) {
    pending_mtime_[f.path] = f.mtime_ms;
    std::pair<int64_t, std::string> key{f.mtime_ms, f.path};
    pending_.emplace(std::move(key), std::move(f));
  }

  // Brings pending_ up to date with the directory (incremental listing: new names only).
  Status RefreshPending() {
    std::vector<io::FileInfo> added;
    std::vector<std::string> removed;
    ARROW_RETURN_NOT_OK(listing_.Update([this](const std::string& path) { return seen_.count(path) > 0; }, &added,
                                        &removed));
    for (const auto& path : removed) ForgetPending(path);
    for (auto& f : added) {
      ForgetPending(f.path);
      AddPending(std::move(f));
    }
    return Status::OK();
  }

  // Unseen files, not older than maxFileAge before the newest file seen, oldest first; `listed`
  // is how many there are. From the pending set (kept in order) only what a batch can take is
  // copied: at most maxFilesPerTrigger files when limited (the newest ones with latestFirst).
  // With refresh = false (the read-ahead's guess), the directory is not listed again.
  Result<std::vector<io::FileInfo>> NewFiles(bool limited, int64_t* listed, bool refresh = true) {
    const bool age_limit = opts_.max_file_age_enabled() && !seen_.empty();
    const int64_t min_mtime = age_limit ? AgeReferenceMs() - opts_.max_file_age_ms : INT64_MIN;
    std::vector<io::FileInfo> out;
    if (!available_now_ && refresh) {
      ARROW_ASSIGN_OR_RAISE(auto sink_log, fs_->Stat(io::JoinPath(dir_, checkpoint::kSparkMetadataDir)));
      sink_output_ = sink_log && sink_log->is_dir;
    }
    if (available_now_ || !sink_output_) {
      if (refresh && !available_now_) ARROW_RETURN_NOT_OK(RefreshPending());
      // The age limit only ever moves forward: a file too old now stays too old.
      while (!pending_.empty() && pending_.begin()->first.first < min_mtime) {
        pending_mtime_.erase(pending_.begin()->first.second);
        pending_.erase(pending_.begin());
      }
      *listed = static_cast<int64_t>(pending_.size());
      size_t want = pending_.size();
      if (limited && opts_.max_files_per_trigger) want = std::min<size_t>(want, *opts_.max_files_per_trigger);
      out.reserve(want);
      if (opts_.latest_first) {
        for (auto it = pending_.rbegin(); it != pending_.rend() && out.size() < want; ++it) out.push_back(it->second);
        std::reverse(out.begin(), out.end());
      } else {
        for (auto it = pending_.begin(); it != pending_.end() && out.size() < want; ++it) out.push_back(it->second);
      }
      return out;
    }
    if (!refresh) return out;  // a file sink's output: listed only when a batch is decided
    ARROW_ASSIGN_OR_RAISE(auto all, ListAll());  // the files its log lists
    for (auto& f : all) {
      if (f.mtime_ms < min_mtime || seen_.count(f.path)) continue;
      out.push_back(std::move(f));
    }
    std::sort(out.begin(), out.end(), [](const io::FileInfo& a, const io::FileInfo& b) {
      return a.mtime_ms != b.mtime_ms ? a.mtime_ms < b.mtime_ms : a.path < b.path;
    });
    *listed = static_cast<int64_t>(out.size());
    return out;
  }

  // The next batch of `candidates` (oldest first): newest first with latestFirst; at most
  // maxFilesPerTrigger files / maxBytesPerTrigger bytes (but always one file) when limited.
  std::vector<FileEntry> Cut(std::vector<io::FileInfo> candidates, bool limited) const {
    if (opts_.latest_first) std::reverse(candidates.begin(), candidates.end());
    size_t take = candidates.size();
    if (limited && opts_.max_files_per_trigger) {
      take = std::min<size_t>(take, static_cast<size_t>(*opts_.max_files_per_trigger));
    } else if (limited && opts_.max_bytes_per_trigger) {
      int64_t bytes = candidates[0].size;
      take = 1;
      while (take < candidates.size() && bytes + candidates[take].size <= *opts_.max_bytes_per_trigger) {
        bytes += candidates[take++].size;
      }
    }
    std::vector<FileEntry> out;
    out.reserve(take);
    for (size_t i = 0; i < take; ++i) out.push_back(FileEntry{candidates[i].path, candidates[i].mtime_ms, 0});
    return out;
  }

  // Starts decoding the files the next batch will take if nothing new arrives first: only when a
  // batch is limited (maxFilesPerTrigger / maxBytesPerTrigger; otherwise the next batch takes
  // whatever arrives by then) and the files' mere skipping could not log a warning twice.
  Status StartReadAhead() {
    if (!opts_.read_ahead || !opts_.has_limit() || opts_.format.ignore_corrupt_files ||
        opts_.format.ignore_missing_files) {
      return Status::OK();
    }
    int64_t listed = 0;
    ARROW_ASSIGN_OR_RAISE(auto candidates, NewFiles(/*limited=*/true, &listed, /*refresh=*/false));
    if (candidates.empty()) return Status::OK();
    std::vector<std::string> paths;
    for (auto& f : Cut(std::move(candidates), /*limited=*/true)) paths.push_back(std::move(f.path));
    read_ahead_.Start(fs_.get(), std::move(paths),
                      [fs = fs_, schema = read_schema_, format = opts_.format](const std::vector<std::string>& p) {
                        return ReadDataFiles(fs.get(), p, schema, format, ReadAheadExecutor());
                      });
    return Status::OK();
  }

  Status CleanFile(const std::string& path) {
    ARROW_ASSIGN_OR_RAISE(auto info, fs_->Stat(path));
    if (!info) return Status::OK();  // already cleaned (e.g. before a restart)
    if (opts_.clean_source == CleanSourceMode::kDelete) return fs_->Delete(path);
    std::string target = opts_.archive_dir + path;  // <archive>/<original absolute path>
    ARROW_RETURN_NOT_OK(fs_->MakeDirs(target.substr(0, target.find_last_of('/'))));
    return fs_->Rename(path, target);
  }

  FileSourceOptions opts_;
  std::shared_ptr<io::FileSystem> fs_;
  std::string dir_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<arrow::Schema> read_schema_;  // schema_, or the part of it the query reads
  FileSourceLog log_;
  std::unordered_set<std::string> seen_;
  IncrementalListing listing_;
  // Listed, not yet logged: by (mtime, path), the order batches take them in; and mtime by path.
  std::map<std::pair<int64_t, std::string>, io::FileInfo> pending_;
  std::unordered_map<std::string, int64_t> pending_mtime_;
  int64_t newest_seen_ms_ = INT64_MIN;
  std::function<int64_t()> clock_ms_;  // may be empty: the system clock
  bool warned_future_ = false;
  bool available_now_ = false;  // pending_ holds the snapshot Trigger.AvailableNow started from
  int64_t cleaned_through_ = -1;
  std::atomic<int64_t> malformed_rows_{0};
  std::atomic<int64_t> skipped_files_{0};  // ignoreCorruptFiles / ignoreMissingFiles
  std::atomic<int64_t> files_outstanding_{0};
  std::atomic<int64_t> rows_filtered_{0};       // last batch: by the pushed filter, while decoding
  std::atomic<int64_t> row_groups_skipped_{0};  // last batch: Parquet row groups the pushed filter rules out
  bool sink_output_ = false;  // the directory is a file sink's output (its log decides the files)
  std::atomic<int64_t> read_ahead_hits_{0};
  ReadAhead read_ahead_;  // last: its thread finishes before anything it reads is destroyed
};

}  // namespace

Result<std::vector<io::FileInfo>> ListStaticFiles(const plan::SourceSpec& spec, const FileSourceOptions& opts,
                                                  const std::shared_ptr<io::FileSystem>& fs) {
  std::string path = io::AbsolutePath(io::UriToPath(spec.path));
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(path));
  if (!info) return PathDoesNotExist(path);
  if (!info->is_dir) {
    info->path = path;
    return std::vector<io::FileInfo>{*info};
  }
  ARROW_ASSIGN_OR_RAISE(auto files, ListDataFiles(fs, path, FileListingOptions{opts.path_glob_filter, opts.recursive}));
  std::sort(files.begin(), files.end(), [](const io::FileInfo& a, const io::FileInfo& b) { return a.path < b.path; });
  return files;
}

namespace {

// The files a static read of `spec` covers, in path order.
Result<std::vector<std::string>> StaticFiles(const plan::SourceSpec& spec, const FileSourceOptions& opts,
                                             const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_ASSIGN_OR_RAISE(auto files, ListStaticFiles(spec, opts, fs));
  std::vector<std::string> out;
  out.reserve(files.size());
  for (const auto& f : files) out.push_back(f.path);
  return out;
}

Result<std::shared_ptr<arrow::Schema>> InferFromFiles(const plan::SourceSpec& spec, const FileSourceOptions& opts,
                                                      const std::shared_ptr<io::FileSystem>& fs,
                                                      const std::vector<std::string>& files) {
  if (auto schema = EffectiveSchema(spec)) return schema;
  return InferSchemaOfFiles(spec, opts, fs, files);
}

}  // namespace

Status ValidateFileSourceSpec(const plan::SourceSpec& spec) {
  if (spec.path.empty()) return Status::Invalid("The ", spec.format, " file source needs a path");
  ARROW_ASSIGN_OR_RAISE(auto opts, ParseFileSourceOptions(spec));
  if (spec.streaming && !spec.schema && spec.format != "text") {
    return Status::Invalid(
        "Schema must be specified when creating a streaming source DataFrame for format ", spec.format,
        ". If some files already exist in the directory, then depending on the file format you may be able to "
        "create a static DataFrame on that directory with 'read().format(\"",
        spec.format, "\").load(directory)' and infer schema from it, or set spark.sql.streaming.schemaInference = true "
        "to have the stream infer it so when it is defined.");
  }
  return CheckSchema(spec, opts);
}

Result<std::unique_ptr<Source>> MakeFileStreamSource(const plan::SourceSpec& spec, const SourceContext& ctx) {
  ARROW_RETURN_NOT_OK(ValidateFileSourceSpec(spec));
  if (!ctx.fs) return Status::Invalid("File source needs a filesystem");
  if (ctx.metadata_dir.empty()) return Status::Invalid("File source needs a metadata directory for its log");
  ARROW_ASSIGN_OR_RAISE(auto opts, ParseFileSourceOptions(spec));
  auto source = std::make_unique<FileStreamSource>(spec, std::move(opts), ctx);
  ARROW_RETURN_NOT_OK(source->Init());
  return std::unique_ptr<Source>(std::move(source));
}

Result<std::shared_ptr<arrow::Table>> ReadFilesStatic(const plan::SourceSpec& spec,
                                                      const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_RETURN_NOT_OK(ValidateFileSourceSpec(spec));
  ARROW_ASSIGN_OR_RAISE(auto opts, ParseFileSourceOptions(spec));
  ARROW_ASSIGN_OR_RAISE(auto files, StaticFiles(spec, opts, fs));
  ARROW_ASSIGN_OR_RAISE(auto schema, InferFromFiles(spec, opts, fs, files));
  ARROW_ASSIGN_OR_RAISE(auto result, ReadDataFiles(fs.get(), files, schema, opts.format));
  return result.table;
}

Result<std::shared_ptr<arrow::Schema>> InferFilesSchema(const plan::SourceSpec& spec,
                                                        const std::shared_ptr<io::FileSystem>& fs) {
  ARROW_RETURN_NOT_OK(ValidateFileSourceSpec(spec));
  ARROW_ASSIGN_OR_RAISE(auto opts, ParseFileSourceOptions(spec));
  if (auto schema = EffectiveSchema(spec)) return schema;
  ARROW_ASSIGN_OR_RAISE(auto files, StaticFiles(spec, opts, fs));
  return InferFromFiles(spec, opts, fs, files);
}

}  // namespace sluice::source
