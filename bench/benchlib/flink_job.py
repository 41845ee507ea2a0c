"""PyFlink (Table API, streaming mode) side of the benchmarks, run as its own process with the
Flink venv's python:

    bench/.venv-flink/bin/python flink_job.py SPEC.json

SPEC["kind"]:
  throughput  P1 / P2: for each query and repetition a filesystem source table `bids` over the
              JSON-lines files (bounded: the job ends when the files are read), a filesystem
              Parquet sink table in a fresh directory, one `INSERT INTO ... SELECT`.
  join        P5: the same with two source tables, `persons` and `auctions` (each with a
              watermark when SPEC["watermark_s"] is set), and the checkpoint statistics of each
              job (the largest completed checkpoint's state size), polled from the mini-cluster's
              REST endpoint on SPEC["rest_port"] while the job runs.

The time is from execute_sql() to the end of wait() (the JVM / gateway start and the
TableEnvironment creation are not counted; the local mini-cluster start of each job is). Printed
as one JSON line after "BENCH_RESULT ".
"""
import json
import os
import sys
import threading
import time
import urllib.request

from pyflink.table import EnvironmentSettings, TableEnvironment

from tree_cpu import tree_cpu_s

RESULT_PREFIX = "BENCH_RESULT "
POLL_S = 0.5


def options(spec_options: dict) -> str:
    return ", ".join(f"'{k}' = '{v}'" for k, v in spec_options.items())


def watermark(spec) -> str:
    return (f", WATERMARK FOR date_time AS date_time - INTERVAL '{spec['watermark_s']}' SECOND"
            if spec.get("watermark_s") else "")


def source_table(t_env, spec, name: str, schema: str, path: str) -> None:
    t_env.execute_sql(f"DROP TABLE IF EXISTS {name}")
    t_env.execute_sql(
        f"CREATE TABLE {name} ({schema}{watermark(spec)}) WITH ('connector' = 'filesystem', "
        f"'path' = '{path}', {options(spec['source_options'])})")


def sink_table(t_env, spec, name: str, schema: str, path: str) -> None:
    t_env.execute_sql(
        f"CREATE TABLE {name} ({schema}) WITH ('connector' = 'filesystem', 'path' = '{path}', "
        f"{options(spec['sink_options'])})")


def throughput(t_env, spec) -> dict:
    results = {}
    n = 0
    for q in spec["queries"]:
        runs = []
        for rep in range(spec["reps"]):
            n += 1
            out = f"{q['out_dir']}/rep{rep}"
            source_table(t_env, spec, "bids", spec["schema"], spec["input"])
            sink_table(t_env, spec, f"out_{n}", q["sink_schema"], out)
            t0, cpu0 = time.perf_counter(), tree_cpu_s()
            t_env.execute_sql(f"INSERT INTO out_{n} {q['select']}").wait()
            runs.append({"seconds": time.perf_counter() - t0, "cpu_s": tree_cpu_s() - cpu0,
                         "out_dir": out})
        results[q["id"]] = runs
    return {"queries": results}


class CheckpointStats(threading.Thread):
    """Polls GET /jobs/<id>/checkpoints of the job's mini-cluster until stopped, and keeps the
    largest state size of any completed checkpoint. Flink reports no state row counts; a
    checkpoint's size is that of the snapshot (what it wrote), taken every checkpoint interval, so
    it samples the state at those instants. The last answer is kept for the counts."""

    def __init__(self, port: int, job_id: str):
        super().__init__(daemon=True)
        self.url = f"http://127.0.0.1:{port}/jobs/{job_id}/checkpoints"
        self.done = threading.Event()
        self.state_bytes_max = None
        self.completed = 0
        self.answers = 0
        self.error = None

    def poll(self) -> None:
        try:
            with urllib.request.urlopen(self.url, timeout=10) as r:
                stats = json.load(r)
        except (OSError, ValueError) as e:   # the mini-cluster is not up yet, or gone
            self.error = f"{self.url}: {e}"
            return
        self.answers += 1
        self.completed = max(self.completed, stats.get("counts", {}).get("completed", 0))
        for c in stats.get("history", []) + [(stats.get("latest") or {}).get("completed") or {}]:
            if c.get("status", "COMPLETED") == "COMPLETED" and c.get("state_size") is not None:
                self.state_bytes_max = max(self.state_bytes_max or 0, c["state_size"])

    def run(self) -> None:
        while not self.done.wait(POLL_S):
            self.poll()


def join(t_env, spec) -> dict:
    runs = []
    for rep in range(spec["reps"]):
        out = f"{spec['out_dir']}/rep{rep}"
        source_table(t_env, spec, "persons", spec["persons_schema"], spec["persons"])
        source_table(t_env, spec, "auctions", spec["auctions_schema"], spec["auctions"])
        sink_table(t_env, spec, f"out_{rep}", spec["sink_schema"], out)
        t0, cpu0 = time.perf_counter(), tree_cpu_s()
        result = t_env.execute_sql(f"INSERT INTO out_{rep} {spec['select']}")
        stats = CheckpointStats(spec["rest_port"], str(result.get_job_client().get_job_id()))
        stats.start()
        result.wait()
        seconds, cpu_s = time.perf_counter() - t0, tree_cpu_s() - cpu0
        stats.done.set()
        stats.join()
        stats.poll()   # the final checkpoint, if the job's mini-cluster still answers
        runs.append({"seconds": seconds, "cpu_s": cpu_s, "out_dir": out,
                     "state_bytes_max": stats.state_bytes_max,
                     "checkpoints_completed": stats.completed,
                     "checkpoint_stats_answers": stats.answers,
                     "checkpoint_stats_error": None if stats.answers else stats.error})
    return {"runs": runs}


def main():
    spec = json.load(open(sys.argv[1]))
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = t_env.get_config()
    for key, value in spec["conf"].items():
        config.set(key, value)
    result = {"throughput": throughput, "join": join}[spec.get("kind", "throughput")](t_env, spec)
    import pyflink
    version = getattr(pyflink, "__version__", None)
    if version is None:
        from pyflink.version import __version__ as version
    result["versions"] = {"flink": version}
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
