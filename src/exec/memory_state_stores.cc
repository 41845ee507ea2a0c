// In-memory state for batch queries: the same operators, nothing written anywhere.
#include <map>
#include <mutex>

#include "exec/stateful.h"

namespace sluice::exec {
namespace {

class MemoryStore : public state::StateStore {
 public:
  int64_t version() const override { return 0; }
  Result<std::optional<std::string>> Get(std::string_view key) const override {
    auto it = map_.find(std::string(key));
    if (it == map_.end()) return std::optional<std::string>{};
    return std::optional<std::string>(it->second);
  }
  Status Put(std::string_view key, std::string_view value) override {
    auto [it, inserted] = map_.insert_or_assign(std::string(key), std::string(value));
    (void)it;
    (void)inserted;
    ++updated_;
    return Status::OK();
  }
  Status Remove(std::string_view key) override {
    if (map_.erase(std::string(key))) ++removed_;
    return Status::OK();
  }
  Status ForEach(const std::function<Status(std::string_view, std::string_view)>& fn) const override {
    for (const auto& [k, v] : map_) ARROW_RETURN_NOT_OK(fn(k, v));
    return Status::OK();
  }
  Result<int64_t> Commit() override { return 1; }
  void Abort() override {}
  bool committed() const override { return false; }
  state::StateStoreMetrics metrics() const override {
    state::StateStoreMetrics m;
    m.num_keys = static_cast<int64_t>(map_.size());
    for (const auto& [k, v] : map_) m.memory_used_bytes += static_cast<int64_t>(k.size() + v.size() + 64);
    m.num_rows_updated = updated_;
    m.num_rows_removed = removed_;
    return m;
  }

 private:
  std::map<std::string, std::string> map_;
  int64_t updated_ = 0;
  int64_t removed_ = 0;
};

class MemoryStores : public StateStores {
 public:
  explicit MemoryStores(int n) : n_(n) {}
  int num_partitions() const override { return n_; }
  Result<state::StateStore*> Get(int operator_id, int partition) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = stores_[{operator_id, partition}];
    if (!slot) slot = std::make_unique<MemoryStore>();
    return slot.get();
  }

 private:
  int n_;
  std::mutex mu_;
  std::map<std::pair<int, int>, std::unique_ptr<MemoryStore>> stores_;
};

}  // namespace

std::unique_ptr<StateStores> MakeMemoryStateStores(int num_partitions) {
  return std::make_unique<MemoryStores>(num_partitions < 1 ? 1 : num_partitions);
}

}  // namespace sluice::exec
