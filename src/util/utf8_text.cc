// UTF-8 checks and repair for text read from files (see utf8_text.h).
#include "util/utf8_text.h"

#include <arrow/util/utf8.h>

#include <cstdint>

namespace sluice::util {

// Arrow's validator reads a lookup table that InitializeUTF8 fills (once; cheap after).
bool ValidUtf8(const arrow::Buffer& data) {
  arrow::util::InitializeUTF8();
  return arrow::util::ValidateUTF8(data.data(), data.size());
}

std::string ReplaceInvalidUtf8(std::string_view raw) {
  const auto* p = reinterpret_cast<const uint8_t*>(raw.data());
  const size_t n = raw.size();
  auto within = [](uint8_t c, uint8_t lo, uint8_t hi) { return c >= lo && c <= hi; };
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n;) {
    const uint8_t b = p[i];
    if (b < 0x80) {
      out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    // Sequence length and the allowed range of the second byte (no overlongs, no surrogates).
    size_t len = 0;
    uint8_t lo = 0x80, hi = 0xBF;
    if (within(b, 0xC2, 0xDF)) {
      len = 2;
    } else if (within(b, 0xE0, 0xEF)) {
      len = 3;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (within(b, 0xF0, 0xF4)) {
      len = 4;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    }
    size_t k = 1;
    if (len > 0 && i + 1 < n && within(p[i + 1], lo, hi)) {
      k = 2;
      while (k < len && i + k < n && within(p[i + k], 0x80, 0xBF)) ++k;
    }
    if (len > 0 && k == len) {
      out.append(raw.substr(i, len));
    } else {
      out.append("\xEF\xBF\xBD");
    }
    i += k;
  }
  return out;
}

}  // namespace sluice::util
