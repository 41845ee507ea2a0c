"""PyIceberg 0.12 and fastavro read what sluice's Iceberg sink wrote.

tests/tools/iceberg_stream runs files -> writeStream().toTable("lake.db.events") with
availableNow; PyIceberg must load the table through SqlCatalog (sql catalog) and StaticTable
(both catalogs), scan exactly the rows with their field ids and types, and see one append
snapshot per batch with the streaming summary keys. Every manifest list and manifest must be a
valid Avro file for fastavro with the header keys the spec requires.
"""
import json
import subprocess
import sys
from pathlib import Path

import fastavro
import pytest
from pyiceberg.table import StaticTable
from pyiceberg.types import (BooleanType, DateType, DecimalType, DoubleType, FloatType, IntegerType, LongType,
                             StringType, TimestampType, TimestamptzType)

sys.path.insert(0, str(Path(__file__).parent))
from pyiceberg_helpers import Lake, expected_row, sorted_ids, write_inputs  # noqa: E402

EXPECTED_TYPES = [("id", LongType()), ("n", IntegerType()), ("price", DoubleType()), ("ratio", FloatType()),
                  ("ok", BooleanType()), ("name", StringType()), ("ts", TimestamptzType()),
                  ("local_ts", TimestampType()), ("day", DateType()), ("amount", DecimalType(10, 2))]


@pytest.fixture(params=["sql", "hadoop"])
def written(request, tmp_path, sluice_bin_dir):
    """Three batches of two files (30 rows) streamed into the table, in two runs."""
    lake = Lake(tmp_path, request.param)
    write_inputs(tmp_path / "in", 0, 4)
    lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "2")
    write_inputs(tmp_path / "in", 4, 2)
    lake.run(sluice_bin_dir, tmp_path / "in", tmp_path / "ckpt", "--max-files-per-trigger", "2")
    return lake


def static_table(lake: Lake):
    if lake.catalog_type == "hadoop":  # through metadata/version-hint.text
        return StaticTable.from_metadata(f"file://{lake.table_dir()}")
    return lake.sql_catalog().load_table("db.events")


def test_pyiceberg_scans_exactly_the_rows_with_ids_and_types(written):
    table = static_table(written)
    fields = table.schema().fields
    assert [(f.field_id, f.name, f.field_type) for f in fields] == [
        (i + 1, name, t) for i, (name, t) in enumerate(EXPECTED_TYPES)]
    rows = table.scan().to_arrow()
    assert sorted_ids(rows) == list(range(30))
    assert sorted(rows.to_pylist(), key=lambda r: r["id"]) == [expected_row(i) for i in range(30)]
    # Bounds and null counts are used for pruning: a filter must still find exactly its rows.
    assert sorted_ids(table.scan(row_filter="id >= 27").to_arrow()) == [27, 28, 29]
    assert sorted_ids(table.scan(row_filter="name = 'name-4'").to_arrow()) == [4]
    assert table.scan(row_filter="amount > 29.00").to_arrow().num_rows == 1


def test_snapshots_are_one_append_per_batch_with_streaming_keys(written):
    table = static_table(written)
    snapshots = table.snapshots()
    assert len(snapshots) == 3
    assert snapshots[0].parent_snapshot_id is None
    query_ids = set()
    for epoch, snap in enumerate(snapshots):
        s = snap.summary
        assert s.operation.value == "append"
        props = s.additional_properties
        assert props["spark.sql.streaming.epochId"] == str(epoch)
        query_ids.add(props["spark.sql.streaming.queryId"])
        assert props["added-records"] == "10"
        assert props["total-records"] == str(10 * (epoch + 1))
        assert props["total-data-files"] == str(epoch + 1)
        for key in ("total-files-size", "total-delete-files", "total-position-deletes", "total-equality-deletes"):
            assert key in props
        if epoch:
            assert snap.parent_snapshot_id == snapshots[epoch - 1].snapshot_id
    assert len(query_ids) == 1
    md = table.metadata
    assert md.format_version == 2
    assert md.current_snapshot_id == snapshots[-1].snapshot_id
    assert md.refs["main"].snapshot_id == snapshots[-1].snapshot_id
    assert [e.snapshot_id for e in md.snapshot_log] == [s.snapshot_id for s in snapshots]
    assert len(md.metadata_log) == 3  # the create-time metadata + one per earlier commit
    assert md.last_sequence_number == 3


def test_fastavro_reads_every_manifest_list_and_manifest(written):
    table = static_table(written)
    for snap in table.snapshots():
        with open(snap.manifest_list.removeprefix("file://"), "rb") as f:
            reader = fastavro.reader(f)
            meta = reader.metadata
            entries = list(reader)
        assert meta["avro.codec"] == "null"
        assert meta["format-version"] == "2"
        assert meta["snapshot-id"] == str(snap.snapshot_id)
        assert meta["parent-snapshot-id"] == (str(snap.parent_snapshot_id) if snap.parent_snapshot_id else "null")
        assert meta["sequence-number"] == str(snap.sequence_number)
        assert json.loads(meta["avro.schema"])["name"] == "manifest_file"
        assert entries[0]["added_snapshot_id"] == snap.snapshot_id  # the new manifest comes first
        for m in entries:
            path = Path(m["manifest_path"].removeprefix("file://"))
            assert path.stat().st_size == m["manifest_length"]
            with open(path, "rb") as f:
                reader = fastavro.reader(f)
                mmeta = reader.metadata
                records = list(reader)
            assert mmeta["format-version"] == "2" and mmeta["content"] == "data"
            assert mmeta["partition-spec"] == "[]" and mmeta["partition-spec-id"] == "0"
            assert json.loads(mmeta["schema"])["fields"][0]["id"] == 1  # the TABLE schema
            assert len(records) == m["added_files_count"] + m["existing_files_count"] + m["deleted_files_count"]
            for r in records:
                df = r["data_file"]
                assert df["content"] == 0 and df["file_format"] == "PARQUET"
                assert Path(df["file_path"].removeprefix("file://")).stat().st_size == df["file_size_in_bytes"]
                assert {kv["key"] for kv in df["value_counts"]} == set(range(1, 11))


def test_sluice_batch_read_sees_the_same_rows(written, sluice_bin_dir):
    cmd = [str(sluice_bin_dir / "iceberg_stream"), "--read", *written.catalog_args()]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout
    ids = next(line for line in out.splitlines() if line.startswith("ids")).split()[1:]
    assert [int(i) for i in ids] == list(range(30))


def test_a_restart_on_the_same_checkpoint_adds_nothing(written, sluice_bin_dir):
    root = written.root
    written.run(sluice_bin_dir, root / "in", root / "ckpt")
    assert len(static_table(written).snapshots()) == 3


def test_two_writers_through_the_sql_catalog_both_survive_once(tmp_path, sluice_bin_dir):
    lake = Lake(tmp_path, "sql")
    write_inputs(tmp_path / "in-a", 0, 8)
    write_inputs(tmp_path / "in-b", 100, 8)
    procs = []
    for name in ("a", "b"):
        cmd = [str(sluice_bin_dir / "iceberg_stream"), "--input", str(tmp_path / f"in-{name}"), "--checkpoint",
               str(tmp_path / f"ckpt-{name}"), *lake.catalog_args(), "--max-files-per-trigger", "1",
               "--allow-other-queries", "true"]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    table = lake.sql_catalog().load_table("db.events")
    assert sorted_ids(table.scan().to_arrow()) == list(range(40)) + list(range(500, 540))
    snapshots = table.snapshots()
    assert len(snapshots) == 16
    keys = {(s.summary.additional_properties["spark.sql.streaming.queryId"],
             s.summary.additional_properties["spark.sql.streaming.epochId"]) for s in snapshots}
    assert len(keys) == 16


def test_compaction_and_expiry_keep_the_rows_for_pyiceberg(written, sluice_bin_dir):
    tool = [str(sluice_bin_dir / "iceberg_stream"), *written.catalog_args()]
    subprocess.run([*tool, "--compact", str(64 << 20)], check=True, capture_output=True, timeout=120)
    table = static_table(written)
    assert table.snapshots()[-1].summary.operation.value == "replace"
    assert len(table.inspect.files()) == 1
    assert sorted_ids(table.scan().to_arrow()) == list(range(30))
    subprocess.run([*tool, "--expire-older-than", "0s"], check=True, capture_output=True, timeout=120)
    table = static_table(written)
    assert len(table.snapshots()) == 1
    assert sorted_ids(table.scan().to_arrow()) == list(range(30))
    data_files = list((written.table_dir() / "data").glob("*.parquet"))
    assert len(data_files) == 1
    # The stream's marker survived on the replace snapshot: a restart adds nothing.
    written.run(sluice_bin_dir, written.root / "in", written.root / "ckpt")
    assert sorted_ids(static_table(written).scan().to_arrow()) == list(range(30))
