#include "util/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define SLUICE_CRC32C_X86 1
#endif

namespace sluice::util {

uint32_t Crc32cExtendPortable(uint32_t crc, std::string_view data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : (c >> 1);
      t[i] = c;
    }
    return t;
  }();
  crc ^= 0xFFFFFFFFu;
  for (unsigned char ch : data) crc = table[(crc ^ ch) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

#ifdef SLUICE_CRC32C_X86
// The instruction folds the same reflected polynomial as the table: 8 bytes per step, then the
// tail byte by byte. Compiled for SSE4.2 in this function only; callers check the CPU first.
__attribute__((target("sse4.2"))) uint32_t Crc32cExtendHardware(uint32_t crc, std::string_view data) {
  const char* p = data.data();
  size_t n = data.size();
  uint64_t c = crc ^ 0xFFFFFFFFu;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  for (; n > 0; --n, ++p) c32 = _mm_crc32_u8(c32, static_cast<unsigned char>(*p));
  return c32 ^ 0xFFFFFFFFu;
}

bool Crc32cHardwareAvailable() {
  static const bool available = __builtin_cpu_supports("sse4.2");
  return available;
}
#else
uint32_t Crc32cExtendHardware(uint32_t crc, std::string_view data) { return Crc32cExtendPortable(crc, data); }
bool Crc32cHardwareAvailable() { return false; }
#endif

uint32_t Crc32cExtend(uint32_t crc, std::string_view data) {
  return Crc32cHardwareAvailable() ? Crc32cExtendHardware(crc, data) : Crc32cExtendPortable(crc, data);
}

uint32_t Crc32c(std::string_view data) { return Crc32cExtend(0, data); }

}  // namespace sluice::util
