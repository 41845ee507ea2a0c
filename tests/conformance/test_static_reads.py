"""Spark differential conformance of batch reads without a declared schema (static_reads.py):
every case of cases/static_*.py on sluice and on PySpark. All of them run in `make test`."""
import pytest

import harness
import static_reads
from cases.static_cases import STATIC_CASES


def test_static_case_ids_are_unique():
    ids = [c.id for c in STATIC_CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize("case", STATIC_CASES, ids=[c.id for c in STATIC_CASES])
def test_static_case(case, request, sluice_bin_dir, tmp_path):
    sluice = static_reads.run_sluice(sluice_bin_dir, case, tmp_path / "sluice")
    spark = static_reads.run_spark(request.getfixturevalue("spark"), case, tmp_path / "spark")
    report = f"\n-- sluice:\n{harness.describe(sluice)}\n-- spark:\n{harness.describe(spark)}"
    if case.error and not case.diff:
        assert sluice.error and spark.error, f"{case.id}: both engines must fail{report}"
        assert case.error in sluice.error, f"{case.id}: sluice's error lacks {case.error!r}{report}"
    got = harness.difference(sluice, spark)
    if not case.diff:
        assert got == "", f"{case.id}: unexplained difference: {got}{report}"
    else:
        assert got == case.expect, (f"{case.id}: known difference {case.diff} changed or disappeared"
                                    f"\n   recorded: {case.expect!r}\n   now:      {got!r}{report}")
