"""Schema evolution (opt-in `mergeSchema`) as PyIceberg 0.12 sees it.

A SQL pipeline (`sluice run`) streams (id, name) rows into lake.db.events; a second pipeline
with an extra `score` column is refused until it sets `mergeSchema = true`, then adds `score` as
an optional column (field id 3, a second schema) and appends. PyIceberg must read the rows from
before the evolution with score = null and the rows after it with their scores.
"""
import json
import subprocess
from pathlib import Path

from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.table import StaticTable
from pyiceberg.types import DoubleType, LongType, NestedField, StringType


def write_json(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def pipeline(tmp: Path, name: str, columns: str, source: str, merge: bool) -> Path:
    # The merging pipeline is a second query on the same table, on purpose.
    merge_option = ", mergeSchema = true, allowOtherQueries = true" if merge else ""
    sql = f"""
SET sluice.sql.catalog.lake.type = 'sql';
SET sluice.sql.catalog.lake.uri = 'sqlite:///{tmp}/catalog.db';
SET sluice.sql.catalog.lake.warehouse = '{tmp}/wh';
CREATE TABLE src ({columns}) WITH (connector = 'files', format = 'json', path = '{tmp}/{source}');
CREATE TABLE events () WITH (connector = 'iceberg', catalog = 'lake', table = 'db.events'{merge_option});
INSERT INTO events SELECT * FROM src;
"""
    path = tmp / name
    path.write_text(sql)
    return path


def run(bin_dir: Path, sql: Path, checkpoint: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / "sluice"), "run", str(sql), "--trigger", "available-now", "--checkpoint",
                           str(checkpoint)], capture_output=True, text=True, timeout=120)


def test_rows_before_and_after_adding_a_column_read_back_through_pyiceberg(tmp_path, sluice_bin_dir):
    write_json(tmp_path / "old" / "a.json", [{"id": i, "name": f"n{i}"} for i in range(4)])
    old = pipeline(tmp_path, "old.sql", "id BIGINT, name TEXT", "old", merge=False)
    proc = run(sluice_bin_dir, old, tmp_path / "ckpt-old")
    assert proc.returncode == 0, proc.stderr

    write_json(tmp_path / "new" / "a.json", [{"id": i, "name": f"n{i}", "score": i * 0.5} for i in range(4, 7)])
    refused = pipeline(tmp_path, "refused.sql", "id BIGINT, name TEXT, score DOUBLE PRECISION", "new", merge=False)
    proc = run(sluice_bin_dir, refused, tmp_path / "ckpt-new")
    assert proc.returncode == 1
    assert "column 'score'" in proc.stderr and "mergeSchema" in proc.stderr, proc.stderr

    merged = pipeline(tmp_path, "merged.sql", "id BIGINT, name TEXT, score DOUBLE PRECISION", "new", merge=True)
    proc = run(sluice_bin_dir, merged, tmp_path / "ckpt-new")
    assert proc.returncode == 0, proc.stderr
    # The old pipeline picks up a new file after the evolution: writing without `score` is a
    # dropped column, refused naming it.
    write_json(tmp_path / "old" / "b.json", [{"id": 100, "name": "late"}])
    proc = run(sluice_bin_dir, old, tmp_path / "ckpt-old")
    assert proc.returncode == 1
    assert "table column 'score' is missing" in proc.stderr, proc.stderr

    catalog = SqlCatalog("lake", uri=f"sqlite:///{tmp_path}/catalog.db", warehouse=f"file://{tmp_path}/wh")
    table = catalog.load_table("db.events")
    static = StaticTable.from_metadata(table.metadata_location)
    for t in (table, static):
        assert t.schema().fields == (
            NestedField(1, "id", LongType(), required=False),
            NestedField(2, "name", StringType(), required=False),
            NestedField(3, "score", DoubleType(), required=False))
        md = t.metadata
        assert md.current_schema_id == 1
        assert [len(s.fields) for s in md.schemas] == [2, 3]
        assert md.last_column_id == 3
        rows = sorted(t.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
        assert rows == ([{"id": i, "name": f"n{i}", "score": None} for i in range(4)] +
                        [{"id": i, "name": f"n{i}", "score": i * 0.5} for i in range(4, 7)])
        assert sorted(r["id"] for r in t.scan(row_filter="score IS NULL").to_arrow().to_pylist()) == [0, 1, 2, 3]
        assert sorted(r["id"] for r in t.scan(row_filter="score >= 2.5").to_arrow().to_pylist()) == [5, 6]
    snapshots = table.snapshots()
    assert [s.summary.operation.value for s in snapshots] == ["append", "append"]
    assert [s.schema_id for s in snapshots] == [0, 1]
