// The static side of a stream-static join, as a source of the micro-batch protocol. Its offset
// is the VERSION of the table: for files, the sorted list of data files with their sizes; for an
// Iceberg table, the snapshot id; for in-memory data, the row count. Every batch reads the whole
// table at the version recorded in its offsets entry, so a redone batch joins against the same
// rows even if the table changed since (a file rewritten in place is the one case it cannot
// reproduce: the listing records sizes, and a changed size is refused). A new version alone does
// not start a batch: the next batch of the stream picks it up (Spark re-reads the static side
// when a batch is planned, too).
#pragma once

#include "source/source.h"

namespace sluice::source {

/// A Source over `spec` (not streaming). Its IsStatic() is true.
Result<std::unique_ptr<Source>> MakeStaticTableSource(const plan::SourceSpec& spec,
                                                      std::shared_ptr<arrow::Schema> schema, const SourceContext& ctx);

}  // namespace sluice::source
