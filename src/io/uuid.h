// UUIDs for query ids, run ids and data file names.
#pragma once

#include <string>

namespace sluice::io {

/// A random (version 4) UUID.
std::string RandomUuid();

/// A UUID that is a pure function of `name` (64+64-bit FNV-1a, laid out as a version 8 UUID):
/// the same name gives the same UUID in every process and on every platform. Used where a file
/// name must prove which writer and batch produced it.
std::string NameBasedUuid(const std::string& name);

}  // namespace sluice::io
