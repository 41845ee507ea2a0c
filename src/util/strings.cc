#include "util/strings.h"

#include <cctype>

namespace sluice::util {

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string DescribeBytes(std::string_view bytes, size_t max) {
  static const char* kHex = "0123456789abcdef";
  std::string shown;
  for (size_t i = 0; i < bytes.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      shown.push_back(static_cast<char>(c));
    } else {
      shown += "\\x";
      shown.push_back(kHex[c >> 4]);
      shown.push_back(kHex[c & 15]);
    }
  }
  return std::to_string(bytes.size()) + " bytes: '" + shown + (bytes.size() > max ? "'..." : "'");
}

std::string JsonErrorWithoutInput(const std::string& what) {
  const auto at = what.find("; last read: ");
  return at == std::string::npos ? what : what.substr(0, at);
}

}  // namespace sluice::util
