"""PyFlink (Table API, streaming mode) side of the benchmarks, run as its own process with the
Flink venv's python:

    bench/.venv-flink/bin/python flink_job.py SPEC.json

For each query and repetition: a filesystem source table over the same JSON-lines files (a
bounded source: the job ends when the files are read), a filesystem Parquet sink table in a fresh
directory, one `INSERT INTO ... SELECT`; the time from execute_sql() to the end of wait() (the
JVM / gateway start and TableEnvironment creation are not counted; the local mini-cluster start
of each job is). Printed as one JSON line after "BENCH_RESULT ".
"""
import json
import os
import sys
import time

from pyflink.table import EnvironmentSettings, TableEnvironment

RESULT_PREFIX = "BENCH_RESULT "


def main():
    spec = json.load(open(sys.argv[1]))
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = t_env.get_config()
    for key, value in spec["conf"].items():
        config.set(key, value)
    watermark = (f", WATERMARK FOR date_time AS date_time - INTERVAL '{spec['watermark_s']}' "
                 f"SECOND" if spec.get("watermark_s") else "")
    source_options = ", ".join(f"'{k}' = '{v}'" for k, v in spec["source_options"].items())
    sink_options = ", ".join(f"'{k}' = '{v}'" for k, v in spec["sink_options"].items())
    results = {}
    n = 0
    for q in spec["queries"]:
        runs = []
        for rep in range(spec["reps"]):
            n += 1
            out = f"{q['out_dir']}/rep{rep}"
            t_env.execute_sql("DROP TABLE IF EXISTS bids")
            t_env.execute_sql(
                f"CREATE TABLE bids ({spec['schema']}{watermark}) WITH ('connector' = "
                f"'filesystem', 'path' = '{spec['input']}', {source_options})")
            t_env.execute_sql(
                f"CREATE TABLE out_{n} ({q['sink_schema']}) WITH ('connector' = 'filesystem', "
                f"'path' = '{out}', {sink_options})")
            t0 = time.perf_counter()
            t_env.execute_sql(f"INSERT INTO out_{n} {q['select']}").wait()
            runs.append({"seconds": time.perf_counter() - t0, "out_dir": out})
        results[q["id"]] = runs
    import pyflink
    version = getattr(pyflink, "__version__", None)
    if version is None:
        from pyflink.version import __version__ as version
    print(RESULT_PREFIX + json.dumps({"queries": results, "versions": {"flink": version}}),
          flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
