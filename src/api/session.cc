// Session, DataStreamReader and DataFrameReader: from user options to scan plans.
#include "sluice/session.h"

#include <arrow/api.h>


#include "api/access.h"
#include "api/option_text.h"
#include "conf/sql_conf.h"
#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "runtime/query_registry.h"
#include "sink/sink.h"
#include "source/iceberg_scan.h"
#include "source/source.h"
#include "source/source_registry.h"
#include "util/strings.h"

namespace sluice {

struct Session::Impl {
  std::shared_ptr<io::FileSystem> fs;
  std::shared_ptr<sink::MemoryTables> memory_tables = std::make_shared<sink::MemoryTables>();
  std::shared_ptr<runtime::QueryRegistry> registry = std::make_shared<runtime::QueryRegistry>();
  conf::Settings conf;
};

std::shared_ptr<Session> Session::Make() { return detail::Access::MakeSession(io::LocalFileSystem()); }

std::shared_ptr<Session> detail::Access::MakeSession(std::shared_ptr<io::FileSystem> fs) {
  auto impl = std::make_unique<Session::Impl>();
  impl->fs = std::move(fs);
  return std::shared_ptr<Session>(new Session(std::move(impl)));
}

const std::shared_ptr<io::FileSystem>& detail::Access::FileSystemOf(const Session& s) { return s.impl_->fs; }
const std::shared_ptr<runtime::QueryRegistry>& detail::Access::RegistryOf(const Session& s) {
  return s.impl_->registry;
}
const std::shared_ptr<sink::MemoryTables>& detail::Access::MemoryTablesOf(const Session& s) {
  return s.impl_->memory_tables;
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

// Queries hold the memory tables and refer to the registry weakly, but they must not keep
// running for a session nobody can reach: stop them first.
Session::~Session() { impl_->registry->StopAll(); }

DataStreamReader Session::readStream() { return DataStreamReader(shared_from_this()); }
DataFrameReader Session::read() { return DataFrameReader(shared_from_this()); }

void Session::setConf(const std::string& key, const std::string& value) { impl_->conf.Set(key, value); }

std::string Session::conf(const std::string& key, const std::string& def) const { return impl_->conf.GetOr(key, def); }

StreamingQueryManager Session::streams() const { return detail::Access::MakeManager(impl_->registry); }

Result<std::shared_ptr<arrow::Table>> Session::memoryTable(const std::string& name) const {
  return impl_->memory_tables->Get(name);
}

namespace {

// Builds a scan over a source read from a path (files) or by name (a catalog table);
// `streaming` selects readStream() vs read().
Result<DataFrame> LoadPath(const std::shared_ptr<Session>& session, const std::string& format, const std::string& ddl,
                           std::shared_ptr<arrow::Schema> schema, const std::map<std::string, std::string>& options,
                           const std::string& path, bool streaming) {
  const char* api = streaming ? "readStream()" : "read()";
  if (format.empty()) {
    return Status::Invalid(api, ".load('", path, "'): no format given; call .format(\"",
                           source::SourceKindList(/*files_only=*/true), "\") (one of them)");
  }
  ARROW_ASSIGN_OR_RAISE(const source::SourceKind* kind, source::LookupSourceKind(format, api));
  if (!kind->user_visible) {
    return Status::Invalid("Unknown source format '", format, "' in ", api, ". Valid formats: ", source::SourceKindList());
  }
  if (streaming && !kind->streaming) {
    return Status::NotImplemented("readStream() from the ", kind->name, " source is not supported yet; use read()");
  }
  if (!streaming && !kind->batch) {
    return Status::Invalid("The ", kind->name, " source can only be read as a stream: use readStream()");
  }
  if (kind->path == source::SourceKind::Path::kNone) {
    return Status::Invalid("The ", format, " source takes no path: call load() without one");
  }
  const auto& fs = api::FileSystemOf(*session);
  if (kind->path == source::SourceKind::Path::kTableName) {  // path = the table's name
    auto conf = [&session](const std::string& key) { return session->conf(key); };
    ARROW_ASSIGN_OR_RAISE(auto spec, source::MakeIcebergScanSpec(path, options, conf));
    ARROW_ASSIGN_OR_RAISE(auto table_schema, kind->schema(*spec, fs));
    ARROW_ASSIGN_OR_RAISE(auto table_scan, plan::LogicalPlan::Scan(spec, table_schema));
    return api::MakeDataFrame(session, table_scan);
  }
  auto spec = std::make_shared<plan::SourceSpec>();
  spec->format = kind->name;
  if (path.empty()) return Status::Invalid(api, ".load(): the path is empty");
  spec->path = io::AbsolutePath(path);
  spec->streaming = streaming;
  spec->reads_files = kind->path == source::SourceKind::Path::kDirectory;
  for (const auto& [k, v] : options) spec->options.Set(k, v);
  if (spec->reads_files) {  // Spark's session-wide defaults of two per-source options
    for (const auto& [option, entry] : {std::pair{"ignoreCorruptFiles", conf::kIgnoreCorruptFiles},
                                        std::pair{"ignoreMissingFiles", conf::kIgnoreMissingFiles}}) {
      const std::string value = session->conf(entry.key);
      if (!spec->options.Get(option) && !value.empty()) spec->options.Set(option, value);
    }
  }
  if (!ddl.empty()) {
    auto parsed = plan::ParseSchemaDDL(ddl);
    if (!parsed.ok()) return parsed.status().WithMessage("Invalid schema for ", api, ": ", parsed.status().message());
    spec->schema = *parsed;
  } else {
    spec->schema = std::move(schema);
  }
  if (spec->format == "text" && !spec->schema) spec->schema = arrow::schema({arrow::field("value", arrow::utf8())});
  if (streaming && spec->reads_files && !spec->schema) {
    // Spark's spark.sql.streaming.schemaInference: the schema a batch read of the directory
    // infers now, fixed for the stream (a restarted query infers it again).
    std::string infer = util::ToLower(session->conf(conf::kStreamingSchemaInference.key));
    if (infer != "true" && infer != "false" && !infer.empty()) {
      return Status::Invalid("Invalid value '", session->conf(conf::kStreamingSchemaInference.key), "' for ",
                             conf::kStreamingSchemaInference.key, ": must be true or false");
    }
    if (infer == "true") {
      plan::SourceSpec batch = *spec;
      batch.streaming = false;
      ARROW_ASSIGN_OR_RAISE(spec->schema, kind->schema(batch, fs));
    }
  }
  if (kind->validate) ARROW_RETURN_NOT_OK(kind->validate(*spec));
  ARROW_ASSIGN_OR_RAISE(auto info, fs->Stat(spec->path));
  if (!info) {
    return Status::IOError("Path does not exist: '", spec->path, "' (", api, " format ", spec->format, ")");
  }
  std::shared_ptr<arrow::Schema> out_schema = spec->schema;
  if (!out_schema) {
    ARROW_ASSIGN_OR_RAISE(out_schema, kind->schema(*spec, fs));
  }
  ARROW_ASSIGN_OR_RAISE(auto scan, plan::LogicalPlan::Scan(spec, out_schema));
  return api::MakeDataFrame(session, scan);
}

}  // namespace

DataStreamReader& DataStreamReader::format(const std::string& f) { format_ = f; return *this; }
DataStreamReader& DataStreamReader::schema(const std::string& ddl) { ddl_ = ddl; schema_.reset(); return *this; }
DataStreamReader& DataStreamReader::schema(std::shared_ptr<arrow::Schema> s) { schema_ = std::move(s); ddl_.clear(); return *this; }
DataStreamReader& DataStreamReader::option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}
DataStreamReader& DataStreamReader::option(const std::string& key, int64_t value) {
  return option(key, std::to_string(value));
}
DataStreamReader& DataStreamReader::option(const std::string& key, double value) {
  return option(key, api::OptionText(value));
}
DataStreamReader& DataStreamReader::option(const std::string& key, bool value) {
  return option(key, api::OptionText(value));
}
DataStreamReader& DataStreamReader::options(const std::map<std::string, std::string>& kv) {
  for (const auto& [k, v] : kv) options_[k] = v;
  return *this;
}
Result<DataFrame> DataStreamReader::load(const std::string& path) {
  return LoadPath(session_, format_, ddl_, schema_, options_, path, /*streaming=*/true);
}

// load() without a path: sources that read no files or tables (rate, socket; kafka also as a batch).
static Result<DataFrame> LoadPathless(const std::shared_ptr<Session>& session, const std::string& format,
                                      bool has_schema, const std::map<std::string, std::string>& options, bool streaming) {
  const source::SourceKind* kind = source::FindSourceKind(format);
  const bool ok = kind && kind->user_visible && kind->path == source::SourceKind::Path::kNone &&
                  (streaming ? kind->streaming : kind->batch);
  if (!ok) {
    std::string pathless;
    for (const auto& name : source::SourceKindNames()) {
      const source::SourceKind* k = source::FindSourceKind(name);
      if (k->path == source::SourceKind::Path::kNone && (streaming ? k->streaming : k->batch)) {
        pathless += (pathless.empty() ? "" : ", ") + name;
      }
    }
    return Status::Invalid(streaming ? "readStream()" : "read()", ".load() without a path works for ", pathless,
                           "; the ", format.empty() ? std::string("(no format)") : format, " source needs load(path)");
  }
  if (has_schema) return Status::Invalid("The ", format, " source has a fixed schema; do not set one");
  auto spec = std::make_shared<plan::SourceSpec>();
  spec->format = kind->name;
  spec->streaming = streaming;
  for (const auto& [k, v] : options) spec->options.Set(k, v);
  if (kind->validate) ARROW_RETURN_NOT_OK(kind->validate(*spec));
  ARROW_ASSIGN_OR_RAISE(auto schema, kind->schema(*spec, api::FileSystemOf(*session)));
  spec->schema = schema;
  ARROW_ASSIGN_OR_RAISE(auto scan, plan::LogicalPlan::Scan(spec, schema));
  return api::MakeDataFrame(session, scan);
}

Result<DataFrame> DataStreamReader::load() {
  return LoadPathless(session_, format_, schema_ || !ddl_.empty(), options_, /*streaming=*/true);
}

DataFrameReader& DataFrameReader::format(const std::string& f) { format_ = f; return *this; }
DataFrameReader& DataFrameReader::schema(const std::string& ddl) { ddl_ = ddl; schema_.reset(); return *this; }
DataFrameReader& DataFrameReader::schema(std::shared_ptr<arrow::Schema> s) { schema_ = std::move(s); ddl_.clear(); return *this; }
DataFrameReader& DataFrameReader::option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}
DataFrameReader& DataFrameReader::option(const std::string& key, int64_t value) {
  return option(key, std::to_string(value));
}
DataFrameReader& DataFrameReader::option(const std::string& key, double value) {
  return option(key, api::OptionText(value));
}
DataFrameReader& DataFrameReader::option(const std::string& key, bool value) {
  return option(key, api::OptionText(value));
}
DataFrameReader& DataFrameReader::options(const std::map<std::string, std::string>& kv) {
  for (const auto& [k, v] : kv) options_[k] = v;
  return *this;
}
Result<DataFrame> DataFrameReader::load(const std::string& path) {
  return LoadPath(session_, format_, ddl_, schema_, options_, path, /*streaming=*/false);
}
Result<DataFrame> DataFrameReader::load() {
  return LoadPathless(session_, format_, schema_ || !ddl_.empty(), options_, /*streaming=*/false);
}
Result<DataFrame> DataFrameReader::table(const std::string& name) {
  return LoadPath(session_, "iceberg", "", nullptr, options_, name, /*streaming=*/false);
}

}  // namespace sluice
