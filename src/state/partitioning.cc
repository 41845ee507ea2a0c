#include "state/partitioning.h"

namespace sluice::state {

uint64_t StableHash64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

int PartitionOf(std::string_view key, int num_partitions) {
  if (num_partitions < 1) return 0;
  return static_cast<int>(StableHash64(key) % static_cast<uint64_t>(num_partitions));
}

}  // namespace sluice::state
