"""P4: restart time after kill -9 with keyed state, the same protocol for every engine.

1. The live input directory gets the keys file (every key once: the first batch builds `keys`
   groups of state) and two small files; the engine runs `count(*) GROUP BY bidder` in update
   mode, one file per batch, continuous trigger. When commits/2 exists (three batches
   committed, the engine now idle) the whole process tree is killed with SIGKILL.
2. Each repetition adds the next small file (written hidden, then renamed) and starts the engine
   again on the same checkpoint. Measured: from spawning the process to the moment a commit file
   for a new batch id appears in the checkpoint's commits/ directory (polled every 10 ms): the
   process start, checkpoint and state recovery, and one small batch. Then SIGKILL again.
   For Spark also `in_engine_s`: from just before query start() (after the JVM and session are
   up) to that commit.
"""
from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

from .context import failed
from .measure import run_process, summary

POLL_S = 0.01


def committed(commits_dir: Path) -> int:
    """Highest committed batch id, -1 when none."""
    try:
        ids = [int(n) for n in os.listdir(commits_dir) if n.isdigit()]
    except FileNotFoundError:
        return -1
    return max(ids, default=-1)


def add_file(src: Path, input_dir: Path) -> None:
    tmp = input_dir / ("." + src.name + ".tmp")
    shutil.copy2(src, tmp)
    os.replace(tmp, input_dir / src.name)


def run(ctx, dataset_dir: Path, d: Path, make_command) -> dict:
    """make_command(input_dir, d) -> (query_text, cmd, commits_dir, started_marker or None)."""
    files = sorted((dataset_dir / "bid").glob("part-*.json"))
    if len(files) < 3 + ctx.reps:
        return failed(f"need {3 + ctx.reps} files in {dataset_dir}, have {len(files)}")
    input_dir = d / "input"
    input_dir.mkdir()
    for f in files[:3]:
        add_file(f, input_dir)
    text, cmd, commits_dir, marker = make_command(input_dir, d)

    first = run_process(cmd, cwd=d, timeout_s=ctx.timeout_s, log_dir=d / "initial",
                        stop_when=lambda: committed(commits_dir) >= 2, on_stop=signal.SIGKILL,
                        poll_s=POLL_S)
    if not first.killed:
        return failed(first.error_text(), query=text, command=" ".join(cmd))
    restart_s, in_engine_s, rss, cpu = [], [], [], []
    for rep in range(ctx.reps):
        before = committed(commits_dir)
        add_file(files[3 + rep], input_dir)
        if marker is not None and marker.exists():
            marker.unlink()
        r = run_process(cmd, cwd=d, timeout_s=min(ctx.timeout_s, 600),
                        log_dir=d / f"restart{rep}",
                        stop_when=lambda: committed(commits_dir) > before,
                        on_stop=signal.SIGKILL, poll_s=POLL_S)
        if not r.killed:
            return failed("restart: " + r.error_text(), query=text, command=" ".join(cmd))
        restart_s.append(r.stop_s)
        cpu.append(r.cpu_s)
        rss.append(r.peak_rss_bytes)
        if marker is not None and marker.exists():
            started = float(marker.read_text())
            in_engine_s.append(r.start_epoch + r.stop_s - started)
        time.sleep(0.2)
    out = {"status": "ok", "restart_s": summary(restart_s),
           "restart_ms": summary([s * 1000 for s in restart_s]),
           "restart_cpu_s": summary([c for c in cpu if c is not None]),
           "initial_run_s": first.stop_s, "initial_run_cpu_s": first.cpu_s, "peak_rss_bytes": max(rss + [first.peak_rss_bytes]),
           "peak_rss_restart_bytes": max(rss), "peak_rss_initial_bytes": first.peak_rss_bytes,
           "query": text, "command": " ".join(cmd)}
    if in_engine_s:
        out["in_engine_s"] = summary(in_engine_s)
    return out
