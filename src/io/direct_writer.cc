#include "io/direct_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace sluice::io {

namespace {
Status WriteError(const std::string& path, int err) {
  return Status::IOError("cannot write '", path, "': ", std::strerror(err));
}
}  // namespace

std::unique_ptr<DirectWriter> DirectWriter::Make(int fd, std::string path) {
  void* buffer = nullptr;
  if (::posix_memalign(&buffer, kBlock, kBufferBytes) != 0) return nullptr;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_DIRECT) != 0) {
    std::free(buffer);
    return nullptr;
  }
  return std::unique_ptr<DirectWriter>(new DirectWriter(fd, std::move(path), static_cast<char*>(buffer)));
}

DirectWriter::~DirectWriter() { std::free(buffer_); }

Status DirectWriter::Write(const char* data, size_t n) {
  while (n > 0) {
    const size_t take = std::min(n, kBufferBytes - used_);
    std::memcpy(buffer_ + used_, data, take);
    used_ += take;
    data += take;
    n -= take;
    if (used_ == kBufferBytes) ARROW_RETURN_NOT_OK(WriteBlocks(kBufferBytes));
  }
  return Status::OK();
}

Status DirectWriter::Flush() { return WriteBlocks(used_ / kBlock * kBlock); }

Status DirectWriter::WriteOut(size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = ::write(fd_, buffer_ + done, n - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return WriteError(path_, errno);
    }
    // A short direct write leaves the file offset off a block boundary; the next write then
    // fails with EINVAL, reported like any other write error.
    done += static_cast<size_t>(w);
  }
  return Status::OK();
}

Status DirectWriter::WriteBlocks(size_t n) {
  ARROW_RETURN_NOT_OK(WriteOut(n));
  std::memmove(buffer_, buffer_ + n, used_ - n);
  used_ -= n;
  return Status::OK();
}

Status DirectWriter::Finish() {
  ARROW_RETURN_NOT_OK(Flush());
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_DIRECT) != 0) return WriteError(path_, errno);
  ARROW_RETURN_NOT_OK(WriteOut(used_));
  used_ = 0;
  return Status::OK();
}

}  // namespace sluice::io
