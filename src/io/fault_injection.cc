#include "io/fault_injection.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>

#include "util/log.h"
#include "util/numbers.h"

namespace sluice::io {

Result<FaultSpec> FaultSpec::Parse(const std::string& text) {
  FaultSpec spec;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos) return Status::Invalid("fault spec '", text, "': expected key=value, got '", item, "'");
    std::string k = item.substr(0, eq), v = item.substr(eq + 1);
    if (k == "point") {
      spec.point = v;
    } else if (k == "write") {
      spec.path_substring = v;
    } else if (k == "sync") {
      spec.sync_substring = v;
    } else if (k == "list") {
      spec.list_substring = v;
    } else if (k == "hits") {
      ARROW_ASSIGN_OR_RAISE(spec.hits, util::ParseInt32(v, "fault spec '" + text + "': hits"));
    } else if (k == "action") {
      if (v == "exit") spec.action = Action::kExit;
      else if (v == "fail") spec.action = Action::kFail;
      else return Status::Invalid("fault spec '", text, "': action must be exit or fail");
    } else if (k == "code") {
      ARROW_ASSIGN_OR_RAISE(spec.exit_code, util::ParseInt32(v, "fault spec '" + text + "': code"));
    } else {
      return Status::Invalid("fault spec '", text, "': unknown key '", k, "'");
    }
  }
  const int kinds = !spec.point.empty() + !spec.path_substring.empty() + !spec.sync_substring.empty() +
                    !spec.list_substring.empty();
  if (kinds != 1) return Status::Invalid("fault spec '", text, "': give exactly one of point=, write=, sync= or list=");
  return spec;
}

Status FaultInjectingFileSystem::Trigger(const std::string& where) {
  triggered_ = true;
  if (spec_.action == FaultSpec::Action::kExit) {
    util::LogWarning("fault injection: exiting at ", where);
    ::_exit(spec_.exit_code);
  }
  return Status::IOError("injected fault at ", where);
}

Status FaultInjectingFileSystem::FaultPoint(const std::string& name) {
  if (spec_.point.empty() || name != spec_.point) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  if (++point_hits_ == spec_.hits) return Trigger("point " + name);
  return Status::OK();
}

Status FaultInjectingFileSystem::OnWrite(const std::string& path) {
  if (spec_.path_substring.empty() || path.find(spec_.path_substring) == std::string::npos) return Status::OK();
  std::lock_guard<std::mutex> lock(mu_);
  if (++write_hits_ == spec_.hits) return Trigger("write of " + path);
  return Status::OK();
}

Result<std::vector<DirEntry>> FaultInjectingFileSystem::ListNames(const std::string& dir) {
  if (!spec_.list_substring.empty() && dir.find(spec_.list_substring) != std::string::npos) {
    std::lock_guard<std::mutex> lock(mu_);
    if (++list_hits_ == spec_.hits) ARROW_RETURN_NOT_OK(Trigger("listing of " + dir));
  }
  return base_->ListNames(dir);
}

bool FaultInjectingFileSystem::TakeDeferred(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::remove(deferred_dirs_.begin(), deferred_dirs_.end(), dir);
  const bool found = it != deferred_dirs_.end();
  deferred_dirs_.erase(it, deferred_dirs_.end());
  return found;
}

Status FaultInjectingFileSystem::BeforeEntry() {
  std::vector<std::string> dirs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dirs.swap(deferred_dirs_);
  }
  if (spec_.sync_substring.empty()) return Status::OK();
  for (const auto& d : dirs) {
    if (d.find(spec_.sync_substring) == std::string::npos) continue;
    std::lock_guard<std::mutex> lock(mu_);
    if (++sync_hits_ == spec_.hits) {
      deferred_dirs_.insert(deferred_dirs_.end(), dirs.begin(), dirs.end());  // not synced: still owed
      return Trigger("sync of directory " + d);
    }
  }
  return Status::OK();
}

void FaultInjectingFileSystem::Defer(const std::string& parent_dir) {
  std::lock_guard<std::mutex> lock(mu_);
  if (std::find(deferred_dirs_.begin(), deferred_dirs_.end(), parent_dir) == deferred_dirs_.end()) {
    deferred_dirs_.push_back(parent_dir);
  }
}

namespace {
std::string ParentOf(const std::string& path) {
  auto pos = path.find_last_of('/');
  if (pos == std::string::npos) return ".";
  return pos == 0 ? "/" : path.substr(0, pos);
}
}  // namespace

Status FaultInjectingFileSystem::Rename(const std::string& from, const std::string& to, EntrySync sync) {
  ARROW_RETURN_NOT_OK(OnWrite(to));
  // The base syncs every deferred directory but the entry's own (its sync covers them there;
  // with kNone they stay owed).
  const bool owed = TakeDeferred(ParentOf(to));
  ARROW_RETURN_NOT_OK(BeforeEntry());
  ARROW_RETURN_NOT_OK(base_->Rename(from, to, sync));
  if (sync == EntrySync::kDeferred || (sync == EntrySync::kNone && owed)) Defer(ParentOf(to));
  return Status::OK();
}

Status FaultInjectingFileSystem::WriteAtomic(const std::string& path, const std::string& data, bool overwrite,
                                             EntrySync sync) {
  ARROW_RETURN_NOT_OK(OnWrite(path));
  const bool owed = TakeDeferred(ParentOf(path));
  ARROW_RETURN_NOT_OK(BeforeEntry());
  ARROW_RETURN_NOT_OK(base_->WriteAtomic(path, data, overwrite, sync));
  if (sync == EntrySync::kDeferred || (sync == EntrySync::kNone && owed)) Defer(ParentOf(path));
  return Status::OK();
}

Result<bool> FaultInjectingFileSystem::BeforeNaming(const std::string& path) {
  const bool owed = TakeDeferred(ParentOf(path));
  ARROW_RETURN_NOT_OK(BeforeEntry());
  return owed;
}

void FaultInjectingFileSystem::AfterNaming(const std::string& path, EntrySync sync, bool owed) {
  if (sync == EntrySync::kDeferred || (sync == EntrySync::kNone && owed)) Defer(ParentOf(path));
}

Status FaultInjectingFileSystem::CreateExclusive(const std::string& path, const std::string& data) {
  ARROW_RETURN_NOT_OK(OnWrite(path));
  ARROW_RETURN_NOT_OK(BeforeEntry());
  return base_->CreateExclusive(path, data);
}

Status FaultInjectingFileSystem::SyncDeferred() {
  ARROW_RETURN_NOT_OK(BeforeEntry());
  return base_->SyncDeferred();
}

namespace {
// Forwards to the real stream; the fault check happens once the first bytes arrive, so a
// crash here leaves a partly written (torn) data file behind, as a real crash would.
class FaultStream : public arrow::io::OutputStream {
 public:
  // `names`: the base names the file at Close (OpenNewFile), with `sync`.
  FaultStream(FaultInjectingFileSystem* fs, std::string path, std::shared_ptr<arrow::io::OutputStream> base,
              bool names = false, EntrySync sync = EntrySync::kNow)
      : fs_(fs), path_(std::move(path)), base_(std::move(base)), names_(names), sync_(sync) {}
  Status Close() override {
    if (!names_ || base_->closed()) return base_->Close();
    ARROW_ASSIGN_OR_RAISE(bool owed, fs_->BeforeNaming(path_));
    ARROW_RETURN_NOT_OK(base_->Close());
    fs_->AfterNaming(path_, sync_, owed);
    return Status::OK();
  }
  Status Abort() override { return base_->Abort(); }
  bool closed() const override { return base_->closed(); }
  Result<int64_t> Tell() const override { return base_->Tell(); }
  Status Write(const void* data, int64_t nbytes) override {
    ARROW_RETURN_NOT_OK(base_->Write(data, nbytes));
    if (!checked_) {
      checked_ = true;
      ARROW_RETURN_NOT_OK(base_->Flush());  // the first bytes reach the file (the base buffers)
      ARROW_RETURN_NOT_OK(fs_->OnWrite(path_));
    }
    return Status::OK();
  }

 private:
  FaultInjectingFileSystem* fs_;
  std::string path_;
  std::shared_ptr<arrow::io::OutputStream> base_;
  bool names_;
  EntrySync sync_;
  bool checked_ = false;
};
}  // namespace

Result<std::shared_ptr<arrow::io::OutputStream>> FaultInjectingFileSystem::OpenOutputStream(const std::string& path) {
  ARROW_ASSIGN_OR_RAISE(auto base, base_->OpenOutputStream(path));
  return std::make_shared<FaultStream>(this, path, std::move(base));
}

Result<std::shared_ptr<arrow::io::OutputStream>> FaultInjectingFileSystem::OpenNewFile(const std::string& path,
                                                                                    EntrySync sync) {
  ARROW_ASSIGN_OR_RAISE(auto base, base_->OpenNewFile(path, sync));
  return std::make_shared<FaultStream>(this, path, std::move(base), /*names=*/true, sync);
}

Result<std::shared_ptr<arrow::io::OutputStream>> FaultInjectingFileSystem::OpenNewFileUncached(const std::string& path,
                                                                                            EntrySync sync) {
  ARROW_ASSIGN_OR_RAISE(auto base, base_->OpenNewFileUncached(path, sync));
  return std::make_shared<FaultStream>(this, path, std::move(base), /*names=*/true, sync);
}

}  // namespace sluice::io
