// The console sink: prints each batch as a table ("Batch: N"). For debugging; not fault tolerant.
#pragma once

#include "sink/sink.h"

namespace sluice::sink {

Status ValidateConsoleSinkSpec(const SinkSpec& spec);
Result<std::unique_ptr<Sink>> MakeConsoleSink(const SinkSpec& spec, const SinkContext& ctx);

}  // namespace sluice::sink
