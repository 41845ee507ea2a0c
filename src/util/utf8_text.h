// UTF-8 checks and repair for text read from files: a record with bytes that are not UTF-8 is
// malformed, and text kept from a damaged file (a corrupt record) is made valid UTF-8.
#pragma once

#include <arrow/buffer.h>

#include <string>
#include <string_view>

namespace sluice::util {

/// Whether `data` is well-formed UTF-8 (Arrow's validator).
bool ValidUtf8(const arrow::Buffer& data);

/// `raw` with each ill-formed UTF-8 sequence (its maximal subpart, as Java's decoder counts it)
/// replaced by U+FFFD, so text taken from a damaged file is valid UTF-8 for every reader.
std::string ReplaceInvalidUtf8(std::string_view raw);

}  // namespace sluice::util
