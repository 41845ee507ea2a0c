// Table directory names and file URIs (see location.h).
#include "iceberg/location.h"

#include <cstdint>
#include <cstdio>

#include "iceberg/partition_spec.h"

namespace sluice::iceberg {
namespace {

constexpr size_t kMaxEscapedLength = 200;  // + 9 for the hash, + ".db": under NAME_MAX (255)

bool IsAsciiAlnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

bool IsSafeName(const std::string& name) {
  if (name.empty() || name.find_first_not_of('.') == std::string::npos) return false;
  for (unsigned char c : name) {
    if (!IsAsciiAlnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

// `uri` without its "file://" or "file:" prefix; a plain path as it is.
std::string LiteralPath(const std::string& uri) {
  if (uri.rfind("file://", 0) == 0) return uri.substr(7);
  if (uri.rfind("file:", 0) == 0) return uri.substr(5);
  return uri;
}

bool Exists(io::FileSystem* fs, const std::string& path) {
  auto info = fs->Stat(path);
  return info.ok() && info->has_value();
}

}  // namespace

std::string LocationDirName(const std::string& name) {
  if (IsSafeName(name)) return name;
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : name) {
    if (IsAsciiAlnum(c) || c == '.' || c == '-') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('_');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (out.size() > kMaxEscapedLength) out.resize(kMaxEscapedLength);
  char hash[16];
  std::snprintf(hash, sizeof(hash), "-%08x", static_cast<unsigned>(static_cast<uint32_t>(Murmur3Hash32(name))));
  return out + hash;
}

std::string FileUri(const std::string& abs_path) { return "file://" + abs_path; }

std::string LocalPath(io::FileSystem* fs, const std::string& uri) {
  std::string literal = LiteralPath(uri);
  if (literal == uri) return literal;  // not a file: URI
  std::string decoded = io::UriToPath(uri);
  if (decoded == literal || Exists(fs, literal) || !Exists(fs, decoded)) return literal;
  return decoded;
}

std::string FileUriFor(io::FileSystem* fs, const std::string& location, const std::string& path) {
  return LocalPath(fs, location) != LiteralPath(location) ? io::PathToUri(path) : FileUri(path);
}

TableFile TableFileAt(io::FileSystem* fs, const TableMetadata& metadata, const std::string& rel) {
  std::string location = metadata.location;
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  const std::string dir = LocalPath(fs, location);
  const std::string path = io::JoinPath(dir, rel);
  if (dir != LiteralPath(location)) return TableFile{path, io::PathToUri(path)};  // percent-encoded location
  return TableFile{path, location + "/" + rel};
}

}  // namespace sluice::iceberg
