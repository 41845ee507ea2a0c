// `sluice checkpoint show DIR`.
#pragma once

#include <string>

#include "sluice/status.h"

namespace sluice::cli {

/// The checkpoint's state as pretty JSON: query id, latest offsets and commit batch ids, the
/// end offsets per source, and whether a restart will re-run a batch.
Result<std::string> ShowCheckpoint(const std::string& dir);

}  // namespace sluice::cli
