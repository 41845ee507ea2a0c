"""The physical bound: Arrow's JSON reader alone on the same bytes, run as its own process:

    .venv/bin/python arrow_job.py SPEC.json

The files are read into memory first (not timed), and parsed `warmup` times untimed when the spec
says so; each repetition then parses every file with
pyarrow.json.read_json (the C++ arrow::json::TableReader that sluice's file source uses), with the
bid table's explicit schema, timestamps parsed to timestamp[us], threads on (Arrow's CPU pool,
one thread per core). Rows/s = rows / parse seconds. Printed after "BENCH_RESULT ".
"""
import io
import json
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.json as pj

from tree_cpu import tree_cpu_s

RESULT_PREFIX = "BENCH_RESULT "
SCHEMA = pa.schema([("auction", pa.int64()), ("bidder", pa.int64()), ("price", pa.int64()),
                    ("channel", pa.string()), ("url", pa.string()),
                    ("date_time", pa.timestamp("us")), ("extra", pa.string())])


def main():
    spec = json.load(open(sys.argv[1]))
    blobs = [p.read_bytes() for p in sorted(Path(spec["input"]).glob("*.json"))]
    parse = pj.ParseOptions(explicit_schema=SCHEMA, unexpected_field_behavior="ignore")
    read = pj.ReadOptions(use_threads=True)
    runs = []
    for _ in range(spec.get("warmup", 0)):   # untimed: as warm as the second of several repetitions
        for blob in blobs:
            pj.read_json(io.BytesIO(blob), read_options=read, parse_options=parse)
    for _ in range(spec["reps"]):
        rows = 0
        t0, cpu0 = time.perf_counter(), tree_cpu_s()
        for blob in blobs:
            rows += pj.read_json(io.BytesIO(blob), read_options=read, parse_options=parse).num_rows
        runs.append({"seconds": time.perf_counter() - t0, "cpu_s": tree_cpu_s() - cpu0, "rows": rows})
    print(RESULT_PREFIX + json.dumps({"runs": runs, "bytes": sum(map(len, blobs)),
                                      "cpu_count": pa.cpu_count(),
                                      "versions": {"pyarrow": pa.__version__}}), flush=True)


if __name__ == "__main__":
    main()
