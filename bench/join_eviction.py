#!/bin/sh
# Stream-stream join eviction against a long range; run with the repo's .venv.
''''exec "$(dirname "$0")/../.venv/bin/python" "$0" "$@" # '''
"""bench/join_eviction.py [--batches B] [--rows R] [--range-minutes M] [--reps N]
                          [--providers file,rocksdb] [--bin SLUICE] [--baseline-bin OTHER [--baseline-label L]] [--name NAME]

What a stream-stream join's state eviction costs when the join keeps much more than a batch
expires: impressions LEFT JOIN clicks ON id = cid AND cts BETWEEN its AND its + M minutes (each
side watermarked 10 s), JSON files of R rows per side, one file per side per batch
(maxFilesPerTrigger 1), event time advancing 10 s a batch, half the clicks matching an
impression of 5 batches before. With M = 20 the state holds ~120 batches of rows a side while
each batch expires one: the rows decoded at eviction follow the rows buffered unless the state
can find the expired ones.

`sluice run PIPELINE.sql --trigger available-now --progress FILE`, one process per repetition
and provider; reported per run: the join's eviction time per batch (`stateOperators[0]
.allRemovalsTimeMs`) and the whole batch's (`durationMs.triggerExecution`), each the mean over
the last 100 batches, the state rows at the end, process wall and CPU seconds; the median over
repetitions. `--baseline-bin` runs another sluice binary on the same data (the rows written are
compared: a different answer fails the run). Writes bench/results/<NAME>.json and .md (default
join_eviction). Not part of `make test`."""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from benchlib.measure import run_process  # noqa: E402

BASE = datetime(2026, 1, 1)
PIPELINE = """CREATE TABLE imps (id TEXT, its TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '{data}/imps', event_time = 'its', watermark = '10 seconds', max_files_per_trigger = 1);
CREATE TABLE clicks (cid TEXT, cts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '{data}/clicks', event_time = 'cts', watermark = '10 seconds', max_files_per_trigger = 1);
CREATE TABLE out (id TEXT, its TIMESTAMP, cts TIMESTAMP) WITH (connector = 'files', format = 'parquet', path = '{out}');
INSERT INTO out SELECT id, its, cts FROM imps LEFT JOIN clicks
  ON id = cid AND cts BETWEEN its AND its + INTERVAL '{minutes}' MINUTE;
"""


def generate(data: Path, batches: int, rows: int) -> None:
    stamp = data / f".complete-{batches}-{rows}"
    if stamp.exists():
        return
    subprocess.run(["rm", "-rf", str(data)], check=True)
    for side in ("imps", "clicks"):
        (data / side).mkdir(parents=True)
    for b in range(batches):
        imps, clicks = [], []
        for r in range(rows):
            t = (BASE + timedelta(seconds=10 * b, milliseconds=r)).isoformat()
            imps.append(json.dumps({"id": f"u{b}_{r}", "its": t}))
            # half the clicks match the impression 5 batches (50 s) before; the rest match none
            cid = f"u{b - 5}_{r}" if r % 2 == 0 and b >= 5 else f"x{b}_{r}"
            clicks.append(json.dumps({"cid": cid, "cts": t}))
        (data / "imps" / f"{b:05d}.json").write_text("\n".join(imps) + "\n")
        (data / "clicks" / f"{b:05d}.json").write_text("\n".join(clicks) + "\n")
    stamp.write_text("")


def output_rows(out: Path) -> list[tuple]:
    import pyarrow.parquet as pq
    files = sorted(str(p) for p in out.glob("*.parquet"))
    if not files:
        return []
    return sorted(pq.read_table(files).to_pylist(), key=lambda r: (r["id"], str(r["cts"])))


def run_once(binary: str, work: Path, data: Path, minutes: int, provider: str) -> tuple[dict, list]:
    """One run's figures, and the rows it wrote."""
    for sub in ("out", "ckpt"):
        subprocess.run(["rm", "-rf", str(work / sub)], check=True)
    work.mkdir(parents=True, exist_ok=True)
    sql = work / "pipeline.sql"
    sql.write_text(PIPELINE.format(data=data, out=work / "out", minutes=minutes))
    progress = work / "progress.jsonl"
    progress.unlink(missing_ok=True)
    run = run_process([binary, "run", str(sql), "--checkpoint", str(work / "ckpt"), "--trigger", "available-now",
                       "--progress", str(progress), "--conf",
                       f"spark.sql.streaming.stateStore.providerClass={provider}"], log_dir=work)
    if not run.ok:
        raise SystemExit(f"{binary} failed ({run.returncode}): {run.stderr[-2000:]}")
    batches = [json.loads(line) for line in progress.read_text().splitlines() if line.strip()]
    last = batches[-100:]
    ops = [(b.get("stateOperators") or [{}])[0] for b in last]
    rows = output_rows(work / "out")
    return {
        "batches": len(batches),
        "eviction_ms": statistics.mean(o.get("allRemovalsTimeMs", 0) for o in ops),
        "batch_ms": statistics.mean(b["durationMs"].get("triggerExecution", 0) for b in last),
        "state_rows_end": ops[-1].get("numRowsTotal"),
        "wall_s": run.wall_s,
        "cpu_s": run.cpu_s,
        "rows_out": len(rows),
    }, rows


def shown_path(p: str) -> str:
    """A path inside the repository relative to it, any other as given."""
    path = Path(p).absolute()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def median_of(runs: list[dict]) -> dict:
    keys = ("eviction_ms", "batch_ms", "wall_s", "cpu_s")
    out = {k: statistics.median(r[k] for r in runs) for k in keys}
    out.update({k: runs[0][k] for k in ("batches", "state_rows_end", "rows_out")})
    out["runs"] = runs
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", type=int, default=300)
    ap.add_argument("--rows", type=int, default=500, help="rows per side per batch")
    ap.add_argument("--range-minutes", type=int, default=20)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--providers", default="file,rocksdb")
    ap.add_argument("--bin", default=str(REPO / "build" / "bin" / "sluice"))
    ap.add_argument("--baseline-bin", default=None, help="another sluice binary to run on the same data")
    ap.add_argument("--baseline-label", default="baseline", help="its name in the report (e.g. the commit it was built at)")
    ap.add_argument("--name", default="join_eviction")
    args = ap.parse_args()

    work = BENCH / "work" / args.name
    data = work / "data"
    generate(data, args.batches, args.rows)
    binaries = {"sluice": args.bin}
    if args.baseline_bin:
        binaries[args.baseline_label] = args.baseline_bin
    results: dict = {}
    answers: dict = {}
    for provider in args.providers.split(","):
        for label, binary in binaries.items():
            runs = []
            for rep in range(args.reps):
                figures, rows = run_once(binary, work / f"{label}-{provider}", data, args.range_minutes, provider)
                runs.append(figures)
                print(f"{label} {provider} rep {rep}: eviction {figures['eviction_ms']:.1f} ms a batch", flush=True)
                if rep == 0:
                    answers[(label, provider)] = rows
            results.setdefault(provider, {})[label] = median_of(runs)
    first = next(iter(answers.values()))
    if any(a != first for a in answers.values()):
        raise SystemExit("the runs wrote different rows: " + ", ".join(f"{k}: {len(v)}" for k, v in answers.items()))

    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    doc = {"parameters": {"batches": args.batches, "rows": args.rows, "range_minutes": args.range_minutes,
                          "reps": args.reps, "binaries": {k: shown_path(v) for k, v in binaries.items()}},
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "load_avg": os.getloadavg()},
           "sluice_commit": commit, "finished": datetime.now().isoformat(timespec="seconds"), "results": results}
    results_dir = BENCH / "results"
    (results_dir / f"{args.name}.json").write_text(json.dumps(doc, indent=2) + "\n")
    lines = [f"# Stream-stream join eviction ({args.name})", "",
             f"sluice {commit}; {args.batches} batches of {args.rows} rows a side, range {args.range_minutes} min, "
             f"median of {args.reps} runs; written by `bench/join_eviction.py` ({doc['finished']}).", "",
             "| provider | binary | eviction ms / batch | batch ms | state rows at end | wall s | CPU s | rows out |",
             "|---|---|---|---|---|---|---|---|"]
    for provider, by_bin in results.items():
        for label, r in by_bin.items():
            lines.append(f"| {provider} | {label} ({doc['parameters']['binaries'][label]}) | {r['eviction_ms']:.1f} | "
                         f"{r['batch_ms']:.1f} | {r['state_rows_end']:,} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} | "
                         f"{r['rows_out']:,} |")
    (results_dir / f"{args.name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
