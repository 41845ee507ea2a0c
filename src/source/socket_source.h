// The socket source (Spark's "socket"): UTF-8 lines read from a TCP server, one `value` row per
// line (plus `timestamp` with includeTimestamp=true). A TOY for demos: rows live only in this
// process's memory, so rows that arrive while the query is down are lost and a batch cannot be
// re-run after a restart. sluice warns when it is used with a checkpoint and never claims
// exactly-once for it.
#pragma once

#include "source/source.h"

namespace sluice::source {

Status ValidateSocketSourceSpec(const plan::SourceSpec& spec);
/// Connects at once; an unreachable host:port is an error naming it.
Result<std::unique_ptr<Source>> MakeSocketSource(const plan::SourceSpec& spec, const SourceContext& ctx);
std::shared_ptr<arrow::Schema> SocketSourceSchema(bool include_timestamp);

}  // namespace sluice::source
