// A source's position in its input, as the offsets log records it.
#pragma once

#include <nlohmann/json.hpp>

namespace sluice::checkpoint {

/// An offset is a JSON value, stored as one line of offsets/<batchId>. Each source defines the
/// shape of its own offsets; the checkpoint only stores and returns them.
using Offset = nlohmann::json;

}  // namespace sluice::checkpoint
