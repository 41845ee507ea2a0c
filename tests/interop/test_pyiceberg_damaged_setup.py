"""A damaged Iceberg setup is refused instead of being written over, and PyIceberg judges the
table: the SQLite catalog deleted after committed batches (no new, empty table may appear), and a
data file of an earlier batch deleted (nothing is committed on top; once the file is back the
table reads every row and the stream goes on)."""
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from pyiceberg_helpers import ROWS_PER_FILE, Lake, sorted_ids, write_inputs  # noqa: E402


def run(lake: Lake, bin_dir: Path, inputs: Path, checkpoint: Path) -> subprocess.CompletedProcess:
    cmd = [str(bin_dir / "iceberg_stream"), "--input", str(inputs), "--checkpoint", str(checkpoint),
           *lake.catalog_args()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_a_deleted_catalog_is_refused_and_no_empty_table_replaces_it(tmp_path, sluice_bin_dir):
    lake = Lake(tmp_path)
    inputs, checkpoint = tmp_path / "in", tmp_path / "ckpt"
    write_inputs(inputs, 0, 3)
    assert run(lake, sluice_bin_dir, inputs, checkpoint).returncode == 0
    lake.db.unlink()  # the catalog database deleted
    write_inputs(inputs, 3, 1)
    refused = run(lake, sluice_bin_dir, inputs, checkpoint)
    assert refused.returncode != 0
    assert "Iceberg table lake.db.events does not exist, but checkpoint" in refused.stderr
    assert "committed batches up to 0 into it" in refused.stderr
    catalog = lake.sql_catalog()
    assert ("db", "events") not in [tuple(t) for ns in catalog.list_namespaces() for t in catalog.list_tables(ns)]


def test_a_deleted_data_file_is_refused_before_committing_and_the_table_stays_readable(tmp_path, sluice_bin_dir):
    lake = Lake(tmp_path)
    inputs, checkpoint = tmp_path / "in", tmp_path / "ckpt"
    write_inputs(inputs, 0, 2)
    assert run(lake, sluice_bin_dir, inputs, checkpoint).returncode == 0
    snapshots = len(lake.sql_catalog().load_table("db.events").snapshots())
    victim = sorted((lake.table_dir() / "data").glob("*.parquet"))[0]
    kept = tmp_path / "kept.parquet"
    shutil.move(victim, kept)
    write_inputs(inputs, 2, 1)
    refused = run(lake, sluice_bin_dir, inputs, checkpoint)
    assert refused.returncode != 0
    assert f"references data file '{victim}'" in refused.stderr
    table = lake.sql_catalog().load_table("db.events")
    assert len(table.snapshots()) == snapshots  # nothing committed on top of the damage

    shutil.move(kept, victim)
    assert sorted_ids(lake.sql_catalog().load_table("db.events").scan().to_arrow()) == list(range(2 * ROWS_PER_FILE))
    assert run(lake, sluice_bin_dir, inputs, checkpoint).returncode == 0
    assert sorted_ids(lake.sql_catalog().load_table("db.events").scan().to_arrow()) == list(range(3 * ROWS_PER_FILE))
