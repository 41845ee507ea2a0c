#include "io/uuid.h"

#include <random>

namespace sluice::io {

std::string RandomUuid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string s = "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx";
  const char* hex = "0123456789abcdef";
  for (char& c : s) {
    if (c == 'x') c = hex[rng() % 16];
    else if (c == 'y') c = hex[8 + rng() % 4];
  }
  return s;
}

}  // namespace sluice::io
