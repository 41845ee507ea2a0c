"""DuckDB side of the benchmarks: the *static* (batch) form of each query, run as its own process:

    .venv/bin/python duckdb_job.py SPEC.json

For each query and repetition: a fresh in-memory database, a view `bids` over read_json() of the
same JSON-lines files with the same declared columns, and COPY (<query>) TO a Parquet file
(snappy, DuckDB's default). Timed from the view creation to the end of the COPY. Printed as one
JSON line after "BENCH_RESULT ".
"""
import json
import os
import sys
import time

import duckdb

from tree_cpu import tree_cpu_s

RESULT_PREFIX = "BENCH_RESULT "


def main():
    spec = json.load(open(sys.argv[1]))
    columns = "{" + ", ".join(f"'{c}': '{t}'" for c, t in spec["columns"].items()) + "}"
    results, settings = {}, {}
    for q in spec["queries"]:
        runs = []
        for rep in range(spec["reps"]):
            os.makedirs(q["out_dir"], exist_ok=True)
            out = f"{q['out_dir']}/rep{rep}.parquet"
            con = duckdb.connect()
            for key, value in spec["settings"].items():
                con.execute(f"SET {key} = '{value}'")
            t0, cpu0 = time.perf_counter(), tree_cpu_s()
            con.execute(f"CREATE VIEW bids AS SELECT * FROM read_json('{spec['input']}/*.json', "
                        f"format = 'newline_delimited', columns = {columns})")
            rows_out = con.execute(f"COPY ({q['select']}) TO '{out}' (FORMAT parquet)").fetchone()
            seconds, cpu_s = time.perf_counter() - t0, tree_cpu_s() - cpu0
            runs.append({"seconds": seconds, "cpu_s": cpu_s, "out_dir": out,
                         "rows_out": rows_out[0] if rows_out else None})
            settings = {"threads": con.execute("SELECT current_setting('threads')").fetchone()[0],
                        "memory_limit":
                            con.execute("SELECT current_setting('memory_limit')").fetchone()[0]}
            con.close()
        results[q["id"]] = runs
    print(RESULT_PREFIX + json.dumps({"queries": results, "effective_settings": settings,
                                      "versions": {"duckdb": duckdb.__version__}}), flush=True)


if __name__ == "__main__":
    main()
