// StateStoreId and the choice of provider by name.
#include "state/state_store.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "util/strings.h"

namespace sluice::state {

Status StateStore::Update(std::string_view key, const UpdateFn& fn) {
  ARROW_ASSIGN_OR_RAISE(auto old, Get(key));
  std::string value;
  ARROW_RETURN_NOT_OK(old ? fn(std::string_view(*old), &value) : fn(std::nullopt, &value));
  return Put(key, value);
}

Status StateStore::ForEachWithPrefix(
    std::string_view prefix, const std::function<Status(std::string_view key, std::string_view value)>& fn) const {
  bool past = false;
  const Status walked = ForEach([&](std::string_view k, std::string_view v) -> Status {
    const std::string_view head = k.substr(0, prefix.size());
    if (head < prefix) return Status::OK();
    if (head > prefix) {
      past = true;
      return Status::Cancelled("stop");
    }
    return fn(k, v);
  });
  return past ? Status::OK() : walked;
}

Status StateStore::ForEachRemovingInRange(
    std::string_view from, std::string_view up_to,
    const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn) {
  return ForEachRemoving([&](std::string_view k, std::string_view v) -> Result<KeyAction> {
    if (k < from) return KeyAction::kKeep;
    if (k.substr(0, up_to.size()) > up_to) return KeyAction::kStop;
    return fn(k, v);
  });
}

Status StateStore::ForEachRemoving(
    const std::function<Result<KeyAction>(std::string_view key, std::string_view value)>& fn) {
  std::string doomed;  // the keys to remove, back to back
  std::vector<size_t> ends;
  Status failed;
  const Status walked = ForEach([&](std::string_view k, std::string_view v) -> Status {
    Result<KeyAction> action = fn(k, v);
    if (!action.ok()) {
      failed = action.status();
      return Status::Cancelled("stop");
    }
    if (*action == KeyAction::kStop) return Status::Cancelled("stop");
    if (*action == KeyAction::kRemove) {
      doomed.append(k);
      ends.push_back(doomed.size());
    }
    return Status::OK();
  });
  if (!walked.ok() && !walked.IsCancelled()) return walked;
  size_t begin = 0;
  for (const size_t end : ends) {
    ARROW_RETURN_NOT_OK(Remove(std::string_view(doomed).substr(begin, end - begin)));
    begin = end;
  }
  return failed;
}

std::string StateStoreId::Dir() const {
  std::string dir = io::JoinPath(io::JoinPath(io::JoinPath(checkpoint_dir, "state"), std::to_string(operator_id)),
                                 std::to_string(partition_id));
  return store_name == "default" ? dir : io::JoinPath(dir, store_name);
}

std::string StateStoreId::Describe() const {
  std::string s = "operator " + std::to_string(operator_id) + " partition " + std::to_string(partition_id);
  return store_name == "default" ? s : s + " store '" + store_name + "'";
}

namespace {

constexpr const char* kSparkFileProvider = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider";
constexpr const char* kSparkRocksDBProvider = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider";

}  // namespace

Result<std::string> NormalizeStateStoreProvider(const std::string& kind) {
  const std::string lower = util::ToLower(kind);
  if (lower == "file" || kind == kSparkFileProvider) return std::string("file");
  if (lower == "rocksdb" || kind == kSparkRocksDBProvider) return std::string("rocksdb");
  return Status::Invalid("Unknown state store provider '", kind, "' (", kStateStoreProviderConf,
                         "): valid values are 'file', 'rocksdb', '", kSparkFileProvider, "' and '",
                         kSparkRocksDBProvider, "'");
}

Result<std::unique_ptr<StateStoreProvider>> OpenStateStoreProvider(const std::string& kind,
                                                                   std::shared_ptr<io::FileSystem> fs,
                                                                   StateStoreId id, StateStoreOptions options) {
  ARROW_ASSIGN_OR_RAISE(std::string normalized, NormalizeStateStoreProvider(kind));
  if (normalized == "rocksdb") return OpenRocksDBStateStoreProvider(std::move(fs), std::move(id), std::move(options));
  return OpenFileStateStoreProvider(std::move(fs), std::move(id), std::move(options));
}

}  // namespace sluice::state
