// Session, DataStreamReader and DataFrameReader: from user options to scan plans.
#include "sluice/session.h"

#include <arrow/api.h>

#include <algorithm>

#include "io/file_system.h"
#include "plan/logical_plan.h"
#include "runtime/query_registry.h"
#include "sink/sink.h"
#include "source/file_source.h"
#include "source/iceberg_scan.h"
#include "source/source.h"

namespace sluice {

std::shared_ptr<Session> Session::Make() { return Make(io::LocalFileSystem()); }

std::shared_ptr<Session> Session::Make(std::shared_ptr<io::FileSystem> fs) {
  return std::shared_ptr<Session>(new Session(std::move(fs)));
}

Session::Session(std::shared_ptr<io::FileSystem> fs)
    : fs_(std::move(fs)),
      memory_tables_(std::make_unique<sink::MemoryTables>()),
      registry_(std::make_shared<runtime::QueryRegistry>()) {}

Session::~Session() = default;

DataStreamReader Session::readStream() { return DataStreamReader(shared_from_this()); }
DataFrameReader Session::read() { return DataFrameReader(shared_from_this()); }

void Session::setConf(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mu_);
  conf_[key] = value;
}

std::string Session::conf(const std::string& key, const std::string& def) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = conf_.find(key);
  return it == conf_.end() ? def : it->second;
}

Result<std::shared_ptr<arrow::Table>> Session::memoryTable(const std::string& name) const {
  return memory_tables_->Get(name);
}

namespace {

const std::vector<std::string> kFileFormats = {"json", "csv", "parquet", "text"};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Builds a scan over files; `streaming` selects readStream() vs read().
Result<DataFrame> LoadFiles(const std::shared_ptr<Session>& session, const std::string& format, const std::string& ddl,
                            std::shared_ptr<arrow::Schema> schema, const std::map<std::string, std::string>& options,
                            const std::string& path, bool streaming) {
  const char* api = streaming ? "readStream()" : "read()";
  if (Lower(format) == "iceberg") {  // path = table name
    if (streaming) return Status::NotImplemented("readStream() from an Iceberg table is not supported yet");
    auto conf = [&session](const std::string& key) { return session->conf(key); };
    ARROW_ASSIGN_OR_RAISE(auto spec, source::MakeIcebergScanSpec(path, options, conf));
    ARROW_ASSIGN_OR_RAISE(auto iceberg_schema, source::ResolveSourceSchema(*spec, session->fs()));
    ARROW_ASSIGN_OR_RAISE(auto iceberg_scan, plan::LogicalPlan::Scan(spec, iceberg_schema));
    return DataFrame(session, iceberg_scan);
  }
  if (format.empty()) {
    return Status::Invalid(api, ".load('", path, "'): no format given; call .format(\"json\"|\"csv\"|\"parquet\"|\"text\")");
  }
  auto spec = std::make_shared<plan::SourceSpec>();
  spec->format = Lower(format);
  if (std::find(kFileFormats.begin(), kFileFormats.end(), spec->format) == kFileFormats.end()) {
    return Status::Invalid("Unknown source format '", format, "' in ", api, ". Valid formats: json, csv, parquet, text");
  }
  if (path.empty()) return Status::Invalid(api, ".load(): the path is empty");
  spec->path = io::AbsolutePath(path);
  spec->streaming = streaming;
  for (const auto& [k, v] : options) spec->options.Set(k, v);
  if (!ddl.empty()) {
    auto parsed = plan::ParseSchemaDDL(ddl);
    if (!parsed.ok()) return parsed.status().WithMessage("Invalid schema for ", api, ": ", parsed.status().message());
    spec->schema = *parsed;
  } else {
    spec->schema = std::move(schema);
  }
  if (spec->format == "text" && !spec->schema) spec->schema = arrow::schema({arrow::field("value", arrow::utf8())});
  ARROW_RETURN_NOT_OK(source::ValidateFileSourceSpec(*spec));
  ARROW_ASSIGN_OR_RAISE(auto info, session->fs()->Stat(spec->path));
  if (!info) {
    return Status::IOError("Path does not exist: '", spec->path, "' (", api, " format ", spec->format, ")");
  }
  std::shared_ptr<arrow::Schema> out_schema = spec->schema;
  if (!out_schema) {
    ARROW_ASSIGN_OR_RAISE(out_schema, source::ResolveSourceSchema(*spec, session->fs()));
  }
  ARROW_ASSIGN_OR_RAISE(auto scan, plan::LogicalPlan::Scan(spec, out_schema));
  return DataFrame(session, scan);
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
DataStreamReader& DataStreamReader::options(const std::map<std::string, std::string>& kv) {
  for (const auto& [k, v] : kv) options_[k] = v;
  return *this;
}
Result<DataFrame> DataStreamReader::load(const std::string& path) {
  if (source::IsStreamOnlyFormat(Lower(format_))) {
    return Status::Invalid("The ", format_, " source takes no path: call load() without one");
  }
  return LoadFiles(session_, format_, ddl_, schema_, options_, path, /*streaming=*/true);
}

Result<DataFrame> DataStreamReader::load() {
  auto spec = std::make_shared<plan::SourceSpec>();
  spec->format = Lower(format_);
  if (!source::IsStreamOnlyFormat(spec->format)) {
    return Status::Invalid("readStream().load() without a path works for rate, rate-micro-batch and socket; the ",
                           format_.empty() ? std::string("(no format)") : format_, " source needs load(path)");
  }
  if (schema_ || !ddl_.empty()) return Status::Invalid("The ", format_, " source has a fixed schema; do not set one");
  spec->streaming = true;
  for (const auto& [k, v] : options_) spec->options.Set(k, v);
  ARROW_RETURN_NOT_OK(source::ValidateGeneratedSourceSpec(*spec));
  ARROW_ASSIGN_OR_RAISE(auto schema, source::ResolveSourceSchema(*spec, session_->fs()));
  spec->schema = schema;
  ARROW_ASSIGN_OR_RAISE(auto scan, plan::LogicalPlan::Scan(spec, schema));
  return DataFrame(session_, scan);
}

DataFrameReader& DataFrameReader::format(const std::string& f) { format_ = f; return *this; }
DataFrameReader& DataFrameReader::schema(const std::string& ddl) { ddl_ = ddl; schema_.reset(); return *this; }
DataFrameReader& DataFrameReader::schema(std::shared_ptr<arrow::Schema> s) { schema_ = std::move(s); ddl_.clear(); return *this; }
DataFrameReader& DataFrameReader::option(const std::string& key, const std::string& value) {
  options_[key] = value;
  return *this;
}
DataFrameReader& DataFrameReader::options(const std::map<std::string, std::string>& kv) {
  for (const auto& [k, v] : kv) options_[k] = v;
  return *this;
}
Result<DataFrame> DataFrameReader::load(const std::string& path) {
  return LoadFiles(session_, format_, ddl_, schema_, options_, path, /*streaming=*/false);
}
Result<DataFrame> DataFrameReader::table(const std::string& name) {
  return LoadFiles(session_, "iceberg", "", nullptr, options_, name, /*streaming=*/false);
}

}  // namespace sluice
