// Writing a new file around the page cache (io/direct_writer.h), and the local filesystem's
// OpenNewFileUncached built on it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include "io/direct_writer.h"
#include "io/file_system.h"
#include "support/status.h"
#include "support/temp_dir.h"

namespace sluice::io {
namespace {

using sluice::testing::TempDir;

std::string ReadWhole(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Bytes that differ from one offset to the next (a misplaced block shows).
std::string Pattern(size_t n, size_t seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + seed) % 26);
  return s;
}

// A new file at `path` (it must not exist) with a DirectWriter on it; `writer` is null when the
// directory refuses O_DIRECT.
struct DirectFile {
  explicit DirectFile(std::string p) : path(std::move(p)) {
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) writer = DirectWriter::Make(fd, path);
  }
  ~DirectFile() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  std::string path;
  int fd = -1;
  std::unique_ptr<DirectWriter> writer;
};

TEST(DirectWriter, WritesEveryByteInOrderAroundThePageCache) {
  TempDir tmp;
  const size_t kBuf = DirectWriter::kBufferBytes, kBlock = DirectWriter::kBlock;
  for (size_t size : {size_t{0}, size_t{1}, kBlock - 1, kBlock, kBlock + 1, kBuf - 1, kBuf, kBuf + 1, 3 * kBuf + 123}) {
    SCOPED_TRACE(size);
    DirectFile file(tmp.Sub("f" + std::to_string(size)));
    ASSERT_GE(file.fd, 0);
    ASSERT_NE(file.writer, nullptr) << "this test's directory refuses O_DIRECT";
    const std::string& path = file.path;
    const int fd = file.fd;
    DirectWriter* writer = file.writer.get();
    EXPECT_NE(::fcntl(fd, F_GETFL) & O_DIRECT, 0);
    // In uneven pieces, with a Flush between some of them (a write ahead's appends).
    const std::string want = Pattern(size, size);
    size_t at = 0, piece = 1;
    while (at < want.size()) {
      const size_t n = std::min(piece, want.size() - at);
      ASSERT_OK(writer->Write(want.data() + at, n));
      at += n;
      if (piece % 3 == 0) ASSERT_OK(writer->Flush());
      piece = piece * 5 + 1;
    }
    ASSERT_OK(writer->Finish());
    EXPECT_EQ(::fcntl(fd, F_GETFL) & O_DIRECT, 0);
    file.Close();
    EXPECT_EQ(ReadWhole(path), want);
  }
}

TEST(DirectWriter, WholeBlocksOfAlignedMemoryGoStraightToTheDiskWhenNothingIsBuffered) {
  TempDir tmp;
  const size_t kBuf = DirectWriter::kBufferBytes, kBlock = DirectWriter::kBlock;
  const auto size_on_disk = [](const std::string& p) { return std::filesystem::file_size(p); };
  for (size_t size : {kBlock, kBlock + 1, 2 * kBlock + 5, kBuf + kBlock + 5, 3 * kBuf + 123}) {
    SCOPED_TRACE(size);
    DirectFile file(tmp.Sub("f" + std::to_string(size)));
    ASSERT_GE(file.fd, 0);
    ASSERT_NE(file.writer, nullptr) << "this test's directory refuses O_DIRECT";
    const std::string& path = file.path;
    DirectWriter* writer = file.writer.get();
    const std::string pattern = Pattern(size, size);
    const BlockAlignedText text(pattern);
    ASSERT_EQ(reinterpret_cast<uintptr_t>(text.data()) % kBlock, 0u);
    // The whole blocks are on the disk when Write returns (a buffered copy of less than a
    // buffer would not be); the partial block stays buffered.
    ASSERT_OK(writer->Write(text.data(), text.size()));
    EXPECT_EQ(size_on_disk(path), size / kBlock * kBlock);
    std::string want = pattern;
    // Unaligned pieces after it, then aligned memory again while a partial block is buffered
    // (it is copied: the file's offset is not on a block), then again after a Flush that left
    // nothing buffered.
    const std::string tail = Pattern(kBlock + 3, 1);
    ASSERT_OK(writer->Write(tail.data(), tail.size()));
    want += tail;
    ASSERT_OK(writer->Write(text.data(), text.size()));
    want += pattern;
    const size_t pad = (kBlock - want.size() % kBlock) % kBlock;
    const std::string fill = Pattern(pad, 2);
    ASSERT_OK(writer->Write(fill.data(), fill.size()));
    want += fill;
    ASSERT_OK(writer->Flush());
    ASSERT_EQ(size_on_disk(path), want.size());
    ASSERT_OK(writer->Write(text.data(), text.size()));
    want += pattern;
    EXPECT_EQ(size_on_disk(path), want.size() - size % kBlock);
    ASSERT_OK(writer->Finish());
    file.Close();
    EXPECT_EQ(ReadWhole(path), want);
  }
}

TEST(DirectWriter, AnUncachedNewFileIsNamedWholeAtCloseAndNothingAfterAbort) {
  TempDir tmp;
  auto fs = LocalFileSystem();
  const std::string text = Pattern(2 * DirectWriter::kBufferBytes + 777, 3);
  ASSERT_OK_AND_ASSIGN(auto out, fs->OpenNewFileUncached(tmp.Sub("entry"), EntrySync::kNow));
  ASSERT_OK(out->Write(text.data(), 1000));
  ASSERT_OK(out->Flush());
  ASSERT_OK(out->Write(text.data() + 1000, static_cast<int64_t>(text.size() - 1000)));
  ASSERT_OK(out->Flush());
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("entry")));  // no name before Close
  ASSERT_OK_AND_ASSIGN(int64_t pos, out->Tell());
  EXPECT_EQ(pos, static_cast<int64_t>(text.size()));
  ASSERT_OK(out->Close());
  EXPECT_EQ(ReadWhole(tmp.Sub("entry")), text);

  ASSERT_OK_AND_ASSIGN(auto given_up, fs->OpenNewFileUncached(tmp.Sub("other"), EntrySync::kNow));
  ASSERT_OK(given_up->Write(text.data(), static_cast<int64_t>(text.size())));
  ASSERT_OK(given_up->Abort());
  given_up.reset();
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(tmp.path()), std::filesystem::directory_iterator()), 1);

  // Create-only, as OpenNewFile.
  ASSERT_OK_AND_ASSIGN(auto again, fs->OpenNewFileUncached(tmp.Sub("entry"), EntrySync::kNow));
  ASSERT_OK(again->Write("x", 1));
  EXPECT_TRUE(again->Close().IsAlreadyExists());
  EXPECT_EQ(ReadWhole(tmp.Sub("entry")), text);
}

}  // namespace
}  // namespace sluice::io
