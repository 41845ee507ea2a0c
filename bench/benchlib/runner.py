"""Runs the selected workloads on the selected engines and returns the results document
(before ratios and goals, which report.py derives). Every engine run is isolated: a failure is
recorded with its error text and the run goes on."""
from __future__ import annotations

import dataclasses
import traceback
from pathlib import Path

from . import flink_engine, nexmark, restart, sluice_engine, spark_engine, static_engines
from . import workloads as wl
from .context import Context, failed
from .measure import summary

ENGINES = ("sluice", "spark", "flink", "duckdb", "arrow_json")
WORKLOADS = ("P1", "P2", "P3", "P4", "P5", "P6")


@dataclasses.dataclass
class Plan:
    name: str
    events: int
    out_of_order: float
    max_delay_ms: int
    events_per_second: int
    events_per_file: int
    p3_batches: int
    p3_trigger_ms: int
    p4_keys: int
    p4_rows_per_file: int
    p6_files: int
    seed: int
    engines: tuple[str, ...]
    workloads: tuple[str, ...]


def _guard(label: str, fn, *args, **kwargs):
    """Runs one engine's measurement; an exception becomes a failed result, never a crash."""
    try:
        return fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 - the run must go on; the trace goes into the report
        print(f"bench: {label} raised:\n{traceback.format_exc()}")
        return failed(f"harness error: {traceback.format_exc(limit=3)}")


def _log(msg: str) -> None:
    print(f"bench: {msg}", flush=True)


def paired_bound(sluice: dict, bound: list) -> dict:
    """P1: the Arrow bound measured right before each sluice repetition, and sluice / bound per
    pair. A pair sees the same machine; the medians of two series minutes apart need not."""
    mine = (sluice.get("rows_per_s") or {}).get("values") or []
    ratios = [m / b for m, b in zip(mine, bound) if m and b]
    return {"rows_per_s": summary([b for b in bound if b]), "ratios": summary(ratios)}


def run(plan: Plan, ctx: Context, data_root: Path) -> dict:
    doc = {"data": {}, "workloads": {}}
    use = set(plan.engines)
    spec = nexmark.StreamSpec(events=plan.events, events_per_file=plan.events_per_file,
                              seed=plan.seed, out_of_order=plan.out_of_order,
                              max_delay_ms=plan.max_delay_ms,
                              events_per_second=plan.events_per_second)
    if {"P1", "P2", "P5"} & set(plan.workloads):   # P3, P4 and P6 make their own data
        _log(f"Nexmark data ({plan.events} events): generated unless the data directory holds it")
        stream = nexmark.generate_stream(data_root, spec)
        doc["data"]["nexmark"] = stream
        bids_dir = Path(stream["dir"]) / "bid"
        bid_rows = stream["bid"]["rows"]

    if "P1" in plan.workloads or "P2" in plan.workloads:
        if "arrow_json" in use:
            _log("arrow_json: parse bound")
            doc["arrow_json_parse"] = _guard("arrow", static_engines.arrow_parse, ctx, bids_dir)

    def throughput(queries: list[wl.Query], workload: str, event_time: bool):
        per = {q.id: {} for q in queries}
        if "sluice" in use:
            for q in queries:
                _log(f"{q.id}: sluice")
                bound, before_rep = [], None
                if workload == "P1" and "arrow_json" in use:
                    def before_rep(rep, qid=q.id, bound=bound):
                        res = static_engines.arrow_parse(ctx, bids_dir, reps=1, warmup=1,
                                                         where=("arrow_json_paired", qid, f"rep{rep}"))
                        bound.append(res["rows_per_s"]["median"] if res.get("status") == "ok" else None)
                per[q.id]["sluice"] = _guard(
                    "sluice", sluice_engine.throughput, ctx, q, bids_dir, event_time=event_time,
                    output_mode="append" if event_time else None, before_rep=before_rep)
                if bound:
                    per[q.id]["sluice"]["arrow_bound_paired"] = paired_bound(per[q.id]["sluice"], bound)
        peers = []
        if "spark" in use:
            peers.append(("spark", lambda: spark_engine.throughput(
                ctx, queries, bids_dir, workload,
                watermark=wl.WATERMARK if event_time else None)))
        if "flink" in use:
            peers.append(("flink", lambda: flink_engine.throughput(
                ctx, queries, bids_dir, workload, bid_rows,
                watermark_s=10 if event_time else None)))
        if "duckdb" in use:
            peers.append(("duckdb", lambda: static_engines.duckdb(
                ctx, queries, bids_dir, workload, bid_rows)))
        for name, fn in peers:
            _log(f"{workload}: {name}")
            res = _guard(name, fn)
            for q in queries:
                per[q.id][name] = res[q.id] if q.id in res else res
        for q in queries:
            if "arrow_json_parse" in doc:
                per[q.id]["arrow_json"] = {"status": doc["arrow_json_parse"]["status"],
                                           "see": "arrow_json_parse"}
            doc["workloads"][q.id] = {"title": q.title, "metric": "rows_per_s",
                                      "data": "nexmark bids", "engines": per[q.id]}

    if "P1" in plan.workloads:
        throughput(wl.P1, "P1", event_time=False)
    if "P2" in plan.workloads:
        throughput([wl.P2], "P2", event_time=True)

    if "P5" in plan.workloads:
        persons, auctions = Path(stream["dir"]) / "person", Path(stream["dir"]) / "auction"
        for q in wl.P5:
            streamed = stream["auction"]["rows"] + (0 if q.persons_static else stream["person"]["rows"])
            engines = {}
            if "sluice" in use:
                _log(f"{q.id}: sluice")
                engines["sluice"] = _guard("sluice", sluice_engine.join_throughput, ctx, q, persons, auctions,
                                          streamed)
            if "spark" in use:
                _log(f"{q.id}: spark")
                engines["spark"] = _guard("spark", spark_engine.join_throughput, ctx, q, persons, auctions,
                                         streamed)
            if "flink" in use:
                _log(f"{q.id}: flink")
                engines["flink"] = _guard("flink", flink_engine.join_throughput, ctx, q, persons,
                                          auctions, streamed)
            doc["workloads"][q.id] = {"title": q.title, "metric": "rows_per_s",
                                      "data": "nexmark persons and auctions", "engines": engines}

    if "P3" in plan.workloads:
        small = nexmark.generate_small_batches(data_root, plan.p3_batches + 5, 100, plan.seed)
        doc["data"]["small_batches"] = small
        small_dir = Path(small["dir"]) / "bid"
        engines = {}
        if "sluice" in use:
            _log("P3: sluice")
            engines["sluice"] = _guard("sluice", sluice_engine.small_batches, ctx, wl.P3,
                                       small_dir, plan.p3_batches, plan.p3_trigger_ms)
        if "spark" in use:
            _log("P3: spark")
            engines["spark"] = _guard("spark", spark_engine.small_batches, ctx, wl.P3,
                                      small_dir, plan.p3_batches, plan.p3_trigger_ms)
        doc["workloads"]["P3_small_batch"] = {"title": wl.P3.title, "metric": "batch_ms_p50",
                                              "engines": engines}

    if "P6" in plan.workloads:
        tiny = nexmark.generate_small_batches(data_root, plan.p6_files, 1, plan.seed)
        doc["data"]["tiny_files"] = tiny
        engines = {}
        if "sluice" in use:
            _log(f"P6: sluice ({plan.p6_files} files = batches)")
            engines["sluice"] = _guard("sluice", sluice_engine.scaling, ctx, wl.P6,
                                       Path(tiny["dir"]) / "bid", plan.p6_files, 1000)
        doc["workloads"]["P6_scaling"] = {"title": wl.P6.title, "metric": "batch_ms_drift",
                                          "engines": engines}

    if "P4" in plan.workloads:
        keyed = nexmark.generate_keyed_state(data_root, plan.p4_keys, ctx.reps + 8,
                                             plan.p4_rows_per_file, plan.seed)
        doc["data"]["keyed_state"] = keyed
        engines = {}
        if "sluice" in use:
            for engine, provider in (("sluice", "file"), ("sluice_rocksdb", "rocksdb")):
                _log(f"P4: sluice, {provider} state store")

                def sluice_cmd(input_dir, d, provider=provider):
                    text, cmd, commits = sluice_engine.keyed_state_command(ctx, wl.P4, input_dir, d,
                                                                           provider)
                    return text, cmd, commits, None
                engines[engine] = _guard(engine, restart.run, ctx, Path(keyed["dir"]),
                                         ctx.fresh_dir("P4_restart", engine), sluice_cmd)
                if engines[engine].get("status") == "ok":
                    engines[engine]["settings"] = {"state_store": provider}
        if "spark" in use:
            _log("P4: spark")

            def spark_cmd(input_dir, d):
                return spark_engine.keyed_state_command(ctx, wl.P4, input_dir, d)
            res = _guard("spark", restart.run, ctx, Path(keyed["dir"]),
                         ctx.fresh_dir("P4_restart", "spark"), spark_cmd)
            if res.get("status") == "ok":
                res["settings"] = dict(spark_engine.CONF_NOTES, maxFilesPerTrigger=1,
                                       sink="console, numRows=1", outputMode="update")
            engines["spark"] = res
        doc["workloads"]["P4_restart"] = {"title": wl.P4.title, "metric": "restart_s",
                                          "keys": plan.p4_keys, "engines": engines}
    return doc
