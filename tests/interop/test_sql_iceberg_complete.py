"""SQL aggregation in complete mode into an Iceberg table, read back by PyIceberg.

`sluice run --output-mode complete` of `INSERT INTO lake_counts SELECT k, count(*), ... GROUP BY k`
writes the whole result every batch as an overwrite snapshot; after the run PyIceberg must read
exactly the batch answer (computed here from the input, and printed by `sluice batch`).
"""
import json
import os
import subprocess
from collections import defaultdict
from pathlib import Path

from pyiceberg.catalog.sql import SqlCatalog

FILES = 4
ROWS_PER_FILE = 6


def event(i: int) -> dict:
    return {"id": i, "k": ["red", "green", "blue"][i % 3] if i % 5 else None, "price": i * 0.5}


def write_inputs(input_dir: Path, first: int, count: int) -> None:
    input_dir.mkdir(parents=True, exist_ok=True)
    for f in range(first, first + count):
        rows = [event(i) for i in range(f * ROWS_PER_FILE, (f + 1) * ROWS_PER_FILE)]
        tmp = input_dir / f".f{f}.json.tmp"
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        os.rename(tmp, input_dir / f"f{f:03d}.json")


def expected(n_rows: int) -> list:
    groups = defaultdict(list)
    for i in range(n_rows):
        e = event(i)
        groups[e["k"]].append(e)
    return sorted(((k, len(v), sum(e["id"] for e in v), max(e["price"] for e in v)) for k, v in groups.items()),
                  key=lambda r: (r[0] is None, r[0] or ""))


def pipeline(tmp: Path) -> Path:
    sql = f"""
SET sluice.sql.catalog.lake.type = 'sql';
SET sluice.sql.catalog.lake.uri = 'sqlite:///{tmp / "catalog.db"}';
SET sluice.sql.catalog.lake.warehouse = '{tmp / "wh"}';
CREATE TABLE events (id BIGINT, k TEXT, price DOUBLE)
  WITH (connector = 'files', format = 'json', path = '{tmp / "in"}', max_files_per_trigger = 1);
CREATE TABLE lake_counts () WITH (connector = 'iceberg', catalog = 'lake', table = 'db.counts');
INSERT INTO lake_counts SELECT k, count(*) AS n, sum(id) AS ids, max(price) AS top FROM events GROUP BY k;
"""
    path = tmp / "counts.sql"
    path.write_text(sql)
    return path


def run(bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(bin_dir / "sluice"), *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"sluice {' '.join(args)} exited {proc.returncode}: {proc.stderr}"
    return proc


def table_rows(tmp: Path) -> list:
    catalog = SqlCatalog("lake", uri=f"sqlite:///{tmp / 'catalog.db'}", warehouse=f"file://{tmp / 'wh'}")
    table = catalog.load_table("db.counts")
    rows = table.scan().to_arrow().to_pylist()
    return table, sorted(((r["k"], r["n"], r["ids"], r["top"]) for r in rows), key=lambda r: (r[0] is None, r[0] or ""))


def test_complete_mode_overwrites_the_table_with_the_batch_answer(tmp_path, sluice_bin_dir):
    sql = pipeline(tmp_path)
    write_inputs(tmp_path / "in", 0, FILES)
    ckpt = str(tmp_path / "ckpt")
    run(sluice_bin_dir, "run", str(sql), "--checkpoint", ckpt, "--trigger", "available-now", "--output-mode", "complete")
    table, rows = table_rows(tmp_path)
    assert rows == expected(FILES * ROWS_PER_FILE)
    # One overwrite snapshot per batch (one file per batch), each replacing the whole result.
    snapshots = table.metadata.snapshots
    assert len(snapshots) == FILES
    assert all(s.summary.operation.value == "overwrite" for s in snapshots[1:]), [s.summary for s in snapshots]

    # A restart on the same checkpoint continues from the state: new files update the totals.
    write_inputs(tmp_path / "in", FILES, 2)
    run(sluice_bin_dir, "run", str(sql), "--checkpoint", ckpt, "--trigger", "available-now", "--output-mode", "complete")
    table, rows = table_rows(tmp_path)
    assert rows == expected((FILES + 2) * ROWS_PER_FILE)
    assert len(table.metadata.snapshots) == FILES + 2

    # `sluice batch` of the same SQL gives the same answer (it prints the rows).
    printed = run(sluice_bin_dir, "batch", str(sql), "--print").stdout
    assert f"({len(rows)} rows)" in printed, printed
    for k, n, ids, _ in rows:
        assert f"|{n}" in printed.replace(" ", "") and f"|{ids}" in printed.replace(" ", ""), printed
