"""sluice's side: every workload through the CLI (`sluice run PIPELINE.sql ...`), one process per
run. Times are the CLI process's wall time (process start, SQL parse, checkpoint, every batch,
exit), so nothing of sluice's own start-up is left out."""
from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

from . import workloads as wl
from .context import Context, failed, parquet_rows
from .measure import LineCounter, cpu_fields, percentile, run_process, summary

SETTINGS_NOTE = "defaults; the CLI flags and the pipeline text below are all it is given"


def _source_table(input_dir: Path, files_per_trigger: int | None, event_time: bool) -> str:
    options = [f"connector = 'files'", "format = 'json'", f"path = '{input_dir}'"]
    if files_per_trigger:
        options.append(f"max_files_per_trigger = {files_per_trigger}")
    if event_time:
        options += ["event_time = 'date_time'", f"watermark = '{wl.WATERMARK}'"]
    return f"CREATE TABLE bids ({wl.bid_schema('sluice')})\n  WITH ({', '.join(options)});\n"


def pipeline(query: wl.Query, input_dir: Path, sink: str, files_per_trigger: int | None,
             event_time: bool = False) -> str:
    return (_source_table(input_dir, files_per_trigger, event_time)
            + f"CREATE TABLE out () WITH ({sink});\n"
            + f"INSERT INTO out {query.text('sluice')};\n")


def parquet_sink(out: Path) -> str:
    return f"connector = 'files', format = 'parquet', path = '{out}'"


def _progress(path: Path) -> list[dict]:
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [p for p in lines if "batchId" in p]


def aggregation_ns_per_row(progress: list[dict]) -> float | None:
    """The aggregation's CPU nanoseconds per input row over a run: the sum of its operators'
    customMetrics aggregationCpuNanos over the sum of aggregationInputRows (None when the run
    reported none)."""
    nanos = rows = 0
    for p in progress:
        for op in p.get("stateOperators", []):
            m = op.get("customMetrics", {})
            nanos += m.get("aggregationCpuNanos", 0)
            rows += m.get("aggregationInputRows", 0)
    return nanos / rows if rows else None


def _run_cmd(ctx: Context, sql: Path, ckpt: Path, trigger: str, progress: Path,
             output_mode: str | None) -> list[str]:
    cmd = [ctx.sluice_bin, "run", sql, "--checkpoint", ckpt, "--trigger", trigger,
           "--progress", progress]
    if output_mode:
        cmd += ["--output-mode", output_mode]
    return [str(c) for c in cmd]


def throughput(ctx: Context, query: wl.Query, input_dir: Path, *, event_time: bool = False,
               output_mode: str | None = None, before_rep=None) -> dict:
    """P1 / P2: availableNow over the whole input into a fresh Parquet sink, ctx.reps times.
    `before_rep(rep)`, when given, runs right before each repetition (P1's paired bound)."""
    seconds, rss, rows_in, rows_out, cpu, agg_ns = [], [], None, None, [], []
    text = None
    for rep in range(ctx.reps):
        if before_rep is not None:
            before_rep(rep)
        d = ctx.fresh_dir(query.id, "sluice", f"rep{rep}")
        text = pipeline(query, input_dir, parquet_sink(d / "out"), ctx.files_per_trigger,
                        event_time)
        (d / "pipeline.sql").write_text(text)
        cmd = _run_cmd(ctx, d / "pipeline.sql", d / "ckpt", "available-now", d / "progress.jsonl",
                       output_mode)
        run = run_process(cmd, cwd=d, timeout_s=ctx.timeout_s, log_dir=d)
        if not run.ok:
            return failed(run.error_text(), pipeline=text, command=" ".join(cmd))
        progress = _progress(d / "progress.jsonl")
        rows_in = sum(p["numInputRows"] for p in progress)
        rows_out = parquet_rows(d / "out")
        ns = aggregation_ns_per_row(progress)
        if ns is not None:
            agg_ns.append(ns)
        seconds.append(run.wall_s)
        cpu.append(run.cpu_s)
        rss.append(run.peak_rss_bytes)
    return {"status": "ok", "seconds": summary(seconds),
            "rows_per_s": summary([rows_in / s for s in seconds]),
            **cpu_fields(cpu, [rows_in] * len(cpu)),
            **({"aggregation_ns_per_row": summary(agg_ns)} if agg_ns else {}),
            "process_wall_s": summary(seconds), "peak_rss_bytes": max(rss), "rows_in": rows_in,
            "rows_out": rows_out, "settings": {"note": SETTINGS_NOTE,
                                               "output_mode": output_mode or "append"},
            "pipeline": text, "command": " ".join(cmd)}


def sync_stats(log_dir: Path) -> dict | None:
    """The `stats:` line `sluice run --stats` prints on exit (its sync counts), or None."""
    err = log_dir / "stderr.log"
    if not err.exists():
        return None
    for line in reversed(err.read_text(errors="replace").splitlines()):
        if line.startswith("stats: "):
            return json.loads(line[len("stats: "):])
    return None


def small_batches(ctx: Context, query: wl.Query, input_dir: Path, batches: int,
                  trigger_ms: int) -> dict:
    """P3: one 100-row file per batch under processing-time=<trigger_ms>ms; the run is stopped
    with SIGTERM once `batches` batches are in its --progress file. Syncs per batch: the
    process's data and directory syncs (`--stats`, start-up included) over the batches it ran."""
    p50s, p99s, rss, all_ms, text, syncs = [], [], [], [], None, []
    for rep in range(ctx.reps):
        d = ctx.fresh_dir(query.id, "sluice", f"rep{rep}")
        text = pipeline(query, input_dir, parquet_sink(d / "out"), 1)
        (d / "pipeline.sql").write_text(text)
        progress_path = d / "progress.jsonl"
        cmd = _run_cmd(ctx, d / "pipeline.sql", d / "ckpt", f"processing-time={trigger_ms}ms",
                       progress_path, None) + ["--stats"]

        def enough() -> bool:
            return sum(1 for p in _progress(progress_path) if p["numInputRows"] > 0) >= batches

        run = run_process(cmd, cwd=d, timeout_s=ctx.timeout_s, stop_when=enough,
                          on_stop=signal.SIGTERM, log_dir=d)
        progress = [p for p in _progress(progress_path) if p["numInputRows"] > 0]
        if len(progress) < batches:
            return failed(run.error_text(), pipeline=text, command=" ".join(cmd))
        ms = [p["durationMs"]["triggerExecution"] for p in progress[1:batches]]  # batch 0: warm-up
        all_ms.append(ms)
        p50s.append(percentile(ms, 50))
        p99s.append(percentile(ms, 99))
        rss.append(run.peak_rss_bytes)
        stats = sync_stats(d)
        if stats:
            ran = len(_progress(progress_path))
            syncs.append((stats["fileSyncs"] + stats["dirSyncs"]) / max(ran, 1))
    extra = {"syncs_per_batch": summary(syncs)} if syncs else {}
    return {"status": "ok", "batch_ms_p50": summary(p50s), "batch_ms_p99": summary(p99s), **extra,
            "peak_rss_bytes": max(rss), "batches_per_run": batches, "batch_ms": all_ms,
            "settings": {"note": SETTINGS_NOTE, "trigger": f"processing-time={trigger_ms}ms"},
            "pipeline": text, "command": " ".join(cmd)}


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def _cpu_ms_per_batch(samples: list[tuple[int, float]], lo: int, hi: int) -> float | None:
    """CPU ms per progress line between the lines lo and hi, interpolated between polls."""
    def cpu_at(line: int) -> float | None:
        for (l0, c0), (l1, c1) in zip(samples, samples[1:]):
            if l0 <= line <= l1:
                return c0 if l1 == l0 else c0 + (c1 - c0) * (line - l0) / (l1 - l0)
        return None
    a, b = cpu_at(lo), cpu_at(hi)
    return None if a is None or b is None or hi <= lo else round((b - a) / (hi - lo) * 1000, 3)


def scaling(ctx: Context, query: wl.Query, input_dir: Path, files: int, window: int) -> dict:
    """P6: `files` one-row files present from the start, one per batch (maxFilesPerTrigger 1,
    batches back to back) into Parquet: the cost per batch of the first and the last `window`
    batches (triggerExecution; latestOffset = listing the directory and writing the source log),
    and its drift. One run: it is long, and the drift within the run is the figure."""
    d = ctx.fresh_dir(query.id, "sluice", "rep0")
    text = pipeline(query, input_dir, parquet_sink(d / "out"), 1)
    (d / "pipeline.sql").write_text(text)
    progress_path = d / "progress.jsonl"
    cmd = _run_cmd(ctx, d / "pipeline.sql", d / "ckpt", "processing-time", progress_path,
                   None) + ["--stats"]

    lines = LineCounter(progress_path)
    samples: list[tuple[int, float]] = []  # (progress lines, the process's CPU seconds) per poll

    def done() -> bool:
        return lines.lines >= files

    run = run_process(cmd, cwd=d, timeout_s=max(ctx.timeout_s, files * 0.2), stop_when=done,
                      on_stop=signal.SIGTERM, log_dir=d,
                      on_poll=lambda cpu: samples.append((lines.count(), cpu)))
    progress = [p for p in _progress(progress_path) if p["numInputRows"] > 0]
    if len(progress) < files:
        return failed(run.error_text(), pipeline=text, command=" ".join(cmd))
    w = min(window, len(progress) // 2)

    def phases(ps: list[dict]) -> dict:
        keys = ("triggerExecution", "latestOffset", "walCommit", "getBatch", "addBatch",
                "commitOffsets")
        return {k: round(_mean([p["durationMs"].get(k, 0) for p in ps]), 3) for k in keys}

    first, last = phases(progress[1:w + 1]), phases(progress[-w:])  # batch 0 lists everything
    # CPU per batch over the same windows, from the polls (the process's user + system time as
    # the progress file passed each count): unlike the phases' wall time, it does not move with
    # the latency of the disk's syncs.
    n = len(progress)
    first["cpu"] = _cpu_ms_per_batch(samples, 1, w + 1)
    last["cpu"] = _cpu_ms_per_batch(samples, n - w, n)
    stats = sync_stats(d)
    drift = {k: (round(last[k] / first[k] - 1, 3) if first[k] else None) for k in first}
    # The run's tens of thousands of files go now, not when the next run starts: ext4 passes
    # over recently deleted inodes when it allocates new ones, so deleting them right before a
    # run made its first thousand batches the slow ones (a drift of -55 % in one run).
    for bulky in ("out", "ckpt"):
        shutil.rmtree(d / bulky, ignore_errors=True)
    return {"status": "ok", "files": files, "window": w, "first_ms": first, "last_ms": last,
            "drift": drift, "wall_s": round(run.wall_s, 1), "peak_rss_bytes": run.peak_rss_bytes,
            "syncs_per_batch": (round((stats["fileSyncs"] + stats["dirSyncs"]) / len(progress), 2)
                                if stats else None),
            "settings": {"note": SETTINGS_NOTE, "trigger": "processing-time (back to back)"},
            "pipeline": text, "command": " ".join(cmd)}


def keyed_state_command(ctx: Context, query: wl.Query, input_dir: Path, d: Path,
                        provider: str = "file"):
    """P4: the pipeline (console sink, one row shown) and command with the given state store
    provider (file or rocksdb); its commits directory."""
    text = pipeline(query, input_dir, "connector = 'console', num_rows = 1", 1)
    (d / "pipeline.sql").write_text(text)
    cmd = _run_cmd(ctx, d / "pipeline.sql", d / "ckpt", "processing-time", d / "progress.jsonl",
                   "update")
    cmd += ["--conf", f"spark.sql.streaming.stateStore.providerClass={provider}"]
    return text, cmd, d / "ckpt" / "out" / "commits"


def _join_tables(query: wl.JoinQuery, persons: Path, auctions: Path, files_per_trigger: int) -> str:
    def table(name, columns, path, static):
        options = ["connector = 'files'", "format = 'json'", f"path = '{path}'"]
        if static:
            options.append("static = true")
        else:
            options += [f"max_files_per_trigger = {files_per_trigger}", "event_time = 'date_time'",
                        f"watermark = '{wl.JOIN_WATERMARK}'"]
        return (f"CREATE TABLE {name} ({wl.table_schema(columns, 'sluice')})\n"
                f"  WITH ({', '.join(options)});\n")
    return (table("persons", wl.PERSON_COLUMNS, persons, query.persons_static)
            + table("auctions", wl.AUCTION_COLUMNS, auctions, False))


def state_size(progress: list[dict]) -> dict:
    """The largest state of any batch: rows and bytes summed over the stateful operators."""
    rows = [sum(op.get("numRowsTotal", 0) for op in p.get("stateOperators", [])) for p in progress]
    size = [sum(op.get("memoryUsedBytes", 0) for op in p.get("stateOperators", [])) for p in progress]
    return {"state_rows_max": max(rows, default=0), "state_bytes_max": max(size, default=0)}


def join_throughput(ctx: Context, query: wl.JoinQuery, persons: Path, auctions: Path, input_rows: int) -> dict:
    """P5: availableNow over the persons and auctions into Parquet, ctx.reps times. rows_per_s is
    over `input_rows` (the streamed tables' rows), the same count for every engine."""
    seconds, rss, rows_in, rows_out, state, text, cmd, cpu = [], [], None, None, {}, None, [], []
    for rep in range(ctx.reps):
        d = ctx.fresh_dir(query.id, "sluice", f"rep{rep}")
        text = (_join_tables(query, persons, auctions, ctx.files_per_trigger)
                + f"CREATE TABLE out () WITH ({parquet_sink(d / 'out')});\n"
                + f"INSERT INTO out {query.select};\n")
        (d / "pipeline.sql").write_text(text)
        cmd = _run_cmd(ctx, d / "pipeline.sql", d / "ckpt", "available-now", d / "progress.jsonl", None)
        run = run_process(cmd, cwd=d, timeout_s=ctx.timeout_s, log_dir=d)
        if not run.ok:
            return failed(run.error_text(), pipeline=text, command=" ".join(cmd))
        progress = _progress(d / "progress.jsonl")
        rows_in = sum(p["numInputRows"] for p in progress)
        rows_out = parquet_rows(d / "out")
        state = state_size(progress)
        seconds.append(run.wall_s)
        cpu.append(run.cpu_s)
        rss.append(run.peak_rss_bytes)
    return {"status": "ok", "seconds": summary(seconds), "rows_per_s": summary([input_rows / s for s in seconds]),
            **cpu_fields(cpu, [input_rows] * len(cpu)),
            "process_wall_s": summary(seconds), "peak_rss_bytes": max(rss), "rows_in": rows_in,
            "rows_out": rows_out, **state, "settings": {"note": SETTINGS_NOTE}, "pipeline": text,
            "command": " ".join(cmd)}
