#include "state/state_file.h"

#include <array>
#include <cstring>

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

}  // namespace

uint32_t Crc32c(std::string_view data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : (c >> 1);
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char ch : data) crc = table[(crc ^ ch) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

StateFileWriter::StateFileWriter(StateFileKind kind, int64_t store_version) {
  buf_.append(kMagic, sizeof(kMagic));
  AppendLE(&buf_, kStateFileFormatVersion, 2);
  buf_.push_back(static_cast<char>(kind));
  buf_.push_back(0);  // flags: no compression
  AppendLE(&buf_, 0, 4);
  AppendLE(&buf_, static_cast<uint64_t>(store_version), 8);
}

void StateFileWriter::Put(std::string_view key, std::string_view value) {
  buf_.push_back(static_cast<char>(kOpPut));
  AppendLE(&buf_, key.size(), 4);
  buf_.append(key);
  AppendLE(&buf_, value.size(), 4);
  buf_.append(value);
  ++records_;
}

void StateFileWriter::Remove(std::string_view key) {
  buf_.push_back(static_cast<char>(kOpRemove));
  AppendLE(&buf_, key.size(), 4);
  buf_.append(key);
  ++records_;
}

std::string StateFileWriter::Finish() {
  AppendLE(&buf_, records_, 8);
  AppendLE(&buf_, buf_.size() - 8 - kHeaderSize, 8);
  AppendLE(&buf_, Crc32c(buf_), 4);
  buf_.append(kEndMagic, sizeof(kEndMagic));
  return std::move(buf_);
}

Status ReadStateFile(const std::string& path, const std::string& data, StateFileKind kind,
                     int64_t store_version, const StateRecordFn& fn) {
  auto corrupt = [&](auto&&... why) {
    return Status::IOError("State file '", path, "' is corrupt or torn: ", why...);
  };
  if (data.size() < kHeaderSize + kTrailerSize) {
    return corrupt("it has ", data.size(), " bytes, fewer than a header and trailer (",
                   kHeaderSize + kTrailerSize, ")");
  }
  if (std::memcmp(data.data(), kMagic, sizeof(kMagic)) != 0) return corrupt("bad magic, not a sluice state file");
  uint64_t format = ReadLE(data.data() + 8, 2);
  if (format > kStateFileFormatVersion) {
    return Status::IOError("State file '", path, "' has format version ", format, " but this sluice reads up to ",
                           kStateFileFormatVersion, "; it was written by a newer sluice");
  }
  const char* trailer = data.data() + data.size() - kTrailerSize;
  if (std::memcmp(trailer + 20, kEndMagic, sizeof(kEndMagic)) != 0) return corrupt("missing end marker (truncated)");
  uint64_t records = ReadLE(trailer, 8);
  uint64_t body_len = ReadLE(trailer + 8, 8);
  if (body_len != data.size() - kHeaderSize - kTrailerSize) {
    return corrupt("records length ", body_len, " does not match the file size ", data.size());
  }
  uint32_t stored_crc = static_cast<uint32_t>(ReadLE(trailer + 16, 4));
  uint32_t crc = Crc32c(std::string_view(data.data(), data.size() - 8));
  if (crc != stored_crc) return corrupt("checksum mismatch (stored ", stored_crc, ", computed ", crc, ")");
  if (static_cast<uint8_t>(data[10]) != static_cast<uint8_t>(kind)) {
    return corrupt("expected a ", KindName(kind), " file");
  }
  if (data[11] != 0) return corrupt("unknown flags ", static_cast<int>(static_cast<uint8_t>(data[11])));
  int64_t header_version = static_cast<int64_t>(ReadLE(data.data() + 16, 8));
  if (header_version != store_version) {
    return corrupt("it holds version ", header_version, ", expected ", store_version);
  }

  // The checksum passed, so framing errors below mean a writer bug; they are still reported.
  size_t pos = kHeaderSize;
  const size_t end = data.size() - kTrailerSize;
  auto read_bytes = [&](std::string_view* out) -> bool {
    if (end - pos < 4) return false;
    uint64_t len = ReadLE(data.data() + pos, 4);
    pos += 4;
    if (end - pos < len) return false;
    *out = std::string_view(data.data() + pos, len);
    pos += len;
    return true;
  };
  uint64_t seen = 0;
  while (pos < end) {
    uint8_t op = static_cast<uint8_t>(data[pos++]);
    std::string_view key, value;
    if (!read_bytes(&key)) return corrupt("record ", seen, " overruns the file");
    if (op == kOpPut) {
      if (!read_bytes(&value)) return corrupt("record ", seen, " overruns the file");
      fn(key, &value);
    } else if (op == kOpRemove && kind == StateFileKind::kDelta) {
      fn(key, nullptr);
    } else {
      return corrupt("record ", seen, " has unknown type ", static_cast<int>(op));
    }
    ++seen;
  }
  if (seen != records) return corrupt("it holds ", seen, " records, its trailer says ", records);
  return Status::OK();
}

}  // namespace sluice::state
