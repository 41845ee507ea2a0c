"""PySpark Structured Streaming side of the benchmarks, run as its own process:

    .venv/bin/python spark_job.py SPEC.json

SPEC["kind"]:
  throughput     for each query and repetition: a fresh checkpoint and output directory,
                 readStream.json -> SQL -> writeStream.parquet, trigger(availableNow=True); the time
                 from readStream to the end of awaitTermination() (the JVM and session start are
                 not counted) and the input rows from the query's progress.
  small_batches  one 100-row file per batch (maxFilesPerTrigger=1) under trigger(processingTime);
                 every batch's durationMs.triggerExecution.
  join           P5: persons and auctions joined (spec["select"]) into Parquet, availableNow; the
                 time, the input rows and the largest state (rows, bytes) of any batch.
  keyed_state    runs the stateful query with the default trigger until it is killed (the harness
                 kills it with SIGKILL); writes the epoch time just before start() to
                 SPEC["started_marker"].

The measurements are printed as one JSON line after "BENCH_RESULT ".
"""
import json
import os
import sys
import time

from pyspark.sql import SparkSession

from tree_cpu import tree_cpu_s

RESULT_PREFIX = "BENCH_RESULT "


def session(spec):
    builder = SparkSession.builder.master(spec["master"]).appName("sluice-bench")
    for key, value in spec["conf"].items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def source(spark, spec, path, files_per_trigger):
    reader = spark.readStream.schema(spec["schema"])
    if files_per_trigger:
        reader = reader.option("maxFilesPerTrigger", files_per_trigger)
    df = reader.json(path)
    if spec.get("watermark"):
        df = df.withWatermark("date_time", spec["watermark"])
    df.createOrReplaceTempView("bids")
    return df


def input_rows(query):
    return sum(p["numInputRows"] for p in query.recentProgress)


def throughput(spark, spec):
    results = {}
    for q in spec["queries"]:
        runs = []
        for rep in range(spec["reps"]):
            out, ckpt = f"{q['out_dir']}/rep{rep}", f"{q['ckpt_dir']}/rep{rep}"
            t0, cpu0 = time.perf_counter(), tree_cpu_s()
            source(spark, spec, spec["input"], spec["files_per_trigger"])
            writer = (spark.sql(q["select"]).writeStream.format("parquet")
                      .option("path", out).option("checkpointLocation", ckpt)
                      .outputMode(spec.get("output_mode", "append"))
                      .trigger(availableNow=True))
            query = writer.start()
            query.awaitTermination()
            seconds, cpu_s = time.perf_counter() - t0, tree_cpu_s() - cpu0
            if query.exception() is not None:
                raise RuntimeError(str(query.exception()))
            runs.append({"seconds": seconds, "cpu_s": cpu_s, "rows_in": input_rows(query), "out_dir": out,
                         "batches": len(query.recentProgress)})
        results[q["id"]] = runs
    return {"queries": results}


def small_batches(spark, spec):
    runs = []
    for rep in range(spec["reps"]):
        ckpt, out = f"{spec['ckpt_dir']}/rep{rep}", f"{spec['out_dir']}/rep{rep}"
        source(spark, spec, spec["input"], 1)
        query = (spark.sql(spec["select"]).writeStream.format("parquet")
                 .option("path", out).option("checkpointLocation", ckpt)
                 .trigger(processingTime=f"{spec['trigger_ms']} milliseconds").start())
        seen = {}
        while len(seen) < spec["batches"]:
            if query.exception() is not None:
                raise RuntimeError(str(query.exception()))
            for p in query.recentProgress:
                if p["numInputRows"] > 0:
                    seen[p["batchId"]] = p
            time.sleep(0.02)
        query.stop()
        progress = [seen[b] for b in sorted(seen)]
        runs.append({"trigger_ms": [p["durationMs"]["triggerExecution"] for p in progress],
                     "batch_ids": [p["batchId"] for p in progress],
                     "rows": [p["numInputRows"] for p in progress]})
    return {"runs": runs}


def keyed_state(spark, spec):
    source(spark, spec, spec["input"], 1)
    writer = (spark.sql(spec["select"]).writeStream.format("console")
              .option("numRows", 1).option("checkpointLocation", spec["ckpt_dir"])
              .outputMode("update"))
    with open(spec["started_marker"], "w") as f:
        f.write(repr(time.time()))
    query = writer.start()
    query.awaitTermination()
    return {}


def state_size(progress):
    rows = [sum(op.get("numRowsTotal", 0) for op in p.get("stateOperators", [])) for p in progress]
    size = [sum(op.get("memoryUsedBytes", 0) for op in p.get("stateOperators", [])) for p in progress]
    return {"state_rows_max": max(rows, default=0), "state_bytes_max": max(size, default=0)}


def join(spark, spec):
    """P5: persons (static, or a watermarked stream) and auctions (a watermarked stream)."""
    runs = []
    for rep in range(spec["reps"]):
        out, ckpt = f"{spec['out_dir']}/rep{rep}", f"{spec['ckpt_dir']}/rep{rep}"
        t0, cpu0 = time.perf_counter(), tree_cpu_s()
        if spec["persons_static"]:
            spark.read.schema(spec["persons_schema"]).json(spec["persons"]).createOrReplaceTempView("persons")
        else:
            (spark.readStream.schema(spec["persons_schema"]).option("maxFilesPerTrigger", spec["files_per_trigger"])
             .json(spec["persons"]).withWatermark("date_time", spec["watermark"]).createOrReplaceTempView("persons"))
        (spark.readStream.schema(spec["auctions_schema"]).option("maxFilesPerTrigger", spec["files_per_trigger"])
         .json(spec["auctions"]).withWatermark("date_time", spec["watermark"]).createOrReplaceTempView("auctions"))
        query = (spark.sql(spec["select"]).writeStream.format("parquet").option("path", out)
                 .option("checkpointLocation", ckpt).trigger(availableNow=True).start())
        query.awaitTermination()
        seconds, cpu_s = time.perf_counter() - t0, tree_cpu_s() - cpu0
        if query.exception() is not None:
            raise RuntimeError(str(query.exception()))
        runs.append({"seconds": seconds, "cpu_s": cpu_s, "rows_in": input_rows(query), "out_dir": out,
                     **state_size(query.recentProgress)})
    return {"runs": runs}


def main():
    spec = json.load(open(sys.argv[1]))
    spark = session(spec)
    result = {"kind": spec["kind"]}
    result.update({"throughput": throughput, "small_batches": small_batches,
                   "keyed_state": keyed_state, "join": join}[spec["kind"]](spark, spec))
    result["versions"] = {"spark": spark.version}
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    spark.stop()
    os._exit(0)


if __name__ == "__main__":
    main()
