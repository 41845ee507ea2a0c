// The console sink: prints each batch as a table ("Batch: N"). For debugging; not fault tolerant.
#pragma once

#include "sink/sink.h"

namespace sluice::sink {

Status ValidateConsoleSinkSpec(const SinkSpec& spec);
Result<std::unique_ptr<Sink>> MakeConsoleSink(const SinkSpec& spec, const SinkContext& ctx);
/// `table` as the console sink prints a batch (Dataset.show): at most `num_rows` rows, cells
/// cut to 20 characters when `truncate`. Used by `sluice batch --print`.
Result<std::string> ShowTable(const arrow::Table& table, int64_t num_rows, bool truncate);

}  // namespace sluice::sink
