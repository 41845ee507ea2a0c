// Hash partitioning of state keys. Checkpoints depend on these functions: a key's partition
// decides which state/<op>/<partition>/ directory holds it, so they must NEVER change across
// releases (tests/unit/state_store_format_test.cc pins golden values). See docs/state-store.md.
#pragma once

#include <cstdint>
#include <string_view>

namespace sluice::state {

/// FNV-1a 64 over the bytes (offset basis 0xcbf29ce484222325, prime 0x100000001b3), then the
/// murmur3 fmix64 finalizer so that every output bit depends on every input bit.
uint64_t StableHash64(std::string_view bytes);

/// StableHash64(key) modulo num_partitions (unsigned), in [0, num_partitions).
/// num_partitions < 1 is a caller bug; it returns 0.
int PartitionOf(std::string_view key, int num_partitions);

}  // namespace sluice::state
