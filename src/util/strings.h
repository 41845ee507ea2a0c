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

}  // namespace sluice::util
