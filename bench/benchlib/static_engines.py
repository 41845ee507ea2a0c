"""The two non-streaming references: DuckDB running the static (batch) form of each query, and
Arrow's JSON reader alone on the same bytes (the physical bound of any engine that must parse
them). Harness side of duckdb_job.py and arrow_job.py."""
from __future__ import annotations

from pathlib import Path

from . import workloads as wl
from .context import Context, failed
from .measure import cpu_fields, run_job, summary

DUCKDB_NOTES = {"settings": "none: DuckDB defaults (threads = cores = 2, memory_limit 80 % of RAM)",
                "form": "static: COPY (query over read_json of all files) TO one Parquet file"}


def duckdb(ctx: Context, queries: list[wl.Query], input_dir: Path, workload: str,
           rows_in: int) -> dict[str, dict]:
    d = ctx.fresh_dir(workload, "duckdb")
    spec = {"input": str(input_dir), "reps": ctx.reps, "settings": {},
            "columns": wl.TYPES["duckdb"],
            "queries": [{"id": q.id, "select": q.text("duckdb"), "out_dir": str(d / q.id)}
                        for q in queries]}
    run, result = run_job(ctx, ctx.python, "duckdb_job.py", d, spec)
    if not run.ok or result is None:
        return {q.id: failed(run.error_text()) for q in queries}
    out = {}
    for q in queries:
        runs = result["queries"][q.id]
        seconds = [r["seconds"] for r in runs]
        out[q.id] = {"status": "ok", "seconds": summary(seconds),
                     "rows_per_s": summary([rows_in / s for s in seconds]),
                     **cpu_fields([r.get("cpu_s") for r in runs], [rows_in] * len(runs)),
                     "process_wall_s": summary([run.wall_s]),
                     "peak_rss_bytes": run.peak_rss_bytes, "rows_in": rows_in,
                     "rows_out": runs[-1]["rows_out"],
                     "settings": dict(DUCKDB_NOTES, effective=result["effective_settings"]),
                     "query": q.text("duckdb"),
                     "rss_scope": f"one process for {', '.join(x.id for x in queries)}",
                     "versions": result["versions"]}
    return out


def arrow_parse(ctx: Context, input_dir: Path, reps: int | None = None,
                where: tuple[str, ...] = ("arrow_json_parse",), warmup: int = 0) -> dict:
    """The bound, ctx.reps (or `reps`) timed parses of every file in one process, after `warmup`
    untimed ones (the first parse of a process is 3-5 % slower than the next)."""
    d = ctx.fresh_dir(*where)
    spec = {"input": str(input_dir), "reps": ctx.reps if reps is None else reps, "warmup": warmup}
    run, result = run_job(ctx, ctx.python, "arrow_job.py", d, spec)
    if not run.ok or result is None:
        return failed(run.error_text())
    runs = result["runs"]
    seconds = [r["seconds"] for r in runs]
    return {"status": "ok", "seconds": summary(seconds),
            "rows_per_s": summary([r["rows"] / r["seconds"] for r in runs]),
            "mb_per_s": summary([result["bytes"] / 1e6 / s for s in seconds]),
            **cpu_fields([r.get("cpu_s") for r in runs], [r["rows"] for r in runs]),
            "rows_in": runs[-1]["rows"], "bytes": result["bytes"],
            "peak_rss_bytes": run.peak_rss_bytes,
            "settings": {"reader": "pyarrow.json.read_json, explicit schema, use_threads=True",
                         "cpu_count": result["cpu_count"],
                         "input": "files already in memory (I/O not timed)"},
            "versions": result["versions"]}
