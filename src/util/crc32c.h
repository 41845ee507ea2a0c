// CRC-32C (Castagnoli polynomial 0x1EDC6F41, reflected, init and final xor 0xFFFFFFFF), the
// checksum of the state files' trailers (docs/state-store.md). Its values are fixed forever by
// that format.
//
// Computed with the SSE4.2 crc32 instruction when the CPU has it (checked once at run time),
// else by a byte-wise table; both give the same values (tests/unit/crc32c_test.cc checks the
// RFC 3720 vectors on each).
#pragma once

#include <cstdint>
#include <string_view>

namespace sluice::util {

/// The CRC-32C of `data`.
uint32_t Crc32c(std::string_view data);
/// The CRC-32C of a + b, given crc = Crc32c(a). Crc32cExtend(0, b) == Crc32c(b).
uint32_t Crc32cExtend(uint32_t crc, std::string_view b);

/// The two implementations Crc32cExtend chooses between, for tests and benchmarks.
uint32_t Crc32cExtendPortable(uint32_t crc, std::string_view b);
/// Must only be called when Crc32cHardwareAvailable().
uint32_t Crc32cExtendHardware(uint32_t crc, std::string_view b);
/// True when this CPU has the SSE4.2 crc32 instruction (always false on other architectures).
bool Crc32cHardwareAvailable();

}  // namespace sluice::util
