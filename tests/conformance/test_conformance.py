"""Spark differential conformance: every case of cases_*.py on sluice and on PySpark, in both run
modes. A case passes when the engines agree, or, for a case that declares a known difference
(`diff`, a row of docs/spark-compatibility.md), when they differ exactly as recorded.

SLUICE_CONFORMANCE=smoke runs the representative subset (`smoke=True`, what `make test` runs);
anything else runs every case (`make conformance`)."""
import os
import re
from pathlib import Path

import pytest

import harness
from cases import ALL_CASES
from cases.static_cases import STATIC_CASES

DOC = Path(__file__).resolve().parents[2] / "docs" / "spark-compatibility.md"
SMOKE = os.environ.get("SLUICE_CONFORMANCE", "full") == "smoke"
SELECTED = [c for c in ALL_CASES if c.smoke or not SMOKE]


def _doc_ids() -> dict:
    """Difference id -> status ('deliberate', 'pending', ...) from the doc's table rows '| D1 | status | ...'."""
    ids = {}
    for line in DOC.read_text().splitlines():
        m = re.match(r"\|\s*(D\d+)\s*\|\s*([a-z-]+)\s*\|", line)
        if m:
            ids[m.group(1)] = m.group(2)
    return ids


def test_case_ids_are_unique():
    ids = [c.id for c in ALL_CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_every_difference_is_documented_and_asserted():
    documented = _doc_ids()
    used = {c.diff for c in ALL_CASES + STATIC_CASES if c.diff} | ({PROGRESS_DIFF} if PROGRESS_DIFF else set())
    assert used - set(documented) == set(), "cases name differences missing from docs/spark-compatibility.md"
    assert set(documented) - used == set(), "documented differences that no case asserts"
    for c in ALL_CASES + STATIC_CASES:
        if c.diff:
            assert c.expect, f"{c.id}: a known difference must record the difference text it asserts"


@pytest.mark.parametrize("run", harness.RUNS)
@pytest.mark.parametrize("case", SELECTED, ids=[c.id for c in SELECTED])
def test_case(case, run, request, sluice_bin_dir, tmp_path):
    if run not in case.runs:
        pytest.skip(f"{case.id} runs only in {case.runs}")
    sluice, spark_outcome = harness.run_both(lambda: request.getfixturevalue("spark"), sluice_bin_dir, case, run,
                                             tmp_path)
    report = (f"\n-- sluice:\n{harness.describe(sluice)}\n-- spark:\n{harness.describe(spark_outcome)}\n"
              f"-- SQL: {case.sql}")
    if case.error and not case.diff:
        assert sluice.error and spark_outcome.error, f"{case.id}: both engines must fail{report}"
        assert case.error in sluice.error, f"{case.id}: sluice's error lacks {case.error!r}{report}"
    got = harness.difference(sluice, spark_outcome, case.ordered)
    want = case.expected_difference(run)
    if not case.diff:
        assert got == "", f"{case.id} [{run}]: unexplained difference: {got}{report}"
    else:
        assert got == want, (f"{case.id} [{run}]: known difference {case.diff} changed or disappeared"
                             f"\n   recorded: {want!r}\n   now:      {got!r}{report}")


PROGRESS_DIFF = None  # no known difference (a row of docs/spark-compatibility.md when there is one)
PROGRESS_EXPECT = ""


def _progress_difference(sluice: dict, spark_progress: dict) -> str:
    """Which top-level fields of the first batch's progress JSON one engine writes and the other not."""
    only_sluice = sorted(set(sluice) - set(spark_progress))
    only_spark = sorted(set(spark_progress) - set(sluice))
    parts = []
    if only_spark:
        parts.append(f"sluice lacks {only_spark}")
    if only_sluice:
        parts.append(f"sluice adds {only_sluice}")
    for sub in ("sources", "sink"):
        a = sluice.get(sub)
        b = spark_progress.get(sub)
        a = a[0] if isinstance(a, list) and a else a
        b = b[0] if isinstance(b, list) and b else b
        if isinstance(a, dict) and isinstance(b, dict) and sorted(a) != sorted(b):
            parts.append(f"{sub}: sluice lacks {sorted(set(b) - set(a))}, adds {sorted(set(a) - set(b))}")
    return "; ".join(parts)


def test_first_batch_progress_fields(request, sluice_bin_dir, tmp_path):
    """The first batch's StreamingQueryProgress: the same fields as Spark's (values differ: ids, times)."""
    import json

    case = harness.Case("progress-first-batch", "SELECT k, v FROM src", [[{"k": "a", "v": 1, "ts": None}]])
    sluice_progress = tmp_path / "progress.jsonl"
    work = tmp_path / "sluice"
    (work / "input").mkdir(parents=True)
    harness._add_file(harness._input_files(case, work / "staged")[0], work / "input")
    (work / "case.sql").write_text(harness._sluice_pipeline(case, work / "input"))
    import subprocess

    subprocess.run([str(sluice_bin_dir / "sql_batches"), "--sql", str(work / "case.sql"), "--checkpoint",
                    str(work / "ckpt"), "--out", str(work / "out"), "--progress", str(sluice_progress)], check=True)
    first_sluice = json.loads(sluice_progress.read_text().splitlines()[0])

    spark = request.getfixturevalue("spark")
    spark_dir = tmp_path / "spark"
    (spark_dir / "input").mkdir(parents=True)
    harness._add_file(harness._input_files(case, spark_dir / "staged")[0], spark_dir / "input")
    df = spark.readStream.schema(case.schema).format("json").option("maxFilesPerTrigger", 1).load(
        str(spark_dir / "input"))
    q = (df.select("k", "v").writeStream.format("noop").option("checkpointLocation", str(spark_dir / "ckpt"))
         .trigger(availableNow=True).start())
    q.awaitTermination()
    first_spark = q.recentProgress[0]
    got = _progress_difference(first_sluice, first_spark)
    assert got == (PROGRESS_EXPECT or ""), (f"progress fields: known difference {PROGRESS_DIFF} changed or disappeared"
                                            f"\n   recorded: {PROGRESS_EXPECT!r}\n   now:      {got!r}"
                                            f"\n-- sluice: {first_sluice}\n-- spark: {first_spark}")
