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
            if engine == "sluice":
                continue
            theirs = engine_value(doc, wid, engine)
            ratios[engine] = (None if mine is None or theirs is None or not (mine and theirs)
                              else (mine / theirs if higher else theirs / mine))
            their_rss = _get(res, ("peak_rss_bytes",))
            rss[engine] = my_rss / their_rss if my_rss and their_rss else None
        w["ratios"] = ratios
        w["rss_ratios"] = rss


def evaluate_goals(doc: dict) -> list[dict]:
    """The issue's targets for sluice (targets, not tests); met is None when not measurable."""
    W = doc["workloads"]

    def ratio(wid, engine):
        return W.get(wid, {}).get("ratios", {}).get(engine)

    def rss(wid):
        return W.get(wid, {}).get("rss_ratios", {}).get("spark")

    goals = []
    for wid in ("P1_q0", "P1_q1", "P1_q2"):
        goals.append({"goal": f"{wid} >= 10x Spark", "value": ratio(wid, "spark"), "target": 10,
                      "higher_is_better": True})
        goals.append({"goal": f"{wid} >= 60 % of the Arrow JSON parse rate",
                      "value": ratio(wid, "arrow_json"), "target": 0.6,
                      "higher_is_better": True})
    goals.append({"goal": "P2 >= 10x Spark", "value": ratio("P2_window", "spark"), "target": 10,
                  "higher_is_better": True})
    goals.append({"goal": "P2 >= 2x Flink", "value": ratio("P2_window", "flink"), "target": 2,
                  "higher_is_better": True})
    goals.append({"goal": "P3 p50 <= 5 ms",
                  "value": engine_value(doc, "P3_small_batch", "sluice")
                  if "P3_small_batch" in W else None, "target": 5, "higher_is_better": False})
    goals.append({"goal": "P4 restart <= 1 s",
                  "value": engine_value(doc, "P4_restart", "sluice")
                  if "P4_restart" in W else None, "target": 1, "higher_is_better": False})
    for wid in W:
        goals.append({"goal": f"{wid} peak RSS <= 1/5 of Spark's", "value": rss(wid),
                      "target": 0.2, "higher_is_better": False})
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
    out = {"sluice": _cmd([str(ctx.sluice_bin), "version"]), "pyspark": pyspark.__version__,
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
