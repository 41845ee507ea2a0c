"""Kill the Iceberg-writing query at each phase of a batch's commit, restart it on the same
checkpoint, and let PyIceberg judge: every row exactly once, one snapshot per batch, and no
metadata file of a lost attempt ever current.

Phases (fault points, hit in the second batch so batch 0 is committed first):
  iceberg_after_data_files      Parquet files written, nothing else
  iceberg_after_manifests       manifests + manifest list written
  iceberg_after_metadata_file   new metadata file written (sql) / about to be claimed (hadoop)
  iceberg_after_catalog_commit  the table has the batch; version hint / commit log not yet written
  after_sink_commit             (runtime) sink done, commits/<N> not yet written
"""
import subprocess
import sys
from pathlib import Path

import pytest
from pyiceberg.table import StaticTable

sys.path.insert(0, str(Path(__file__).parent))
from pyiceberg_helpers import FAULT_EXIT, Lake, sorted_ids, write_inputs  # noqa: E402

pytestmark = pytest.mark.slow

PHASES = ["iceberg_after_data_files", "iceberg_after_manifests", "iceberg_after_metadata_file",
          "iceberg_after_catalog_commit", "after_sink_commit"]


def load(lake: Lake):
    if lake.catalog_type == "sql":
        return lake.sql_catalog().load_table("db.events")
    return StaticTable.from_metadata(f"file://{lake.table_dir()}")


def assert_exactly_once(lake: Lake, rows: int, batches: int, crashes: int = 1) -> None:
    table = load(lake)
    assert sorted_ids(table.scan().to_arrow()) == list(range(rows))
    snapshots = table.snapshots()
    epochs = [s.summary.additional_properties["spark.sql.streaming.epochId"] for s in snapshots]
    assert epochs == [str(e) for e in range(batches)]
    # The current metadata is the end of one unbroken chain: every older metadata file it lists
    # exists, and every snapshot's parent is the one before it.
    for entry in table.metadata.metadata_log:
        assert Path(entry.metadata_file.removeprefix("file://")).exists()
    for prev, snap in zip(snapshots, snapshots[1:]):
        assert snap.parent_snapshot_id == prev.snapshot_id
    if lake.catalog_type == "hadoop":
        versions = sorted(int(p.name[1:].split(".")[0]) for p in (lake.table_dir() / "metadata").glob("v*.metadata.json"))
        assert versions == list(range(1, batches + 2))  # v1 = create, then one per batch; no gaps, no extras
        assert (lake.table_dir() / "metadata" / "version-hint.text").read_text().strip() == str(batches + 1)
    else:
        current = table.metadata_location.removeprefix("file://")
        listed = {e.metadata_file.removeprefix("file://") for e in table.metadata.metadata_log} | {current}
        on_disk = {str(p) for p in (lake.table_dir() / "metadata").glob("*.metadata.json")}
        # A crash after writing a metadata file but before the CAS may leave that file on disk;
        # it is never current and never in the log. Each crash interrupts at most one commit.
        assert len(on_disk - listed) <= crashes


@pytest.mark.parametrize("catalog_type", ["sql", "hadoop"])
@pytest.mark.parametrize("phase", PHASES)
def test_restart_after_a_crash_commits_every_row_once(tmp_path, sluice_bin_dir, catalog_type, phase):
    lake = Lake(tmp_path, catalog_type)
    write_inputs(tmp_path / "in", 0, 6)  # 3 batches of 2 files
    rc = lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "2",
                  "--fault", f"point={phase},hits=2", expect=(FAULT_EXIT,))
    assert rc == FAULT_EXIT
    write_inputs(tmp_path / "in", 6, 2)  # input arriving while the query is down
    lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "2")
    assert_exactly_once(lake, rows=40, batches=4)


@pytest.mark.parametrize("catalog_type", ["sql", "hadoop"])
def test_a_crash_while_a_data_file_is_written_leaves_no_file_behind(tmp_path, sluice_bin_dir, catalog_type):
    """A data file is named only once it is whole and synced: a crash in the middle of writing one
    leaves no file in the data directory (named or hidden), and the restart commits every row once."""
    lake = Lake(tmp_path, catalog_type)
    write_inputs(tmp_path / "in", 0, 6)  # 3 batches of 2 files, one data file each
    rc = lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "2",
                  "--fault", "write=.parquet,hits=2", expect=(FAULT_EXIT,))
    assert rc == FAULT_EXIT
    lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "2")
    assert_exactly_once(lake, rows=30, batches=3)
    referenced = {task.file.file_path.removeprefix("file://") for task in load(lake).scan().plan_files()}
    on_disk = {str(p) for p in (lake.table_dir() / "data").rglob("*") if p.is_file()}
    assert on_disk == referenced


@pytest.mark.parametrize("catalog_type", ["sql", "hadoop"])
def test_sigkill_at_a_random_moment_then_restart(tmp_path, sluice_bin_dir, catalog_type):
    lake = Lake(tmp_path, catalog_type)
    write_inputs(tmp_path / "in", 0, 30)
    cmd = ["timeout", "-s", "KILL", "0.4", str(sluice_bin_dir / "iceberg_stream"), "--input", str(tmp_path / "in"),
           "--checkpoint", str(tmp_path / "ckpt"), *lake.catalog_args(), "--max-files-per-trigger", "1"]
    subprocess.run(cmd, capture_output=True, timeout=120)
    lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "1")
    assert_exactly_once(lake, rows=150, batches=30)


def test_sigkill_loop_on_a_partitioned_table_then_restart(tmp_path, sluice_bin_dir):
    """kill -9 at varied moments (SLUICE_ICEBERG_PARTITION_KILLS times, default 5) while batches are
    split by partition; the restart must leave every row once, each file in its own partition."""
    import os
    from pyiceberg.transforms import BucketTransform
    from pyiceberg.types import LongType
    import pyarrow.parquet as pq

    kills = int(os.environ.get("SLUICE_ICEBERG_PARTITION_KILLS", "5"))
    lake = Lake(tmp_path, "sql")
    write_inputs(tmp_path / "in", 0, 30)
    args = [str(tmp_path / "in"), "--checkpoint", str(tmp_path / "ckpt"), *lake.catalog_args(),
            "--max-files-per-trigger", "1", "--partition-by", "day, bucket(3, id)"]
    for k in range(kills):
        delay = f"{0.25 + 0.07 * (k % 5):.2f}"
        subprocess.run(["timeout", "-s", "KILL", delay, str(sluice_bin_dir / "iceberg_stream"), "--input", *args],
                       capture_output=True, timeout=120)
    lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "1",
             "--partition-by", "day, bucket(3, id)")
    assert_exactly_once(lake, rows=150, batches=30, crashes=kills)
    table = load(lake)
    bucket = BucketTransform(3).transform(LongType())
    for task in table.scan().plan_files():
        for r in pq.read_table(task.file.file_path.removeprefix("file://")).to_pylist():
            assert bucket(r["id"]) == task.file.partition[1]
