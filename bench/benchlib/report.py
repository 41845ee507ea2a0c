"""Ratios, goals, machine and version facts, and the three outputs: <name>.json, .md and .png.

Ratio convention (sluice's advantage; > 1 means sluice is better):
  rows_per_s workloads   ratios[peer] = sluice rows/s / peer rows/s
  time workloads (P3,P4) ratios[peer] = peer time / sluice time
  rss_ratios[peer]       = sluice peak RSS / peer peak RSS   (< 1 means sluice uses less)
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

from .context import REPO_DIR

# (workload metric, its value path inside an engine result, higher is better)
METRICS = {"rows_per_s": (("rows_per_s", "median"), True),
           "batch_ms_p50": (("batch_ms_p50", "median"), False),
           "restart_s": (("restart_s", "median"), False),
           "batch_ms_drift": (("drift", "triggerExecution"), False)}


def _get(d: dict, path: tuple[str, ...]):
    for key in path:
        if not isinstance(d, dict) or d.get(key) is None:
            return None
        d = d[key]
    return d


def engine_value(doc: dict, wid: str, engine: str):
    w = doc["workloads"][wid]
    res = w["engines"].get(engine, {})
    if res.get("see") == "arrow_json_parse":
        res = doc.get("arrow_json_parse", {})
    if res.get("status") != "ok":
        return None
    return _get(res, METRICS[w["metric"]][0])


def add_ratios(doc: dict) -> None:
    for wid, w in doc["workloads"].items():
        _, higher = METRICS[w["metric"]]
        mine = engine_value(doc, wid, "sluice")
        ratios, rss = {}, {}
        my_rss = _get(w["engines"].get("sluice", {}), ("peak_rss_bytes",))
        for engine, res in w["engines"].items():
            if engine.startswith("sluice"):   # sluice itself, or sluice with other settings
                continue
            theirs = engine_value(doc, wid, engine)
            ratios[engine] = (None if mine is None or theirs is None or not (mine and theirs)
                              else (mine / theirs if higher else theirs / mine))
            their_rss = _get(res, ("peak_rss_bytes",))
            rss[engine] = my_rss / their_rss if my_rss and their_rss else None
        w["ratios"] = ratios
        w["rss_ratios"] = rss
        paired = _get(w["engines"].get("sluice", {}), ("arrow_bound_paired", "ratios", "median"))
        if paired is not None:
            w["paired_ratios"] = {"arrow_json": paired}


def evaluate_goals(doc: dict) -> list[dict]:
    """The performance issue's targets for sluice (targets, not tests); met is None when not
    measured in this run."""
    W = doc["workloads"]

    def ratio(wid, engine):
        return W.get(wid, {}).get("ratios", {}).get(engine)

    def rss(wid):
        return W.get(wid, {}).get("rss_ratios", {}).get("spark")

    def value(wid, engine="sluice", path=None):
        if wid not in W:
            return None
        if path is None:
            return engine_value(doc, wid, engine)
        res = W[wid]["engines"].get(engine, {})
        return _get(res, path) if res.get("status") == "ok" else None

    def goal(text, v, target, higher):
        goals.append({"goal": text, "value": v, "target": target, "higher_is_better": higher})

    goals = []
    for wid in ("P1_q0", "P1_q1", "P1_q2"):
        goal(f"{wid} >= DuckDB's rows/s", ratio(wid, "duckdb"), 1, True)
        goal(f"{wid} >= 5x Spark (moonshot 10x)", ratio(wid, "spark"), 5, True)
        # Against the bound measured right before each repetition when the run measured it so
        # (bench/README.md), else against the bound's own run.
        paired = W.get(wid, {}).get("paired_ratios", {}).get("arrow_json")
        goal(f"{wid} >= 2x the Arrow JSON parse rate", ratio(wid, "arrow_json") if paired is None else paired,
             2, True)
    goal("P2 >= 2 M rows/s", value("P2_window"), 2_000_000, True)
    goal("P2 aggregation <= 80 ns/row", value("P2_window", path=("aggregation_ns_per_row", "median")),
         80, False)
    goal("P2 >= 5x Spark", ratio("P2_window", "spark"), 5, True)
    goal("P3 p50 <= 3 ms", value("P3_small_batch"), 3, False)
    drift = value("P6_scaling")
    goal("P6 wall per batch flat: |last / first batches - 1| <= 0.2", None if drift is None else abs(drift),
         0.2, False)
    cpu_drift = value("P6_scaling", path=("drift", "cpu"))
    goal("P6 CPU per batch flat: |last / first batches - 1| <= 0.2",
         None if cpu_drift is None else abs(cpu_drift), 0.2, False)
    for engine, provider in (("sluice", "file"), ("sluice_rocksdb", "rocksdb")):
        goal(f"P4 restart <= 1 s ({provider} state store)", value("P4_restart", engine), 1, False)
        peak = value("P4_restart", engine, ("peak_rss_bytes",))
        goal(f"P4 peak RSS <= 300 MB ({provider} state store; value in MB)",
             None if peak is None else peak / 1e6, 300, False)
    for wid in W:
        goal(f"{wid} peak RSS <= 1/5 of Spark's", rss(wid), 0.2, False)
    for g in goals:
        v = g["value"]
        g["met"] = None if v is None else (v >= g["target"] if g["higher_is_better"]
                                           else v <= g["target"])
    return goals


def _cmd(args: list[str]) -> str | None:
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=60)
        return (out.stdout + out.stderr).strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def machine() -> dict:
    cpu = None
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) * 1024
    except OSError:
        pass
    return {"cpu_model": cpu, "cores": os.cpu_count(), "ram_bytes": mem,
            "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "load_average_at_start": os.getloadavg()}


def versions(ctx) -> dict:
    import duckdb
    import pyarrow
    import pyspark
    # `sluice version` prints the version, then a line per build detail (the memory pool)
    sluice = (_cmd([str(ctx.sluice_bin), "version"]) or "").splitlines()
    out = {"sluice": "; ".join(sluice) or None, "pyspark": pyspark.__version__,
           "duckdb": duckdb.__version__, "pyarrow": pyarrow.__version__,
           "java": (_cmd(["java", "-version"]) or "").splitlines()[0:1]}
    out["java"] = out["java"][0] if out["java"] else None
    if ctx.flink_python.exists():
        out["flink"] = _cmd([str(ctx.flink_python), "-c",
                             "import importlib.metadata as m; print(m.version('apache-flink'))"])
    commit = _cmd(["git", "-C", str(REPO_DIR), "rev-parse", "--short", "HEAD"])
    dirty = _cmd(["git", "-C", str(REPO_DIR), "status", "--porcelain", "--", "src", "include"])
    out["sluice_commit"] = f"{commit}{' + uncommitted changes in src/' if dirty else ''}"
    return out


def write_json(doc: dict, path: Path) -> None:
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    os.replace(tmp, path)
