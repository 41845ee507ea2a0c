// A FileSystem wrapper for tests that counts the calls made through the seam (per operation,
// and the paths of Stat/ReadFile calls), forwarding everything to a base filesystem; it can
// also hold its deletes until a test releases them (HoldDeletes).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/file_system.h"

namespace sluice::testing {

class CountingFileSystem final : public io::FileSystem {
 public:
  explicit CountingFileSystem(std::shared_ptr<io::FileSystem> base = io::LocalFileSystem()) : base_(std::move(base)) {}

  using io::FileSystem::Rename;
  using io::FileSystem::WriteAtomic;

  Result<std::string> ReadFile(const std::string& path) override {
    Count("ReadFile", path);
    return base_->ReadFile(path);
  }
  Result<std::vector<io::FileInfo>> List(const std::string& dir) override {
    Count("List", dir);
    return base_->List(dir);
  }
  Result<std::vector<io::DirEntry>> ListNames(const std::string& dir) override {
    Count("ListNames", dir);
    return base_->ListNames(dir);
  }
  Result<std::optional<io::FileInfo>> Stat(const std::string& path) override {
    Count("Stat", path);
    return base_->Stat(path);
  }
  Status MakeDirs(const std::string& dir) override { return base_->MakeDirs(dir); }
  Status Delete(const std::string& path) override {
    Count("Delete", path);
    {
      // Held: waits to be released, or 5 s (a test whose code deletes on its own thread then fails, not hangs).
      std::unique_lock<std::mutex> lock(mu_);
      released_.wait_for(lock, std::chrono::seconds(5), [&] { return !hold_deletes_; });
    }
    return base_->Delete(path);
  }
  Status DeleteTree(const std::string& path) override { return base_->DeleteTree(path); }
  Status Rename(const std::string& from, const std::string& to, io::EntrySync sync) override {
    Count(sync == io::EntrySync::kNow ? "Rename" : "RenameDeferred", to);
    return base_->Rename(from, to, sync);
  }
  Status WriteAtomic(const std::string& path, const std::string& data, bool overwrite, io::EntrySync sync) override {
    Count(sync == io::EntrySync::kNow ? "WriteAtomic" : "WriteAtomicDeferred", path);
    return base_->WriteAtomic(path, data, overwrite, sync);
  }
  Status CreateExclusive(const std::string& path, const std::string& data) override {
    Count("CreateExclusive", path);
    return base_->CreateExclusive(path, data);
  }
  Status SyncDeferred() override {
    Count("SyncDeferred", "");
    return base_->SyncDeferred();
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutputStream(const std::string& path) override {
    Count("OpenOutputStream", path);
    return base_->OpenOutputStream(path);
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFile(const std::string& path, io::EntrySync sync) override {
    Count("OpenNewFile", path);
    return base_->OpenNewFile(path, sync);
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenNewFileUncached(const std::string& path, io::EntrySync sync) override {
    Count("OpenNewFileUncached", path);
    return base_->OpenNewFileUncached(path, sync);
  }
  void PrepareEntries() override { base_->PrepareEntries(); }
  void WillRead(const std::string& path, int64_t bytes) override {
    Count("WillRead", path);
    base_->WillRead(path, bytes);
  }
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInputFile(const std::string& path) override {
    Count("OpenInputFile", path);
    return base_->OpenInputFile(path);
  }
  Status FaultPoint(const std::string& name) override { return base_->FaultPoint(name); }

  /// Calls of `op` since the last Reset(), optionally only those whose path contains `substring`.
  int Calls(const std::string& op, const std::string& substring = "") const {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    auto it = calls_.find(op);
    if (it == calls_.end()) return 0;
    for (const auto& p : it->second) n += p.find(substring) != std::string::npos;
    return n;
  }
  /// While held, each Delete waits before it deletes (a test sees what runs meanwhile).
  void HoldDeletes(bool hold) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      hold_deletes_ = hold;
    }
    released_.notify_all();
  }
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    calls_.clear();
  }

 private:
  void Count(const std::string& op, const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    calls_[op].push_back(path);
  }

  std::shared_ptr<io::FileSystem> base_;
  mutable std::mutex mu_;
  std::condition_variable released_;
  bool hold_deletes_ = false;
  std::map<std::string, std::vector<std::string>> calls_;
};

}  // namespace sluice::testing
