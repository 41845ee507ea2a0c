#include "io/uuid.h"

#include <cstdint>
#include <random>

namespace sluice::io {
namespace {

// Lays out 32 hex digits as 8-4-4-4-12 with the version nibble `version` and the RFC 4122
// variant bits.
std::string Format(uint64_t hi, uint64_t lo, int version) {
  const char* hex = "0123456789abcdef";
  std::string digits;
  for (uint64_t word : {hi, lo}) {
    for (int shift = 60; shift >= 0; shift -= 4) digits += hex[(word >> shift) & 0xf];
  }
  digits[12] = hex[version];
  digits[16] = hex[8 + (digits[16] - (digits[16] >= 'a' ? 'a' - 10 : '0')) % 4];
  return digits.substr(0, 8) + "-" + digits.substr(8, 4) + "-" + digits.substr(12, 4) + "-" + digits.substr(16, 4) +
         "-" + digits.substr(20);
}

uint64_t Fnv1a(const std::string& s, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

std::string RandomUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return Format(rng(), rng(), 4);
}

std::string NameBasedUuid(const std::string& name) {
  return Format(Fnv1a(name, 14695981039346656037ULL), Fnv1a(name, 0x84222325cbf29ce4ULL), 8);
}

}  // namespace sluice::io
