#include "io/direct_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
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
  // Nothing buffered: the file's offset is on a block. The whole blocks of memory that is itself
  // block-aligned (BlockAlignedText) go to the disk from where they are, without the copy, a
  // buffer's worth a write as when copied: one write of tens of MB would queue them all on the
  // disk at once, ahead of every other writer's syncs.
  if (used_ == 0 && n >= kBlock && reinterpret_cast<uintptr_t>(data) % kBlock == 0) {
    for (size_t whole = n / kBlock * kBlock; whole > 0;) {
      const size_t take = std::min(whole, kBufferBytes);
      ARROW_RETURN_NOT_OK(WriteFrom(data, take));
      data += take;
      n -= take;
      whole -= take;
    }
  }
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

Status DirectWriter::WriteOut(size_t n) { return WriteFrom(buffer_, n); }

Status DirectWriter::WriteFrom(const char* data, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = ::write(fd_, data + done, n - done);
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
