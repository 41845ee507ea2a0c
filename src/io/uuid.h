// Random (version 4) UUIDs for query ids, run ids and data file names.
#pragma once

#include <string>

namespace sluice::io {

std::string RandomUuid();

}  // namespace sluice::io
