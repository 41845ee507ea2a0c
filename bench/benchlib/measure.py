"""Running one engine process and measuring it: wall time, CPU time and peak RSS of its whole
process tree.

CPU time (user + system) is the larger of two readings: the process's own with the children it
waited for, as the kernel reports it when the process is reaped (wait4; exact for sluice, a single
process), and the sum over every process of the tree of its last sampled CPU time (which counts a
child killed with the tree, as Spark's JVM, up to the last sample). Peers that run every repetition
in one process also measure each repetition's CPU inside the job (tree_cpu.py). The machine is
shared, so CPU seconds per million rows is the steadier figure next to wall time.

Peak RSS is sampled every 50 ms as the sum of the resident set sizes of the process and all its
descendants (PySpark's python and its JVM; PyFlink's python, its JVM and any Python workers). The
sum counts pages shared between processes more than once; a sample can miss a peak shorter than
50 ms. Both apply to every engine alike. Each poll also reads the started process's own peak
(VmHWM), and its ru_maxrss from wait4 counts when it is above the harness's own peak RSS at the
spawn: on Linux a child's ru_maxrss starts from the peak RSS of the process it was forked from
(this Python: well over 100 MB with pyarrow loaded, about 1 GB after it generated the Nexmark
data), not from that process's RSS at the fork, so below that peak it says nothing about the child.
"""
from __future__ import annotations

import dataclasses
import json
import os
import resource
import select
import signal
import statistics
import subprocess
import time
from pathlib import Path
from typing import Callable

import psutil

from .context import write_spec

POLL_S = 0.05
RESULT_PREFIX = "BENCH_RESULT "   # job scripts print their measurements on one line after it


@dataclasses.dataclass
class ProcessRun:
    cmd: list[str]
    returncode: int | None = None
    wall_s: float = 0.0
    peak_rss_bytes: int = 0
    stdout: str = ""
    stderr: str = ""
    killed: bool = False
    timed_out: bool = False
    start_epoch: float = 0.0        # time.time() just before the process was spawned
    stop_s: float | None = None     # seconds from spawn until stop_when() first returned true
    cpu_s: float | None = None      # user + system CPU seconds (with the children it waited for)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def job_result(self) -> dict | None:
        """The JSON a job script printed after RESULT_PREFIX (its last such line)."""
        for line in reversed(self.stdout.splitlines()):
            if line.startswith(RESULT_PREFIX):
                return json.loads(line[len(RESULT_PREFIX):])
        return None

    def error_text(self, limit: int = 2000) -> str:
        if self.timed_out:
            return f"timed out after {self.wall_s:.0f} s"
        text = (self.stderr.strip() or self.stdout.strip())
        # the interesting part of a Java / Python error is usually at the end
        return f"exit status {self.returncode}: " + text[-limit:]


def tree_rss(proc: psutil.Process, cpu_seen: dict[int, float] | None = None) -> int:
    """The tree's resident set size; records each process's CPU seconds so far in cpu_seen."""
    total = 0
    try:
        procs = [proc] + proc.children(recursive=True)
    except psutil.Error:
        return 0
    for p in procs:
        try:
            total += p.memory_info().rss
            if cpu_seen is not None:
                t = p.cpu_times()
                cpu_seen[p.pid] = t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def own_peak_rss(pid: int) -> int:
    """The process's peak resident set size since it started its program (VmHWM); 0 once gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def kill_tree(proc: psutil.Process, sig: int = signal.SIGKILL) -> None:
    """Sends sig to the process and every descendant (children first collected, then signalled)."""
    try:
        procs = proc.children(recursive=True) + [proc]
    except psutil.Error:
        procs = [proc]
    for p in procs:
        try:
            p.send_signal(sig)
        except psutil.Error:
            pass


class LineCounter:
    """Counts the lines of a growing file, reading only what was appended since the last call (a
    poll that re-read the whole file would cost the harness more CPU the longer a run goes)."""

    def __init__(self, path: Path):
        self.path, self.offset, self.lines = path, 0, 0

    def count(self) -> int:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return self.lines
        self.offset += len(data)
        self.lines += data.count(b"\n")
        return self.lines


def open_pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when process `pid` ends (Linux 5.3 and later), so a
    poll's wait returns the moment it ends: a sleep between polls would add up to a poll's
    interval (50 ms) to the wall time measured, ~2.5 % of a 1 s run on average. None where there
    is none (then the polls sleep)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def run_process(cmd: list[str], *, cwd: Path | None = None, env: dict | None = None,
                timeout_s: float = 1800, stop_when: Callable[[], bool] | None = None,
                on_stop: int = signal.SIGKILL, log_dir: Path | None = None,
                poll_s: float = POLL_S, on_poll: Callable[[float], None] | None = None) -> ProcessRun:
    """Runs cmd to completion (or until stop_when() is true, then sends on_stop to the whole tree),
    sampling the tree's RSS; on_poll, when given, gets the tree's CPU seconds so far at each poll.
    stdout/stderr go to files (no pipe can fill up and stall the child)."""
    log_dir = log_dir or Path("/tmp")
    log_dir.mkdir(parents=True, exist_ok=True)
    out_path, err_path = log_dir / "stdout.log", log_dir / "stderr.log"
    run = ProcessRun(cmd=[str(c) for c in cmd])
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        harness_peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
        run.start_epoch = time.time()
        t0 = time.perf_counter()
        popen = subprocess.Popen(run.cmd, cwd=cwd, env=env, stdout=out, stderr=err,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
        proc = psutil.Process(popen.pid)
        cpu_seen: dict[int, float] = {}
        exited_at = None  # when the wait between polls saw the process end
        pidfd = open_pidfd(popen.pid)
        while True:
            run.peak_rss_bytes = max(run.peak_rss_bytes, tree_rss(proc, cpu_seen), own_peak_rss(popen.pid))
            if on_poll is not None:
                on_poll(sum(cpu_seen.values()))
            pid, status, usage = os.wait4(popen.pid, os.WNOHANG)
            if pid:
                break
            if stop_when is not None and stop_when():
                run.stop_s = time.perf_counter() - t0
                run.killed = on_stop == signal.SIGKILL
                kill_tree(proc, on_stop)
                _, status, usage = os.wait4(popen.pid, 0)
                break
            if time.perf_counter() - t0 > timeout_s:
                run.timed_out = True
                kill_tree(proc)
                _, status, usage = os.wait4(popen.pid, 0)
                break
            if pidfd is None:
                time.sleep(poll_s)
            elif select.select([pidfd], [], [], poll_s)[0]:
                exited_at = time.perf_counter()
        run.wall_s = (exited_at or time.perf_counter()) - t0
        if pidfd is not None:
            os.close(pidfd)
        # reap what the kill left behind in the session (a JVM started by a killed python)
        try:
            os.killpg(popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    popen.returncode = run.returncode = os.waitstatus_to_exitcode(status)
    run.cpu_s = max(usage.ru_utime + usage.ru_stime, sum(cpu_seen.values()))
    # The child's own peak as the kernel keeps it (kB), which catches a peak after the last poll;
    # but it starts from the harness's peak RSS at the fork (see the module's doc), so it counts
    # only above that. The polls add the rest of the tree (a JVM under a Python driver).
    if usage.ru_maxrss * 1024 > harness_peak_rss * 1.05:
        run.peak_rss_bytes = max(run.peak_rss_bytes, usage.ru_maxrss * 1024)
    run.stdout = out_path.read_text(errors="replace")
    run.stderr = err_path.read_text(errors="replace")
    return run


def run_job(ctx, python: Path, script: str, d: Path, spec: dict, **kwargs) -> tuple[ProcessRun, dict | None]:
    """Runs one of the job scripts (bench/benchlib/*_job.py) with `python` on a spec written to
    d/spec.json; returns the process run and the result the job printed (None when it printed none)."""
    cmd = [str(python), str(ctx.job_script(script)), str(write_spec(d / "spec.json", spec))]
    run = run_process(cmd, cwd=d, timeout_s=ctx.timeout_s, log_dir=d, **kwargs)
    return run, run.job_result()


def cpu_fields(cpu_s: list[float | None], rows: list[int | None]) -> dict:
    """cpu_s and cpu_s_per_mrows (CPU seconds per million input rows) summaries, over the
    repetitions that have both figures."""
    pairs = [(c, r) for c, r in zip(cpu_s, rows) if c is not None and r]
    return {"cpu_s": summary([c for c, _ in pairs]),
            "cpu_s_per_mrows": summary([c / r * 1e6 for c, r in pairs])}


def summary(values: list[float]) -> dict:
    """median, min, max and the values themselves (None when there are none)."""
    if not values:
        return {"median": None, "min": None, "max": None, "n": 0, "values": []}
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values), "values": values}


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, int(-(-p * len(ordered) // 100)))
    return ordered[min(rank, len(ordered)) - 1]
