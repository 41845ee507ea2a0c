"""The differential harness for batch reads (spark.read / a sluice batch pipeline) of files
without a declared schema: the schema both engines infer and the rows they read with it.

sluice runs `sluice batch` on `CREATE TABLE src () WITH (...)` (no columns: inferred) and writes
every row to Parquet; Spark runs `spark.read.format(fmt).options(...).load(dir)`. The outcome is
compared as the streaming cases' are (harness.difference): column names and Spark types, then the
rows as a multiset. Files are named part-000.<fmt>, part-001.<fmt>, ... (read in that order).
"""
from __future__ import annotations

import collections
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import harness


@dataclass
class StaticCase:
    id: str
    fmt: str  # json | csv
    files: list  # each file's content: text, or bytes
    options: dict = field(default_factory=dict)  # reader options, Spark's names
    error: Optional[str] = None  # both engines must fail, and sluice's message must contain this
    diff: Optional[str] = None  # id of a row of docs/spark-compatibility.md
    expect: str = ""  # the difference text of a `diff` case


def _write_files(case: StaticCase, input_dir: Path) -> None:
    input_dir.mkdir(parents=True)
    for i, content in enumerate(case.files):
        f = input_dir / f"part-{i:03d}.{case.fmt}"
        if isinstance(content, bytes):
            f.write_bytes(content)
        else:
            f.write_text(content)


def _sql_text(v: str) -> str:
    return "'" + str(v).replace("'", "''") + "'"


def run_sluice(bin_dir: Path, case: StaticCase, work: Path) -> harness.Outcome:
    import pyarrow.dataset as ds

    input_dir, out = work / "input", work / "out"
    _write_files(case, input_dir)
    opts = [f"connector = 'files'", f"format = '{case.fmt}'", f"path = {_sql_text(input_dir)}"]
    opts += [f"{k} = {_sql_text(v)}" for k, v in case.options.items()]
    sql = work / "case.sql"
    sql.write_text(f"CREATE TABLE src () WITH ({', '.join(opts)});\n"
                   f"CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = {_sql_text(out)});\n"
                   "INSERT INTO out SELECT * FROM src;\n")
    p = subprocess.run([str(bin_dir / "sluice"), "batch", str(sql)], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return harness.Outcome(error=(p.stderr.strip() or f"exit status {p.returncode}").removeprefix("sluice: "))
    files = sorted(out.glob("*.parquet")) if out.exists() else []
    if not files:
        return harness.Outcome(batches={0: ((), collections.Counter())})
    table = ds.dataset([str(f) for f in files], format="parquet").to_table()
    cols = tuple((fl.name, harness._arrow_type_name(fl.type)) for fl in table.schema)
    types = {fl.name: fl.type for fl in table.schema}
    rows = [tuple(harness._norm(harness._from_arrow(r[c], types[c])) for c in table.column_names)
            for r in table.to_pylist()]
    return harness.Outcome(batches={0: (cols, collections.Counter(rows))})


def run_spark(spark, case: StaticCase, work: Path) -> harness.Outcome:
    input_dir = work / "input"
    _write_files(case, input_dir)
    try:
        df = spark.read.format(case.fmt).options(**case.options).load(str(input_dir))
        rows = [tuple(harness._norm(x) for x in r) for r in df.collect()]
    except Exception as e:  # AnalysisException, SparkException, ...
        return harness.Outcome(error=harness._first_line(str(e)))
    if not rows:
        return harness.Outcome(batches={0: ((), collections.Counter())})
    cols = tuple((f.name, f.dataType.simpleString()) for f in df.schema.fields)
    return harness.Outcome(batches={0: (cols, collections.Counter(rows))})
