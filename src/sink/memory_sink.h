// The memory sink and the foreachBatch sink (both in-process).
#pragma once

#include "sink/sink.h"

namespace sluice::sink {

Status ValidateMemorySinkSpec(const SinkSpec& spec);
Result<std::unique_ptr<Sink>> MakeMemorySink(const SinkSpec& spec, const SinkContext& ctx);
/// foreachBatch: at-least-once on its own; exactly-once if the function writes idempotently
/// by batch id.
Result<std::unique_ptr<Sink>> MakeForeachBatchSink(const SinkSpec& spec);

}  // namespace sluice::sink
