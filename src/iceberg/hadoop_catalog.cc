// Filesystem catalog commits (spec "File System Tables"): claim v<N+1>.metadata.json with a
// create-only atomic write; AlreadyExists means another writer committed N+1 first.
#include "iceberg/hadoop_catalog.h"
#include "iceberg/location.h"
#include "util/numbers.h"

#include <cstdlib>

namespace sluice::iceberg {
namespace {

constexpr const char* kHintFile = "version-hint.text";

std::string VersionFile(int64_t v) { return "v" + std::to_string(v) + ".metadata.json"; }

// N of ".../vN.metadata.json", or -1.
int64_t VersionOf(const std::string& name) {
  auto slash = name.find_last_of('/');
  std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
  const std::string suffix = ".metadata.json";
  if (base.size() <= suffix.size() + 1 || base[0] != 'v') return -1;
  if (base.compare(base.size() - suffix.size(), suffix.size(), suffix) != 0) return -1;
  std::string digits = base.substr(1, base.size() - suffix.size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  auto version = util::ParseInt64(digits, name);
  return version.ok() ? *version : -1;
}

}  // namespace

std::string HadoopCatalog::TableDir(const TableIdent& ident) const {
  std::string dir = warehouse_;
  for (const auto& part : ident.ns) dir = io::JoinPath(dir, part);
  return io::JoinPath(dir, ident.name);
}

Result<std::optional<LoadedTable>> HadoopCatalog::Load(const TableIdent& ident) {
  const std::string meta_dir = io::JoinPath(TableDir(ident), "metadata");
  ARROW_ASSIGN_OR_RAISE(auto dir_info, fs_->Stat(meta_dir));
  if (!dir_info) return std::optional<LoadedTable>();
  int64_t hint = -1;
  auto hint_text = fs_->ReadFile(io::JoinPath(meta_dir, kHintFile));
  if (hint_text.ok()) {
    char* end = nullptr;
    long long v = std::strtoll(hint_text->c_str(), &end, 10);
    if (end != hint_text->c_str()) hint = v;
  }
  int64_t version = -1;
  if (hint > 0) {
    ARROW_ASSIGN_OR_RAISE(auto at_hint, fs_->Stat(io::JoinPath(meta_dir, VersionFile(hint))));
    if (at_hint) version = hint;
  }
  if (version < 0) {  // no usable hint: the highest version present
    ARROW_ASSIGN_OR_RAISE(auto entries, fs_->List(meta_dir));
    for (const auto& e : entries) version = std::max(version, VersionOf(e.name));
  }
  if (version < 0) return std::optional<LoadedTable>();
  while (true) {  // newer commits than the hint says
    ARROW_ASSIGN_OR_RAISE(auto next, fs_->Stat(io::JoinPath(meta_dir, VersionFile(version + 1))));
    if (!next) break;
    ++version;
  }
  if (version != hint) {
    (void)fs_->WriteAtomic(io::JoinPath(meta_dir, kHintFile), std::to_string(version), /*overwrite=*/true);
  }
  const std::string path = io::JoinPath(meta_dir, VersionFile(version));
  ARROW_ASSIGN_OR_RAISE(auto text, fs_->ReadFile(path));
  ARROW_ASSIGN_OR_RAISE(auto metadata, TableMetadata::Parse(text, path));
  std::string uri = FileUriFor(fs_.get(), metadata.location, path);
  return std::optional<LoadedTable>(LoadedTable{std::move(metadata), std::move(uri)});
}

Result<LoadedTable> HadoopCatalog::Create(const TableIdent& ident, const Schema& schema,
                                          const std::map<std::string, std::string>& properties,
                                          const PartitionSpec& spec) {
  const std::string dir = TableDir(ident);
  const std::string meta_dir = io::JoinPath(dir, "metadata");
  ARROW_RETURN_NOT_OK(fs_->MakeDirs(meta_dir));
  TableMetadata metadata = NewTableMetadata(FileUri(dir), schema, properties, NowMs(), spec);
  const std::string path = io::JoinPath(meta_dir, VersionFile(1));
  Status st = fs_->WriteAtomic(path, metadata.ToJsonText(), /*overwrite=*/false);
  if (st.IsAlreadyExists()) {
    return Status::AlreadyExists("Iceberg table ", name_, ".", ident.ToString(), " already exists at ",
                                 FileUri(dir));
  }
  ARROW_RETURN_NOT_OK(st);
  (void)fs_->WriteAtomic(io::JoinPath(meta_dir, kHintFile), "1", /*overwrite=*/true);
  return LoadedTable{std::move(metadata), FileUri(path)};
}

Result<LoadedTable> HadoopCatalog::Commit(const TableIdent& ident, const LoadedTable& base, TableMetadata updated) {
  const int64_t version = VersionOf(base.metadata_location);
  if (version < 0) {
    return Status::Invalid("Iceberg table ", ident.ToString(), ": base metadata ", base.metadata_location,
                           " is not a vN.metadata.json file");
  }
  const std::string meta_dir = io::JoinPath(TableDir(ident), "metadata");
  const std::string path = io::JoinPath(meta_dir, VersionFile(version + 1));
  // The claim below writes the file and makes it current in one step; this point stands for
  // "metadata written, not current" (the state just before the link()).
  ARROW_RETURN_NOT_OK(fs_->FaultPoint("iceberg_after_metadata_file"));
  Status st = fs_->WriteAtomic(path, updated.ToJsonText(), /*overwrite=*/false);
  if (st.IsAlreadyExists()) {
    return CommitConflict("Iceberg table " + name_ + "." + ident.ToString() + ": version " +
                          std::to_string(version + 1) + " was committed by another writer");
  }
  ARROW_RETURN_NOT_OK(st);
  ARROW_RETURN_NOT_OK(fs_->FaultPoint("iceberg_after_catalog_commit"));
  (void)fs_->WriteAtomic(io::JoinPath(meta_dir, kHintFile), std::to_string(version + 1), /*overwrite=*/true);
  std::string uri = FileUriFor(fs_.get(), updated.location, path);
  return LoadedTable{std::move(updated), std::move(uri)};
}

Result<std::vector<std::string>> HadoopCatalog::ListTables(const std::vector<std::string>& ns) {
  std::string dir = warehouse_;
  for (const auto& part : ns) dir = io::JoinPath(dir, part);
  std::vector<std::string> tables;
  auto entries = fs_->List(dir);
  if (!entries.ok()) return tables;
  for (const auto& e : *entries) {
    if (!e.is_dir) continue;
    ARROW_ASSIGN_OR_RAISE(auto meta, fs_->Stat(io::JoinPath(e.path, "metadata")));
    if (meta && meta->is_dir) tables.push_back(e.name);
  }
  return tables;
}

}  // namespace sluice::iceberg
