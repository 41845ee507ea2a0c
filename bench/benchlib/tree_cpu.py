"""CPU time (user + system) of a process and all its descendants, read from /proc.

Used inside the job scripts (which run as plain scripts in another venv: no psutil, no package
imports) around each timed repetition, so the CPU time of a peer that runs every repetition in one
process (Spark's JVM, DuckDB's threads, Flink's mini-cluster) is measured per repetition. Each
process's own time includes all its threads and the children it has waited for; a descendant that
exits without being waited for between two readings is missed (none of the peers does that while a
repetition runs).
"""
from __future__ import annotations

import os

_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: str) -> tuple[int, float] | None:
    """(parent pid, own + waited-for children's CPU seconds) of one process, None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode(errors="replace")
    except OSError:
        return None
    # the command name (field 2) may hold spaces or parentheses: split after its last ')'
    fields = text[text.rindex(")") + 2:].split()
    ppid = int(fields[1])
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return ppid, (utime + stime + cutime + cstime) / _TICK


def tree_cpu_s(root: int | None = None) -> float:
    """CPU seconds used so far by `root` (default: this process) and every live descendant."""
    root = os.getpid() if root is None else root
    stats = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = _stat(name)
            if s is not None:
                stats[int(name)] = s
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        if pid in stats:
            total += stats[pid][1]
        todo.extend(children.get(pid, []))
    return total


class CpuClock:
    """`with CpuClock() as c: ...` then c.seconds: the tree's CPU seconds spent inside the block."""

    def __enter__(self):
        self._start = tree_cpu_s()
        self.seconds = None
        return self

    def __exit__(self, *exc):
        self.seconds = tree_cpu_s() - self._start
        return False
