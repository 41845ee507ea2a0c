// Local path helpers of the filesystem seam (file_system.h): joining, making absolute, and the
// file: URIs that sink logs and source logs record.
#include <cctype>
#include <cstring>
#include <filesystem>
#include <string>

#include "io/file_system.h"

namespace sluice::io {

std::string JoinPath(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (a.back() == '/') return a + b;
  return a + "/" + b;
}

std::string AbsolutePath(const std::string& path) {
  std::filesystem::path p = std::filesystem::absolute(path).lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::string PathToUri(const std::string& abs_path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = "file://";
  for (unsigned char c : abs_path) {
    if (std::isalnum(c) || std::strchr("-._~/!$&'()*+,;=:@", c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

namespace {

// The value of an ASCII hex digit (the caller has checked std::isxdigit).
int HexDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
}

}  // namespace

std::string UriToPath(const std::string& uri) {
  std::string s = uri;
  if (s.rfind("file://", 0) == 0) {
    s = s.substr(7);
  } else if (s.rfind("file:", 0) == 0) {
    s = s.substr(5);
  } else {
    return s;
  }
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace sluice::io
