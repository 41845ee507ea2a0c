#include "state/state_file.h"

#include <arrow/buffer.h>
#include <arrow/io/memory.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace sluice::state {
namespace {

constexpr char kMagic[8] = {'S', 'L', 'U', 'I', 'C', 'E', 'S', 'T'};
constexpr char kEndMagic[4] = {'E', 'N', 'D', 'S'};
constexpr size_t kHeaderSize = 24;   // magic 8, format u16, kind u8, flags u8, reserved u32, version i64
constexpr size_t kTrailerSize = 24;  // records u64, records length u64, crc u32, end magic 4
constexpr uint8_t kOpPut = 1;
constexpr uint8_t kOpRemove = 2;

void AppendLE(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t ReadLE(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

const char* KindName(StateFileKind kind) { return kind == StateFileKind::kDelta ? "delta" : "snapshot"; }

// Reads of a file go in pieces of this size, so memory does not grow with the file.
constexpr int64_t kReadChunk = 1 << 20;

std::string_view View(const arrow::Buffer& b) {
  return std::string_view(reinterpret_cast<const char*>(b.data()), static_cast<size_t>(b.size()));
}

// `n` bytes at `pos` of `file`; errors name `path`.
Result<std::shared_ptr<arrow::Buffer>> ReadExactly(const std::string& path, arrow::io::RandomAccessFile* file,
                                                   int64_t pos, int64_t n) {
  auto buf = file->ReadAt(pos, n);
  if (!buf.ok()) return Status::IOError("Cannot read state file '", path, "': ", buf.status().message());
  if ((*buf)->size() != n) {
    return Status::IOError("Cannot read state file '", path, "': it ended at byte ", pos + (*buf)->size(),
                           " while being read");
  }
  return std::move(*buf);
}

}  // namespace

// Not in the anonymous namespace: StateFileCursor::Impl holds one.
namespace detail {

// Reads the bytes [pos, end) of a file forward, a chunk at a time. The views Take() returns
// stay valid until the next BeginRecord(): a chunk they point into is kept until then.
class ChunkedReader {
 public:
  ChunkedReader(const std::string& path, arrow::io::RandomAccessFile* file, int64_t pos, int64_t end)
      : path_(path), file_(file), chunk_pos_(pos), end_(end) {}

  void BeginRecord() { pinned_.clear(); }

  // The next `n` bytes in `out` (a view into a chunk or into `scratch`); false if fewer than
  // `n` remain.
  Result<bool> Take(uint64_t n, std::string* scratch, std::string_view* out) {
    const int64_t pos = chunk_pos_ + static_cast<int64_t>(offset_);
    if (static_cast<uint64_t>(end_ - pos) < n) return false;
    const size_t avail = chunk_ ? static_cast<size_t>(chunk_->size()) - offset_ : 0;
    if (avail >= n) {
      *out = View(*chunk_).substr(offset_, n);
      offset_ += n;
      return true;
    }
    // The bytes span chunks: gather them in `scratch`.
    scratch->assign(avail == 0 ? std::string_view() : View(*chunk_).substr(offset_));
    int64_t next = pos + static_cast<int64_t>(avail);
    const int64_t need = static_cast<int64_t>(n - avail);
    if (chunk_) pinned_.push_back(std::move(chunk_));
    if (need >= kReadChunk) {
      ARROW_ASSIGN_OR_RAISE(auto big, ReadExactly(path_, file_, next, need));
      scratch->append(View(*big));
      next += need;
      chunk_.reset();
      chunk_pos_ = next;
      offset_ = 0;
    } else {
      ARROW_ASSIGN_OR_RAISE(chunk_, ReadExactly(path_, file_, next, std::min(kReadChunk, end_ - next)));
      chunk_pos_ = next;
      scratch->append(View(*chunk_).substr(0, static_cast<size_t>(need)));
      offset_ = static_cast<size_t>(need);
    }
    *out = *scratch;
    return true;
  }

  bool AtEnd() const { return chunk_pos_ + static_cast<int64_t>(offset_) >= end_; }

 private:
  const std::string& path_;
  arrow::io::RandomAccessFile* file_;
  int64_t chunk_pos_;  // file offset of chunk_ (or of the next byte when there is no chunk)
  int64_t end_;
  std::shared_ptr<arrow::Buffer> chunk_;
  size_t offset_ = 0;  // next byte within chunk_
  std::vector<std::shared_ptr<arrow::Buffer>> pinned_;
};

}  // namespace detail

StateFileWriter::StateFileWriter(StateFileKind kind, int64_t store_version) {
  buf_.append(kMagic, sizeof(kMagic));
  AppendLE(&buf_, kStateFileFormatVersion, 2);
  buf_.push_back(static_cast<char>(kind));
  buf_.push_back(0);  // flags: no compression
  AppendLE(&buf_, 0, 4);
  AppendLE(&buf_, static_cast<uint64_t>(store_version), 8);
}

namespace {

// Writes a record's op byte, then each of `parts` as a 4-byte little-endian length and its bytes,
// with one resize of `out` (a push_back per byte was most of a record's cost).
template <size_t N>
void AppendRecord(std::string* out, uint8_t op, const std::string_view (&parts)[N]) {
  size_t size = 1;
  for (const auto& p : parts) size += 4 + p.size();
  const size_t at = out->size();
  out->resize(at + size);
  char* w = out->data() + at;
  *w++ = static_cast<char>(op);
  for (const auto& p : parts) {
    const auto n = static_cast<uint32_t>(p.size());
    const char le[4] = {static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(n >> 16),
                        static_cast<char>(n >> 24)};
    std::memcpy(w, le, 4);
    if (!p.empty()) std::memcpy(w + 4, p.data(), p.size());
    w += 4 + p.size();
  }
}

}  // namespace

void StateFileWriter::Put(std::string_view key, std::string_view value) {
  AppendRecord(&buf_, kOpPut, {key, value});
  ++records_;
}

void StateFileWriter::Remove(std::string_view key) {
  AppendRecord(&buf_, kOpRemove, {key});
  ++records_;
}

std::string StateFileWriter::TakeBuffered() {
  crc_ = Crc32cExtend(crc_, buf_);
  taken_ += buf_.size();
  std::string out = std::move(buf_);
  buf_.clear();
  return out;
}

std::string StateFileWriter::Finish() {
  AppendLE(&buf_, records_, 8);
  AppendLE(&buf_, taken_ + buf_.size() - 8 - kHeaderSize, 8);
  AppendLE(&buf_, Crc32cExtend(crc_, buf_), 4);
  buf_.append(kEndMagic, sizeof(kEndMagic));
  return std::move(buf_);
}

Status ReadStateFile(const std::string& path, const std::string& data, StateFileKind kind,
                     int64_t store_version, const StateRecordFn& fn) {
  arrow::io::BufferReader reader(std::make_shared<arrow::Buffer>(std::string_view(data)));
  return ReadStateFile(path, &reader, kind, store_version, fn);
}

namespace {

// The checks of a whole file before any record is read: size, header, trailer, checksum, kind
// and version. Returns the record count the trailer gives.
Result<uint64_t> CheckStateFile(const std::string& path, arrow::io::RandomAccessFile* file, StateFileKind kind,
                                int64_t store_version, int64_t* size_out) {
  auto corrupt = [&](auto&&... why) {
    return Status::IOError("State file '", path, "' is corrupt or torn: ", why...);
  };
  auto size_or = file->GetSize();
  if (!size_or.ok()) return Status::IOError("Cannot read state file '", path, "': ", size_or.status().message());
  const int64_t size = *size_or;
  if (size < static_cast<int64_t>(kHeaderSize + kTrailerSize)) {
    return corrupt("it has ", size, " bytes, fewer than a header and trailer (", kHeaderSize + kTrailerSize, ")");
  }
  ARROW_ASSIGN_OR_RAISE(auto header_buf, ReadExactly(path, file, 0, kHeaderSize));
  ARROW_ASSIGN_OR_RAISE(auto trailer_buf, ReadExactly(path, file, size - kTrailerSize, kTrailerSize));
  const std::string_view header = View(*header_buf), trailer = View(*trailer_buf);
  if (std::memcmp(header.data(), kMagic, sizeof(kMagic)) != 0) return corrupt("bad magic, not a sluice state file");
  uint64_t format = ReadLE(header.data() + 8, 2);
  if (format > kStateFileFormatVersion) {
    return Status::IOError("State file '", path, "' has format version ", format, " but this sluice reads up to ",
                           kStateFileFormatVersion, "; it was written by a newer sluice");
  }
  if (std::memcmp(trailer.data() + 20, kEndMagic, sizeof(kEndMagic)) != 0) {
    return corrupt("missing end marker (truncated)");
  }
  uint64_t records = ReadLE(trailer.data(), 8);
  uint64_t body_len = ReadLE(trailer.data() + 8, 8);
  if (body_len != static_cast<uint64_t>(size) - kHeaderSize - kTrailerSize) {
    return corrupt("records length ", body_len, " does not match the file size ", size);
  }
  uint32_t stored_crc = static_cast<uint32_t>(ReadLE(trailer.data() + 16, 4));
  uint32_t crc = 0;
  for (int64_t pos = 0; pos < size - 8; pos += kReadChunk) {
    ARROW_ASSIGN_OR_RAISE(auto piece, ReadExactly(path, file, pos, std::min(kReadChunk, size - 8 - pos)));
    crc = Crc32cExtend(crc, View(*piece));
  }
  if (crc != stored_crc) return corrupt("checksum mismatch (stored ", stored_crc, ", computed ", crc, ")");
  if (static_cast<uint8_t>(header[10]) != static_cast<uint8_t>(kind)) {
    return corrupt("expected a ", KindName(kind), " file");
  }
  if (header[11] != 0) return corrupt("unknown flags ", static_cast<int>(static_cast<uint8_t>(header[11])));
  int64_t header_version = static_cast<int64_t>(ReadLE(header.data() + 16, 8));
  if (header_version != store_version) {
    return corrupt("it holds version ", header_version, ", expected ", store_version);
  }
  *size_out = size;
  return records;
}

}  // namespace

struct StateFileCursor::Impl {
  using ChunkedReader = detail::ChunkedReader;

  Impl(std::string p, arrow::io::RandomAccessFile* file, StateFileKind k, int64_t size, uint64_t n)
      : path(std::move(p)),
        kind(k),
        records(n),
        // A record takes at least 5 bytes (an op byte and a key length).
        plausible_records(std::min<uint64_t>(n, static_cast<uint64_t>(size) / 5)),
        in(path, file, kHeaderSize, size - kTrailerSize) {}

  Status Corrupt(const std::string& why) const {
    return Status::IOError("State file '", path, "' is corrupt or torn: ", why);
  }
  // Reads a u32 length and that many bytes; false when they overrun the records section.
  Result<bool> ReadBytes(std::string* scratch, std::string_view* out) {
    std::string_view len;
    ARROW_ASSIGN_OR_RAISE(bool ok, in.Take(4, &len_scratch, &len));
    if (!ok) return false;
    return in.Take(ReadLE(len.data(), 4), scratch, out);
  }

  std::string path;
  StateFileKind kind;
  uint64_t records;
  uint64_t plausible_records;  // records, at most what the file's bytes can hold
  uint64_t seen = 0;
  ChunkedReader in;
  std::string key_scratch, value_scratch, len_scratch;
  std::string_view key, value;
  bool is_put = false;
};

StateFileCursor::StateFileCursor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateFileCursor::~StateFileCursor() = default;

Result<std::unique_ptr<StateFileCursor>> StateFileCursor::Open(const std::string& path,
                                                               arrow::io::RandomAccessFile* file, StateFileKind kind,
                                                               int64_t store_version) {
  int64_t size = 0;
  ARROW_ASSIGN_OR_RAISE(uint64_t records, CheckStateFile(path, file, kind, store_version, &size));
  return std::unique_ptr<StateFileCursor>(
      new StateFileCursor(std::make_unique<Impl>(path, file, kind, size, records)));
}

std::string_view StateFileCursor::key() const { return impl_->key; }
uint64_t StateFileCursor::records() const { return impl_->plausible_records; }
const std::string_view* StateFileCursor::value() const { return impl_->is_put ? &impl_->value : nullptr; }

Result<bool> StateFileCursor::Next() {
  // The checksum passed, so framing errors below mean a writer bug; they are still reported.
  Impl& s = *impl_;
  if (s.in.AtEnd()) {
    if (s.seen != s.records) {
      return s.Corrupt("it holds " + std::to_string(s.seen) + " records, its trailer says " + std::to_string(s.records));
    }
    return false;
  }
  s.in.BeginRecord();
  std::string_view op_byte;
  ARROW_ASSIGN_OR_RAISE(bool ok, s.in.Take(1, &s.len_scratch, &op_byte));  // !AtEnd(): a byte is left
  const uint8_t op = ok ? static_cast<uint8_t>(op_byte[0]) : 0;
  const std::string overrun = "record " + std::to_string(s.seen) + " overruns the file";
  ARROW_ASSIGN_OR_RAISE(ok, s.ReadBytes(&s.key_scratch, &s.key));
  if (!ok) return s.Corrupt(overrun);
  if (op == kOpPut) {
    ARROW_ASSIGN_OR_RAISE(ok, s.ReadBytes(&s.value_scratch, &s.value));
    if (!ok) return s.Corrupt(overrun);
    s.is_put = true;
  } else if (op == kOpRemove && s.kind == StateFileKind::kDelta) {
    s.is_put = false;
  } else {
    return s.Corrupt("record " + std::to_string(s.seen) + " has unknown type " + std::to_string(op));
  }
  ++s.seen;
  return true;
}

Status ReadStateFile(const std::string& path, arrow::io::RandomAccessFile* file, StateFileKind kind,
                     int64_t store_version, const StateRecordFn& fn,
                     const std::function<void(uint64_t records)>& on_count) {
  ARROW_ASSIGN_OR_RAISE(auto cursor, StateFileCursor::Open(path, file, kind, store_version));
  if (on_count) on_count(cursor->records());
  while (true) {
    ARROW_ASSIGN_OR_RAISE(bool more, cursor->Next());
    if (!more) return Status::OK();
    fn(cursor->key(), cursor->value());
  }
}

}  // namespace sluice::state
