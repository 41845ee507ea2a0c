#!/bin/sh
# Kafka -> Parquet throughput: sluice's Kafka source against Spark's; run with the repo's .venv.
''''exec "$(dirname "$0")/../.venv/bin/python" "$0" "$@" # '''
"""bench/kafka_q0.py [--events N] [--partitions P] [--reps R] [--name NAME] [--max-offsets-per-trigger M]

Nexmark q0 (pass-through) over the bids of the benchmarks' Nexmark stream (benchlib/nexmark.py),
produced as JSON values to a Kafka topic on a local single-node broker (scripts/kafka-broker),
read back by a streaming query with an availableNow trigger that writes each record (value as
text, partition, offset, timestamp) to Parquet files:

  sluice  `sluice run PIPELINE.sql --trigger available-now`, one process per repetition; time =
          the process's wall time (start-up included).
  Spark   PySpark Structured Streaming, local[2], format("kafka") (Spark's Kafka source,
          org.apache.spark:spark-sql-kafka-0-10_2.13 from Maven, bench/kafka/pom.xml, into the
          git-ignored .cache/); time = readStream to the end of awaitTermination(), JVM start
          excluded, as in bench/README.md.

Both read every record from 'earliest', with no per-trigger limit unless --max-offsets-per-trigger
gives one (maxOffsetsPerTrigger for both: a backlog caught up in many small batches, where the
cost of starting each batch's read shows). Writes bench/results/<NAME>.json and .md (default
name kafka_q0). Not part of `make test`; `make bench-kafka` runs it."""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from benchlib import nexmark  # noqa: E402
from benchlib.context import parquet_rows  # noqa: E402
from benchlib.measure import run_process  # noqa: E402

BROKER = REPO / "scripts" / "kafka-broker"
# q0 on Kafka: every record passed through, its value (the bid's JSON) decoded as text. The same
# query in both engines' SQL (Spark reads "partition" as a string literal, sluice as a column).
SLUICE_Q0 = ('SELECT CAST(value AS STRING) AS bid, "partition" AS kafka_partition, "offset" AS kafka_offset, '
             '"timestamp" AS kafka_timestamp FROM bids_topic')
SPARK_Q0 = ("SELECT CAST(value AS STRING) AS bid, `partition` AS kafka_partition, `offset` AS kafka_offset, "
            "`timestamp` AS kafka_timestamp FROM bids_topic")


def pyspark_version() -> str:
    import pyspark
    return pyspark.__version__


def spark_kafka_jars(version: str) -> list[str]:
    """The connector jars for `version` (fetched once with Maven into .cache/)."""
    cache = REPO / ".cache" / f"spark-sql-kafka-{version}"
    if not (cache / ".complete").exists():
        tmp = cache.with_name(cache.name + ".tmp")
        subprocess.run(["rm", "-rf", str(tmp)], check=True)
        tmp.mkdir(parents=True)
        got = subprocess.run(["mvn", "-q", "-B", "dependency:copy-dependencies", f"-Dspark.version={version}",
                              "-DincludeScope=runtime", f"-DoutputDirectory={tmp}"], cwd=BENCH / "kafka")
        if got.returncode != 0:
            raise SystemExit(f"kafka_q0: Maven could not fetch spark-sql-kafka-0-10_2.13:{version} (bench/kafka/pom.xml);"
                             " pass --spark-connector-version with a version Maven Central has")
        (tmp / ".complete").touch()
        subprocess.run(["rm", "-rf", str(cache)], check=True)
        tmp.rename(cache)
    # Jars PySpark already ships (Scala, Hadoop, compression codecs) come from PySpark, in its versions.
    import pyspark
    artifact = lambda name: re.sub(r"-\d[\w.\-]*\.jar$", "", name)  # noqa: E731
    shipped = {artifact(p.name) for p in (Path(pyspark.__file__).parent / "jars").glob("*.jar")}
    return sorted(str(p) for p in cache.glob("*.jar") if artifact(p.name) not in shipped)


def bid_values(events: int) -> list[bytes]:
    manifest = nexmark.generate_stream(BENCH / "data", nexmark.StreamSpec(events=events))
    out = []
    for f in sorted((Path(manifest["dir"]) / "bid").glob("part-*.json")):
        out += [line.encode() for line in f.read_text().splitlines() if line]
    return out


def produce(bootstrap: str, topic: str, partitions: int, values: list[bytes]) -> float:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])[topic].result(60)
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "batch.size": 1 << 20,
                  "compression.type": "none"})
    t0 = time.perf_counter()
    for i, v in enumerate(values):
        while True:
            try:
                p.produce(topic, value=v, partition=i % partitions)
                break
            except BufferError:
                p.poll(0.1)
    assert p.flush(120) == 0
    return time.perf_counter() - t0


def run_sluice(bootstrap: str, topic: str, work: Path, reps: int, sluice_bin: str, per_trigger: int | None) -> dict:
    limit = f", max_offsets_per_trigger = {per_trigger}" if per_trigger else ""
    runs = []
    for rep in range(reps):
        d = work / "sluice" / f"rep{rep}"
        subprocess.run(["rm", "-rf", str(d)], check=True)
        d.mkdir(parents=True)
        sql = f"""
CREATE TABLE bids_topic () WITH (connector = 'kafka', bootstrap_servers = '{bootstrap}', subscribe = '{topic}',
                                 starting_offsets = 'earliest'{limit});
CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '{d / "out"}');
INSERT INTO out {SLUICE_Q0};
"""
        (d / "pipeline.sql").write_text(sql)
        cmd = [sluice_bin, "run", str(d / "pipeline.sql"), "--checkpoint",
               str(d / "ckpt"), "--trigger", "available-now", "--progress", str(d / "progress.jsonl")]
        run = run_process(cmd, cwd=d, timeout_s=1800, log_dir=d)
        if not run.ok:
            return {"status": "failed", "error": run.error_text(), "pipeline": sql}
        progress = [json.loads(x) for x in (d / "progress.jsonl").read_text().splitlines() if x.strip()]
        runs.append({"seconds": run.wall_s, "rows_in": sum(p["numInputRows"] for p in progress),
                     "rows_out": parquet_rows(d / "out"), "batches": len(progress),
                     "peak_rss_bytes": run.peak_rss_bytes})
    return {"status": "ok", "runs": runs, "pipeline": sql}


SPARK_JOB = r'''
import json, sys, time
from pyspark.sql import SparkSession
spec = json.load(open(sys.argv[1]))
b = SparkSession.builder.master("local[2]").appName("sluice-bench-kafka")
for k, v in spec["conf"].items():
    b = b.config(k, v)
spark = b.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")
runs = []
for rep in range(spec["reps"]):
    t0 = time.perf_counter()
    reader = (spark.readStream.format("kafka").option("kafka.bootstrap.servers", spec["bootstrap"])
              .option("subscribe", spec["topic"]).option("startingOffsets", "earliest"))
    if spec["per_trigger"]:
        reader = reader.option("maxOffsetsPerTrigger", spec["per_trigger"])
    df = reader.load()
    df.createOrReplaceTempView("bids_topic")
    q = (spark.sql(spec["select"]).writeStream.format("parquet")
         .option("path", f"{spec['out']}/rep{rep}").option("checkpointLocation", f"{spec['ckpt']}/rep{rep}")
         .trigger(availableNow=True).start())
    q.awaitTermination()
    runs.append({"seconds": time.perf_counter() - t0, "rows_in": sum(p["numInputRows"] for p in q.recentProgress),
                 "batches": len(q.recentProgress), "out": f"{spec['out']}/rep{rep}"})
print("BENCH_RESULT " + json.dumps({"runs": runs, "spark": spark.version}), flush=True)
spark.stop()
'''


def run_spark(bootstrap: str, topic: str, work: Path, reps: int, jars: list[str], per_trigger: int | None) -> dict:
    d = work / "spark"
    subprocess.run(["rm", "-rf", str(d)], check=True)
    d.mkdir(parents=True)
    select = SPARK_Q0
    spec = {"bootstrap": bootstrap, "topic": topic, "reps": reps, "select": select, "out": str(d / "out"),
            "per_trigger": per_trigger,
            "ckpt": str(d / "ckpt"),
            # recentProgress keeps the last 100 batches unless told otherwise (small batches: more)
            "conf": {"spark.jars": ",".join(jars), "spark.sql.shuffle.partitions": "2",
                     "spark.sql.streaming.numRecentProgressUpdates": "1000000",
                     "spark.sql.session.timeZone": "UTC", "spark.ui.showConsoleProgress": "false"}}
    (d / "spec.json").write_text(json.dumps(spec))
    (d / "job.py").write_text(SPARK_JOB)
    run = run_process([sys.executable, str(d / "job.py"), str(d / "spec.json")], cwd=d, timeout_s=1800, log_dir=d)
    result = run.job_result()
    if not run.ok or result is None:
        return {"status": "failed", "error": run.error_text(), "select": select}
    for r in result["runs"]:
        r["rows_out"] = parquet_rows(r.pop("out"))
    return {"status": "ok", "runs": result["runs"], "spark_version": result["spark"], "select": select,
            "process_wall_s": run.wall_s, "peak_rss_bytes": run.peak_rss_bytes}


def markdown(res: dict) -> str:
    limit = res.get("max_offsets_per_trigger")
    lines = [f"# Kafka -> Parquet: Nexmark q0 over {res['records']:,} bids in a {res['partitions']}-partition topic",
             "", f"maxOffsetsPerTrigger: {limit:,}." if limit else "No per-trigger limit.", "", "```sql", "-- sluice", SLUICE_Q0, "-- Spark", SPARK_Q0, "```",
             "", f"Machine: {res['machine']}; load average at start {res['load_average_start']}.",
             f"Producing the topic took {res['produce_s']:.1f} s (not measured below).", "",
             "| engine | run | seconds | rows in | rows out | rows/s | batches |", "|---|---|---|---|---|---|---|"]
    for engine in ("sluice", "spark"):
        r = res[engine]
        if r["status"] != "ok":
            lines.append(f"| {engine} | — | failed: {r['error'][-300:]!r} | | | | |")
            continue
        for i, run in enumerate(r["runs"]):
            lines.append(f"| {engine} | {i} | {run['seconds']:.2f} | {run['rows_in']:,} | {run['rows_out']:,} | "
                         f"{run['rows_in'] / run['seconds']:,.0f} | {run['batches']} |")
    lines += ["", "sluice's time is the whole `sluice run` process (start-up included); Spark's is measured",
              "inside its process from readStream to the end of awaitTermination() (JVM start excluded;",
              "later repetitions run warm). Spark's Kafka source: " + res["spark_connector"] + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=1_000_000, help="Nexmark events (92 %% are bids)")
    ap.add_argument("--partitions", type=int, default=2)
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--name", default="kafka_q0")
    ap.add_argument("--engines", default="sluice,spark")
    ap.add_argument("--max-offsets-per-trigger", type=int, default=None,
                    help="records per batch at most, for both engines (default: no limit)")
    ap.add_argument("--sluice-bin", default=str(REPO / "build" / "bin" / "sluice"))
    ap.add_argument("--spark-connector-version", default=None,
                    help="spark-sql-kafka-0-10 version (default: the installed PySpark's)")
    args = ap.parse_args(argv)
    engines = args.engines.split(",")
    work = BENCH / "work" / args.name
    broker_dir = work / "broker"
    subprocess.run(["rm", "-rf", str(work)], check=True)
    work.mkdir(parents=True)
    values = bid_values(args.events)
    connector = args.spark_connector_version or pyspark_version()
    jars = spark_kafka_jars(connector) if "spark" in engines else []
    start = subprocess.run([str(BROKER), "start", str(broker_dir)], capture_output=True, text=True, timeout=600)
    if start.returncode != 0:
        print(start.stderr, file=sys.stderr)
        return 1
    bootstrap = start.stdout.strip().splitlines()[-1]
    try:
        res = {"records": len(values), "partitions": args.partitions,
               "max_offsets_per_trigger": args.max_offsets_per_trigger, "machine": f"{os.cpu_count()} cores, "
               f"{platform.platform()}", "load_average_start": [round(x, 1) for x in os.getloadavg()],
               "spark_connector": f"org.apache.spark:spark-sql-kafka-0-10_2.13:{connector} on PySpark "
                                  f"{pyspark_version()}"}
        res["produce_s"] = produce(bootstrap, "bids", args.partitions, values)
        skipped = {"status": "failed", "error": "not run (--engines)"}
        per_trigger = args.max_offsets_per_trigger
        res["sluice"] = (run_sluice(bootstrap, "bids", work, args.reps, args.sluice_bin, per_trigger)
                         if "sluice" in engines else skipped)
        res["spark"] = run_spark(bootstrap, "bids", work, args.reps, jars, per_trigger) if "spark" in engines else skipped
    finally:
        subprocess.run([str(BROKER), "stop", str(broker_dir)], timeout=120)
    out = BENCH / "results"
    (out / f"{args.name}.json").write_text(json.dumps(res, indent=1) + "\n")
    (out / f"{args.name}.md").write_text(markdown(res))
    print(markdown(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
