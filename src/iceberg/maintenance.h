// Table maintenance against the small files a streaming writer leaves: compaction (rewrite small
// data files into larger ones in a `replace` snapshot) and snapshot expiry (drop old snapshots
// and delete the files only they referenced). Both commit through the catalog with the same
// optimistic retry as appends, so they may run while a stream appends to the table.
#pragma once

#include <cstdint>
#include <string>

#include "iceberg/catalog.h"

namespace sluice::iceberg {

struct CompactResult {
  int64_t rewritten_files = 0;  // small files replaced
  int64_t added_files = 0;
  int64_t rows = 0;
  bool committed = false;  // false: fewer than two small files, nothing to do
};

/// Rewrites every live data file smaller than 3/4 of `target_file_size` into files of about
/// `target_file_size` bytes, as one `replace` snapshot (same rows, fewer files). In a partitioned
/// table the small files of each partition are rewritten together (a partition with a single
/// small file is left as it is); a new file never mixes partitions. The current
/// snapshot's streaming marker (spark.sql.streaming.queryId/epochId) is carried over.
Result<CompactResult> CompactTable(Catalog* catalog, io::FileSystem* fs, const TableIdent& ident,
                                   int64_t target_file_size);

struct ExpireResult {
  int64_t expired_snapshots = 0;
  int64_t deleted_files = 0;  // data files, manifests and manifest lists
};

/// Removes snapshots older than `older_than_ms` (epoch millis) except: the `retain_last` most
/// recent snapshots of the current ancestry, and the ancestry back to the newest snapshot
/// carrying a streaming query marker (spark.sql.streaming.queryId), so a running stream's
/// exactly-once check keeps working. Then deletes files no retained snapshot references.
Result<ExpireResult> ExpireSnapshots(Catalog* catalog, io::FileSystem* fs, const TableIdent& ident,
                                     int64_t older_than_ms, int retain_last = 1);

}  // namespace sluice::iceberg
