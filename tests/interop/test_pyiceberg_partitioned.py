"""A partitioned Iceberg table written by sluice's sink, judged by PyIceberg 0.12 and fastavro.

tests/tools/iceberg_stream streams files into lake.db.events with the sink option
partitionBy = "day, bucket(4, id), truncate(6, name)". PyIceberg must see the spec (field ids
from 1000), read exactly the rows, prune files for a filter on a partition source column (fewer
planned files, the same rows as the full scan filtered in Python), and find each data file
in the directory its partition names, holding only rows of that partition.
"""
import datetime as dt
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import fastavro
import pyarrow.parquet as pq
import pytest
from pyiceberg.table import StaticTable
from pyiceberg.transforms import BucketTransform, IdentityTransform, TruncateTransform
from pyiceberg.types import LongType

sys.path.insert(0, str(Path(__file__).parent))
from pyiceberg_helpers import FAULT_EXIT, Lake, expected_row, sorted_ids, write_inputs  # noqa: E402

TERMS = "day, bucket(4, id), truncate(6, name)"


def load(lake: Lake):
    if lake.catalog_type == "sql":
        return lake.sql_catalog().load_table("db.events")
    return StaticTable.from_metadata(f"file://{lake.table_dir()}")


def write_partitioned(root: Path, catalog_type: str, bin_dir: Path) -> Lake:
    """Three batches of two files (30 rows), partitioned."""
    lake = Lake(root, catalog_type)
    write_inputs(root / "in", 0, 6)
    lake.run(bin_dir, root / "in", root / "ckpt", "--max-files-per-trigger", "2", "--partition-by", TERMS)
    return lake


@pytest.fixture(scope="module", params=["sql", "hadoop"])
def written(request, tmp_path_factory, sluice_bin_dir):
    """One table per catalog type, only read by the tests using it."""
    return write_partitioned(tmp_path_factory.mktemp(request.param), request.param, sluice_bin_dir)


def day_of(value):
    """A date partition value as PyIceberg hands it back (days since epoch or a date)."""
    return dt.date(1970, 1, 1) + dt.timedelta(days=value) if isinstance(value, int) else value


def test_spec_has_the_transforms_with_ids_from_1000(written):
    table = load(written)
    spec = table.spec()
    assert spec.spec_id == 0
    assert [(f.field_id, f.name, f.source_id) for f in spec.fields] == [
        (1000, "day", 9), (1001, "id_bucket", 1), (1002, "name_trunc", 6)]
    assert [f.transform for f in spec.fields] == [IdentityTransform(), BucketTransform(4), TruncateTransform(6)]
    assert table.metadata.last_partition_id == 1002
    assert table.metadata.default_spec_id == 0


def test_rows_are_exact_and_each_file_holds_one_partition_in_its_directory(written):
    table = load(written)
    rows = table.scan().to_arrow()
    assert sorted(rows.to_pylist(), key=lambda r: r["id"]) == [expected_row(i) for i in range(30)]
    bucket = BucketTransform(4).transform(LongType())
    tasks = list(table.scan().plan_files())
    assert len(tasks) > 3  # more than one file per batch: split by partition
    for task in tasks:
        f = task.file
        path = f.file_path.removeprefix("file://")
        # The directory is the one Iceberg's own writers give this partition.
        expected_dir = table.spec().partition_to_path(f.partition, table.schema())
        assert Path(path).parent == written.table_dir() / "data" / expected_dir
        part_day, part_bucket, part_trunc = day_of(f.partition[0]), f.partition[1], f.partition[2]
        for r in pq.read_table(path).to_pylist():
            assert r["day"] == part_day
            assert bucket(r["id"]) == part_bucket
            assert (r["name"][:6] if r["name"] is not None else None) == part_trunc


def test_a_filter_on_a_partition_column_plans_fewer_files_and_finds_the_same_rows(written):
    table = load(written)
    everything = table.scan()
    all_files = list(everything.plan_files())
    all_rows = everything.to_arrow().to_pylist()
    for row_filter, keep in [("day = '2024-01-05'", lambda r: r["day"] == dt.date(2024, 1, 5)),
                             ("id = 7", lambda r: r["id"] == 7),
                             ("name = 'name-12'", lambda r: r["name"] == "name-12")]:
        scan = table.scan(row_filter=row_filter)
        planned = list(scan.plan_files())
        assert 0 < len(planned) < len(all_files), row_filter
        got = sorted(scan.to_arrow().to_pylist(), key=lambda r: r["id"])
        assert got == sorted([r for r in all_rows if keep(r)], key=lambda r: r["id"]), row_filter


def test_manifest_list_summaries_and_changed_partition_count(written):
    table = load(written)
    for snap in table.snapshots():
        with open(snap.manifest_list.removeprefix("file://"), "rb") as f:
            entries = list(fastavro.reader(f))
        new = [e for e in entries if e["added_snapshot_id"] == snap.snapshot_id]
        assert len(new) == 1 and new[0]["partition_spec_id"] == 0
        summaries = new[0]["partitions"]
        assert len(summaries) == 3
        with open(new[0]["manifest_path"].removeprefix("file://"), "rb") as f:
            reader = fastavro.reader(f)
            assert json.loads(reader.metadata["partition-spec"])[1]["transform"] == "bucket[4]"
            assert reader.metadata["partition-spec-id"] == "0"
            tuples = [tuple(e["data_file"]["partition"].values()) for e in reader]
        days = sorted((t[0] - dt.date(1970, 1, 1)).days for t in tuples)  # fastavro: date logical type
        assert int.from_bytes(summaries[0]["lower_bound"], "little") == days[0]
        assert int.from_bytes(summaries[0]["upper_bound"], "little") == days[-1]
        assert summaries[2]["contains_null"] == any(t[2] is None for t in tuples)
        changed = snap.summary.additional_properties["changed-partition-count"]
        assert changed == str(len(Counter(tuples)))


def test_a_different_partitioning_of_the_existing_table_is_refused_naming_both(tmp_path, sluice_bin_dir):
    written = write_partitioned(tmp_path, "hadoop", sluice_bin_dir)
    write_inputs(tmp_path / "in", 6, 1)
    cmd = [str(sluice_bin_dir / "iceberg_stream"), "--input", str(tmp_path / "in"), "--checkpoint",
           str(tmp_path / "ckpt"), *written.catalog_args(), "--partition-by", "bucket(8, id)"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "is partitioned by day, bucket(4, id), truncate(6, name)" in proc.stderr
    assert "bucket(8, id)" in proc.stderr
    # Leaving the partitioning out writes with the table's spec.
    written.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt")
    assert sorted_ids(load(written).scan().to_arrow()) == list(range(35))


def test_restart_after_a_crash_in_a_partitioned_batch_commits_every_row_once(tmp_path, sluice_bin_dir):
    lake = Lake(tmp_path, "sql")
    write_inputs(tmp_path / "in", 0, 6)
    rc = lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "2",
                  "--partition-by", TERMS, "--fault", "point=iceberg_after_manifests,hits=2", expect=(FAULT_EXIT,))
    assert rc == FAULT_EXIT
    lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "2",
             "--partition-by", TERMS)
    table = load(lake)
    assert sorted_ids(table.scan().to_arrow()) == list(range(30))
    assert [s.summary.additional_properties["spark.sql.streaming.epochId"] for s in table.snapshots()] == ["0", "1", "2"]
