"""The seed exercise written in PySpark (examples/exercise.py) runs on sluice with only its
import lines changed; PyIceberg then finds every event in local.db.events exactly once."""
import re
import subprocess
import sys

from pyiceberg.table import StaticTable

from conftest import REPO


def swap_imports(source):
    """pyspark -> sluice on import lines only; returns the new text and the lines changed."""
    out, changed = [], []
    for line in source.splitlines(keepends=True):
        new = re.sub(r"^(from|import) pyspark\b", r"\1 sluice", line)
        if new != line:
            changed.append(line.strip())
        out.append(new)
    return "".join(out), changed


def test_exercise_runs_unchanged_except_imports(tmp_path):
    source = (REPO / "examples" / "exercise.py").read_text()
    script, changed = swap_imports(source)
    assert changed == ["from pyspark.sql import SparkSession", "import pyspark.sql.functions as F",
                       "from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType"]
    (tmp_path / "exercise.py").write_text(script)
    work = tmp_path / "work"
    run = subprocess.run([sys.executable, str(tmp_path / "exercise.py"), str(work)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "run 1: 300 rows" in run.stdout and "run 2: 300 rows" in run.stdout, run.stdout

    table = StaticTable.from_metadata(f"file://{work}/warehouse/db/events")
    rows = table.scan().to_arrow()
    ids = rows.column("id").to_pylist()
    assert sorted(ids) == list(range(600))  # every event, once
    assert rows.column_names == ["id", "name", "price"]
    snapshots = table.metadata.snapshots
    # maxFilesPerTrigger 2: batches of 2 + 1 files per run, one append snapshot per batch.
    assert len(snapshots) == 4 and all(s.summary.operation.value == "append" for s in snapshots)
