"""bench/run's command line: the presets (--quick, full), the run, and the three output files."""
from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

from . import markdown, report, runner
from .context import BENCH_DIR, Context

# Presets. quick: about 3-4 minutes on 2 cores; full: the sizes the goals are judged on.
PRESETS = {
    "quick": dict(events=200_000, p3_batches=15, p4_keys=200_000),
    "full": dict(events=4_000_000, p3_batches=100, p4_keys=1_000_000),
}
NOTES = [
    "sluice times are the wall time of its CLI process (start-up included); Spark's, Flink's "
    "and DuckDB's are measured inside their process, after the JVM / session start, which is "
    "reported apart as process_wall_s. Peers run all repetitions of a workload in one process "
    "(warm JVM after the first); sluice starts a new process for each.",
    "Peak RSS: the whole process tree (Spark: python + JVM; Flink: python + JVM), sampled every "
    "50 ms; for peers one process covers all queries of the workload (P1: q0, q1, q2).",
    "P2: Flink's bounded source ends with a +infinity watermark and emits every window; Spark "
    "and sluice keep the windows after the last watermark open (fewer rows out). DuckDB computes "
    "the static answer (every window).",
    "Flink's filesystem source reads the files in no fixed order: rows of a file read after a "
    "later one arrive behind the watermark, so Flink's P2 (window) and P5_q8 (interval join) "
    "write fewer rows than the complete answer, a different number in each run (P5 lists them). "
    "Its rate is over the whole input all the same.",
    "P5 state: sluice and Spark report the largest state of any batch (rows, bytes); Flink only "
    "the size of its largest completed checkpoint (every 10 s; none in a shorter job).",
    "P3: batch 0 of each run is left out (warm-up); p50/p99 are over the other batches of a run, "
    "then the median over runs.",
]


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/run", description=__doc__)
    p.add_argument("--quick", action="store_true",
                   help="small data (< 5 minutes on 2 cores), writes results/quick.*")
    p.add_argument("--name", help="results/<name>.{json,md,png} (default: quick or full)")
    p.add_argument("--events", type=int, help="Nexmark events (92 %% are bids)")
    p.add_argument("--events-per-file", type=int, default=50_000)
    p.add_argument("--out-of-order", type=float, default=0.05,
                   help="fraction of events with an earlier event time than their position")
    p.add_argument("--max-delay-ms", type=int, default=5_000)
    p.add_argument("--events-per-second", type=int, default=1_000, help="event-time rate")
    p.add_argument("--reps", type=int, default=3, help="repetitions per engine (>= 3)")
    p.add_argument("--files-per-trigger", type=int, default=10,
                   help="maxFilesPerTrigger for sluice and Spark in P1/P2")
    p.add_argument("--p3-batches", type=int)
    p.add_argument("--p3-trigger-ms", type=int, default=100)
    p.add_argument("--p4-keys", type=int)
    p.add_argument("--p4-rows-per-file", type=int, default=1000)
    p.add_argument("--p6-files", type=int, default=10_000,
                   help="P6: one-row files = batches (the issue's figure is 100000; 10000 takes minutes)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--engines", default=",".join(runner.ENGINES))
    p.add_argument("--workloads", default=",".join(runner.WORKLOADS))
    p.add_argument("--data-dir", type=Path, default=BENCH_DIR / "data")
    p.add_argument("--work-dir", type=Path, default=BENCH_DIR / "work")
    p.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results")
    p.add_argument("--merge", action="store_true",
                   help="update results/<name>.json in place: replace only the engines and "
                        "workloads run now, keep every other measurement")
    return p.parse_args(argv)


def merge_into(old: dict, new: dict) -> dict:
    """The old document with the engines of the workloads measured now replaced by the new ones
    (same data parameters required: the generator is deterministic)."""
    for name, data in new["data"].items():
        if name in old["data"] and old["data"][name]["params"] != data["params"]:
            raise SystemExit(f"bench/run --merge: data set '{name}' differs from the one in the "
                             f"results ({old['data'][name]['params']} vs {data['params']})")
        old["data"][name] = data
    for wid, w in new["workloads"].items():
        if wid not in old["workloads"]:
            old["workloads"][wid] = w
        else:
            old["workloads"][wid]["engines"].update(w["engines"])
    # The parse bound is the P1 goals' denominator: it is replaced only by a run that measured P1
    # too, so that those goals stay ratios within one run.
    if "arrow_json_parse" in new:
        if any(wid.startswith("P1_") for wid in new["workloads"]) or "arrow_json_parse" not in old:
            old["arrow_json_parse"] = new["arrow_json_parse"]
        else:
            print("bench/run --merge: the Arrow JSON parse bound of this run is not merged (it ran without P1, "
                  "whose goals are set against the bound measured with them)", file=sys.stderr)
    old.setdefault("merged_runs", []).append(
        {"command": new["command"], "started": new["started"], "versions": new["versions"],
         "workloads": sorted(new["workloads"]), "engines": new["parameters"]["engines"],
         "load_average_at_start": new["machine"]["load_average_at_start"]})
    old["versions"]["sluice_commit"] = new["versions"]["sluice_commit"]
    old["notes"] = new["notes"]
    return old


# An absolute path up to the checkout's bench/, build/bin/sluice or .venv/bin/ (the pipelines,
# commands and data directories in the results): the results name them relative to the repository.
_CHECKOUT_PREFIX = re.compile(
    r"(?<![\w.])/(?:[^/\s\"'`]+/)+?(?=bench/|build/bin/sluice\b|\.venv/bin/)")


def relative_paths(doc: dict) -> dict:
    """The document with every path under a checkout's bench/ (and its sluice binary and venv)
    written relative to the checkout, also in the entries a --merge keeps from earlier runs."""
    return json.loads(_CHECKOUT_PREFIX.sub("", json.dumps(doc, default=str)))


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    preset = PRESETS["quick" if args.quick else "full"]
    name = args.name or ("quick" if args.quick else "full")
    plan = runner.Plan(
        name=name, events=args.events or preset["events"], out_of_order=args.out_of_order,
        max_delay_ms=args.max_delay_ms, events_per_second=args.events_per_second,
        events_per_file=args.events_per_file,
        p3_batches=args.p3_batches or preset["p3_batches"], p3_trigger_ms=args.p3_trigger_ms,
        p4_keys=args.p4_keys or preset["p4_keys"], p4_rows_per_file=args.p4_rows_per_file,
        p6_files=args.p6_files,
        seed=args.seed, engines=tuple(e for e in args.engines.split(",") if e),
        workloads=tuple(w for w in args.workloads.split(",") if w))
    unknown = (set(plan.engines) - set(runner.ENGINES)) | (set(plan.workloads)
                                                          - set(runner.WORKLOADS))
    if unknown:
        print(f"bench/run: unknown engine or workload: {', '.join(sorted(unknown))}",
              file=sys.stderr)
        return 2
    ctx = Context(work_dir=args.work_dir.resolve() / name, reps=args.reps,
                  files_per_trigger=args.files_per_trigger)
    if not ctx.sluice_bin.exists():
        print(f"bench/run: {ctx.sluice_bin} missing: run bench/setup.sh (or make build)",
              file=sys.stderr)
        return 2
    args.results_dir.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.perf_counter()
    doc = {"schema_version": 1, "name": name,
           "command": "bench/run " + " ".join(shlex.quote(a) for a in argv),
           "started": started.isoformat(timespec="seconds"),
           "machine": report.machine(), "versions": report.versions(ctx),
           "parameters": dataclasses.asdict(plan) | {"reps": ctx.reps,
                                                     "files_per_trigger": ctx.files_per_trigger},
           "notes": NOTES}
    doc.update(runner.run(plan, ctx, args.data_dir))
    finished = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    base = args.results_dir / name
    if args.merge and base.with_suffix(".json").exists():
        doc = merge_into(json.loads(base.with_suffix(".json").read_text()), doc)
        doc["merged_runs"][-1]["finished"] = finished
    else:
        doc["finished"] = finished
        doc["elapsed_s"] = time.perf_counter() - t0
        doc["machine"]["load_average_at_end"] = os.getloadavg()
    doc = relative_paths(doc)
    report.add_ratios(doc)
    doc["goals"] = report.evaluate_goals(doc)
    report.write_json(doc, base.with_suffix(".json"))
    markdown.write_markdown(doc, base.with_suffix(".md"))
    try:
        markdown.write_chart(doc, base.with_suffix(".png"))
    except Exception as e:  # noqa: BLE001 - a chart failure must not lose the results
        print(f"bench/run: chart not written: {e}", file=sys.stderr)
    print(f"bench/run: {base}.json, .md, .png written in {time.perf_counter() - t0:.0f} s")
    return 0
