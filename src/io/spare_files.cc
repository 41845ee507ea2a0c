#include "io/spare_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sluice::io {

SpareFiles::~SpareFiles() {
  for (const auto& spare : spares_) ::close(spare.second);
}

int SpareFiles::Take(const std::string& dir) {
  int fd = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = spares_.begin(); it != spares_.end(); ++it) {
      if (it->first != dir) continue;
      fd = it->second;
      spares_.erase(it);
      break;
    }
  }
  struct stat of_fd, of_dir;
  if (fd >= 0 && (::fstat(fd, &of_fd) != 0 || ::stat(dir.c_str(), &of_dir) != 0 || of_fd.st_dev != of_dir.st_dev)) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void SpareFiles::Used(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  used_.insert(dir);
}

void SpareFiles::Prepare() {
  std::set<std::string> dirs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& dir : used_) {
      if (used_before_.count(dir)) dirs.insert(dir);
    }
    used_before_.swap(used_);
    used_.clear();
    for (const auto& spare : spares_) dirs.erase(spare.first);
  }
  size_t made = 0;
  for (const auto& dir : dirs) {
    if (made++ == kMaxSpares) break;  // more directories than spares: the rest make their own
    int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    spares_.emplace_front(dir, fd);
    while (spares_.size() > kMaxSpares) {
      ::close(spares_.back().second);
      spares_.pop_back();
    }
  }
}

}  // namespace sluice::io
