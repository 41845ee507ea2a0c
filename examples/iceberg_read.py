"""Reads an Iceberg table written by sluice with PyIceberg (an outside reader) through its SQL
catalog, and prints what it sees: rows, distinct ids, and every snapshot with its operation
and the streaming keys of its summary (query id, batch id = epochId).

  iceberg_read.py URI WAREHOUSE TABLE [--expect-ids N] [--expect-snapshots K]

With --expect-ids N, exits 1 unless the ids are exactly 0..N-1, each once (no gap, no
duplicate); with --expect-snapshots K, unless the table has exactly K snapshots."""
import argparse
import os
import sys
from collections import Counter

from pyiceberg.catalog.sql import SqlCatalog


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("uri")
    p.add_argument("warehouse")
    p.add_argument("table")
    p.add_argument("--expect-ids", type=int)
    p.add_argument("--expect-snapshots", type=int)
    args = p.parse_args()
    catalog = SqlCatalog(args.table.split(".")[0], uri=args.uri,
                         warehouse="file://" + os.path.abspath(args.warehouse))
    table = catalog.load_table(".".join(args.table.split(".")[1:]))
    ids = table.scan(selected_fields=("id",)).to_arrow().column("id").to_pylist()
    counts = Counter(ids)
    duplicates = sum(c - 1 for c in counts.values())
    print(f"PyIceberg reads {args.table}: {len(ids)} rows, {len(counts)} distinct ids, {duplicates} duplicates")
    print(f"  metadata: {table.metadata_location}")
    for s in table.snapshots():
        props = s.summary.additional_properties if s.summary else {}
        query = props.get("spark.sql.streaming.queryId", "-")
        print(f"  snapshot {s.snapshot_id}: {s.summary.operation.value:<9} queryId={query[:8]}... "
              f"epochId={props.get('spark.sql.streaming.epochId', '-')} "
              f"added-records={props.get('added-records', '0')} total-records={props.get('total-records', '?')}")
    if args.expect_ids is not None:
        missing = sorted(set(range(args.expect_ids)) - set(counts))
        extra = sorted(set(counts) - set(range(args.expect_ids)))
        if duplicates or missing or extra or len(ids) != args.expect_ids:
            print(f"FAILED: expected ids 0..{args.expect_ids - 1} once each; {duplicates} duplicates, "
                  f"missing {missing[:10]}, unexpected {extra[:10]}")
            return 1
    if args.expect_snapshots is not None and len(table.snapshots()) != args.expect_snapshots:
        print(f"FAILED: expected {args.expect_snapshots} snapshots, found {len(table.snapshots())}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
