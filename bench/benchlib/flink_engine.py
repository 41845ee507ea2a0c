"""PyFlink (Table API, streaming mode, local mini-cluster) as a peer: harness side of flink_job.py.

It runs where the workload maps onto Flink: P1 (filesystem JSON source -> filesystem Parquet
sink), P2 (the same with a watermark and a TUMBLE window) and P5 (q3 as a regular join, q8 as an
interval join; see workloads.P5). Not P3 (Flink has no micro-batches) nor P4 (its recovery is
from a Flink checkpoint / savepoint, a different protocol).

At the end of a bounded input Flink's watermark jumps to +infinity, so P2 emits *every* window,
including the last ones that Spark and sluice keep open (their watermark stops at the input's
max event time minus the delay), which makes Flink's row count higher. But the filesystem source
hands the files to its readers in no fixed order, so the rows of a file read after a later one
arrive behind the watermark: P2's window drops them and P5_q8's interval join finds the rows they
would have matched gone. Flink's P2 and q8 row counts are therefore usually lower and vary from
run to run (bench/README.md); its rows/s is still input rows per second.
"""
from __future__ import annotations

import socket
from pathlib import Path

from . import workloads as wl
from .context import Context, failed, not_applicable, parquet_rows
from .measure import cpu_fields, run_job, summary

# bench/setup.sh puts them in .venv-flink/jars: the Parquet format and the Hadoop classes it needs
JARS = ("flink-sql-parquet-2.3.0.jar", "hadoop-client-api-3.3.6.jar",
        "hadoop-client-runtime-3.3.6.jar")
# Everything given to Flink, and why (the report prints this).
CONF = {
    # Flink's local execution docs: the parallelism of a local run; 2 = cores (as local[2]).
    "parallelism.default": "2",
    # Correctness: zone-less timestamps are UTC as in every other engine.
    "table.local-time-zone": "UTC",
    # The filesystem sink commits files on checkpoints in streaming mode (filesystem connector
    # docs); a bounded job also commits at its end. 10 s = a commit every 10 s as Spark's batches.
    "execution.checkpointing.interval": "10 s",
}
SOURCE_OPTIONS = {"format": "json", "json.timestamp-format.standard": "ISO-8601"}
SINK_OPTIONS = {"format": "parquet", "parquet.compression": "SNAPPY"}
CONF_NOTES = dict(
    CONF, mode="streaming (EnvironmentSettings.in_streaming_mode)",
    source="filesystem, format json, json.timestamp-format.standard=ISO-8601 (our data's format)",
    sink="filesystem, format parquet, parquet.compression=SNAPPY (as sluice's and Spark's)",
    other="defaults: mini-cluster memory, HashMap state backend",
    **{"pipeline.jars": f"{', '.join(JARS)} (the Parquet format and the Hadoop classes it "
                        "needs, added as Flink's docs describe)"})


def _jars(ctx: Context) -> list[Path]:
    return [ctx.flink_python.parent.parent / "jars" / j for j in JARS]


def available(ctx: Context) -> bool:
    return ctx.flink_python.exists() and all(j.exists() for j in _jars(ctx))


def throughput(ctx: Context, queries: list[wl.Query], input_dir: Path, workload: str, rows_in: int,
               *, watermark_s: int | None = None) -> dict[str, dict]:
    if not available(ctx):
        return {q.id: not_applicable("PyFlink venv or its Parquet jar missing: run bench/setup.sh")
                for q in queries}
    d = ctx.fresh_dir(workload, "flink")
    jars = ";".join(j.as_uri() for j in _jars(ctx))
    spec = {"conf": dict(CONF, **{"pipeline.jars": jars}),
            "source_options": SOURCE_OPTIONS, "sink_options": SINK_OPTIONS,
            "schema": wl.bid_schema("flink"), "input": str(input_dir), "reps": ctx.reps,
            "watermark_s": watermark_s,
            "queries": [{"id": q.id, "select": q.text("flink"), "sink_schema": q.flink_sink,
                         "out_dir": str(d / q.id)} for q in queries]}
    run, result = run_job(ctx, ctx.flink_python, "flink_job.py", d, spec)
    if not run.ok or result is None:
        return {q.id: failed(run.error_text()) for q in queries}
    out = {}
    for q in queries:
        runs = result["queries"][q.id]
        seconds = [r["seconds"] for r in runs]
        out[q.id] = {
            "status": "ok", "seconds": summary(seconds),
            "rows_per_s": summary([rows_in / s for s in seconds]),
            **cpu_fields([r.get("cpu_s") for r in runs], [rows_in] * len(runs)),
            "process_wall_s": summary([run.wall_s]), "peak_rss_bytes": run.peak_rss_bytes,
            "rows_in": rows_in, "rows_out": parquet_rows(runs[-1]["out_dir"]),
            "settings": CONF_NOTES, "query": q.text("flink"),
            "rss_scope": f"one process for {', '.join(x.id for x in queries)}",
            "versions": result["versions"]}
    return out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def join_throughput(ctx: Context, query: wl.JoinQuery, persons: Path, auctions: Path,
                    input_rows: int) -> dict:
    """P5: one Flink process for the query's repetitions; rows/s over `input_rows` (the rows of
    the tables sluice and Spark stream: q3 the auctions, q8 persons and auctions), although Flink
    also streams q3's persons. State: the largest completed checkpoint's size (Flink's checkpoint
    statistics, read from the mini-cluster's REST endpoint on a free loopback port)."""
    if not available(ctx):
        return not_applicable("PyFlink venv or its Parquet jar missing: run bench/setup.sh")
    d = ctx.fresh_dir(query.id, "flink")
    port = _free_port()
    conf = dict(CONF, **{"pipeline.jars": ";".join(j.as_uri() for j in _jars(ctx)),
                         "rest.address": "127.0.0.1", "rest.bind-address": "127.0.0.1",
                         "rest.port": str(port)})
    watermark_s = None if query.persons_static else int(wl.JOIN_WATERMARK.split()[0])
    spec = {"kind": "join", "conf": conf, "source_options": SOURCE_OPTIONS,
            "sink_options": SINK_OPTIONS, "reps": ctx.reps, "rest_port": port,
            "persons": str(persons), "auctions": str(auctions),
            "persons_schema": wl.table_schema(wl.PERSON_COLUMNS, "flink"),
            "auctions_schema": wl.table_schema(wl.AUCTION_COLUMNS, "flink"),
            "watermark_s": watermark_s, "select": query.text("flink"),
            "sink_schema": query.flink_sink, "out_dir": str(d / "out")}
    run, result = run_job(ctx, ctx.flink_python, "flink_job.py", d, spec)
    if not run.ok or result is None:
        return failed(run.error_text())
    runs = result["runs"]
    seconds = [r["seconds"] for r in runs]
    state = [r["state_bytes_max"] for r in runs if r["state_bytes_max"] is not None]
    return {"status": "ok", "seconds": summary(seconds),
            "rows_per_s": summary([input_rows / s for s in seconds]),
            **cpu_fields([r.get("cpu_s") for r in runs], [input_rows] * len(runs)),
            "process_wall_s": summary([run.wall_s]), "peak_rss_bytes": run.peak_rss_bytes,
            "rows_in": None, "rows_out": parquet_rows(runs[-1]["out_dir"]),
            "rows_out_per_rep": [parquet_rows(r["out_dir"]) for r in runs],
            # Flink reports no state rows; bytes: the largest completed checkpoint of any rep
            "state_rows_max": None, "state_bytes_max": max(state) if state else None,
            "checkpoints_completed": [r["checkpoints_completed"] for r in runs],
            "checkpoint_stats_error": next((r["checkpoint_stats_error"] for r in runs
                                            if r["checkpoint_stats_error"]), None),
            "settings": dict(CONF_NOTES, watermark=(f"{watermark_s} s on persons and auctions"
                                                    if watermark_s else "none (regular join)"),
                             form=query.flink_form,
                             state="largest completed checkpoint (REST checkpoint statistics)"),
            "query": query.text("flink"), "versions": result["versions"]}
