// Small string helpers shared by every folder. ASCII only: option names, keywords and units are
// ASCII, and bytes >= 0x80 pass through unchanged.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace sluice::util {

std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);

/// `s` without leading and trailing whitespace (space, tab, CR, LF, VT, FF).
std::string Trim(std::string_view s);

/// The arguments streamed together: Concat("could not delete ", path, ": ", status).
template <typename... Args>
std::string Concat(Args&&... args) {
  std::ostringstream out;
  (out << ... << std::forward<Args>(args));
  return out.str();
}

/// A description of bytes read from a damaged file, safe to print: "<N> bytes: '<start>'" with
/// at most `max` bytes shown and every byte outside printable ASCII written as \xNN (so binary
/// garbage never reaches a terminal raw).
std::string DescribeBytes(std::string_view bytes, size_t max = 40);

/// nlohmann-json's parse error without the input it quotes ("last read: '...'"), which may be
/// binary garbage; the position and the reason are kept.
std::string JsonErrorWithoutInput(const std::string& what);

}  // namespace sluice::util
