"""PySpark reads what sluice's file sink committed, and nothing else.

tests/tools/file_sink_writer writes batches 0..2 fully, then batch 3 with a fault that
_exits right before _spark_metadata/3 is written: batch 3's part file stays on disk, unlisted.
Spark (which trusts only files listed in _spark_metadata) must read exactly batches 0..2.
"""
import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

pytestmark = pytest.mark.slow

ROWS = 5  # rows per batch
FAULT_EXIT = 42  # io::FaultSpec's default exit code
CRASH_BEFORE_LOG_3 = "write=_spark_metadata/3"
SCHEMA = "id BIGINT, name STRING, price DOUBLE, ts TIMESTAMP"
BASE = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


def expected_ts(i: int) -> dt.datetime:
    return BASE + dt.timedelta(seconds=i, milliseconds=i)


def run_writer(bin_dir: Path, out: Path, fmt: str, batches: int, fault: str = "-", *options: str) -> int:
    cmd = [str(bin_dir / "file_sink_writer"), str(out), fmt, str(batches), str(ROWS), fault, *options]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode not in (0, FAULT_EXIT):
        raise AssertionError(f"{cmd} failed ({proc.returncode}): {proc.stderr}")
    return proc.returncode


def write_then_crash(bin_dir: Path, out: Path, fmt: str, *options: str) -> None:
    assert run_writer(bin_dir, out, fmt, 3, "-", *options) == 0
    assert run_writer(bin_dir, out, fmt, 4, CRASH_BEFORE_LOG_3, *options) == FAULT_EXIT


def assert_rows_of_batches(rows, batches: int) -> None:
    """`rows` (Spark Rows with id, name, price, ts) are exactly those of batches 0..batches-1."""
    rows = sorted(rows, key=lambda r: r.id)
    assert [r.id for r in rows] == list(range(batches * ROWS))
    for r in rows:
        assert r.name == (None if r.id % 7 == 3 else f"name-{r.id}")
        assert r.price == r.id * 1.5
        # PySpark returns naive local datetimes; timestamp() reads them back as local time.
        assert r.ts.timestamp() == expected_ts(r.id).timestamp()


def log_entries(out: Path) -> dict:
    """entry name -> list of SinkFileStatus dicts; checks the version line."""
    entries = {}
    for p in sorted((out / "_spark_metadata").iterdir()):
        if p.name.startswith("."):
            continue
        lines = p.read_text().split("\n")
        assert lines[0] == "v1", p
        entries[p.name] = [json.loads(line) for line in lines[1:] if line]
    return entries


def listed_files(out: Path) -> set:
    return {Path(s["path"].removeprefix("file://")) for e in log_entries(out).values() for s in e}


def part_files(out: Path) -> set:
    return {p for p in out.iterdir() if p.name.startswith("part-")}


@pytest.fixture(scope="module")
def spark():
    pyspark_sql = pytest.importorskip("pyspark.sql")
    session = (
        pyspark_sql.SparkSession.builder.master("local[1]")
        .appName("sluice-file-sink-interop")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.driver.memory", "512m")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    yield session
    session.stop()


@pytest.fixture(scope="module")
def crashed(tmp_path_factory, sluice_bin_dir):
    """format -> output dir holding committed batches 0..2 and batch 3's orphan."""
    dirs = {}
    for fmt in ("parquet", "json"):
        out = tmp_path_factory.mktemp(f"crashed_{fmt}") / "out"
        write_then_crash(sluice_bin_dir, out, fmt)
        dirs[fmt] = out
    return dirs


def test_log_entries_have_spark_layout(crashed):
    out = crashed["parquet"]
    entries = log_entries(out)
    assert sorted(entries) == ["0", "1", "2"]
    raw = (out / "_spark_metadata" / "0").read_bytes()
    assert not raw.endswith(b"\n")
    status = entries["0"][0]
    assert list(status) == ["path", "size", "isDir", "modificationTime", "blockReplication", "blockSize", "action"]
    assert status["path"].startswith("file:///")
    path = Path(status["path"].removeprefix("file://"))
    assert status["size"] == path.stat().st_size
    assert (status["isDir"], status["blockReplication"], status["blockSize"], status["action"]) == (
        False, 1, 33554432, "add")


@pytest.mark.parametrize("fmt", ["parquet", "json"])
def test_orphan_of_crashed_batch_is_on_disk_but_unlisted(crashed, fmt):
    out = crashed[fmt]
    orphans = part_files(out) - listed_files(out)
    assert len(orphans) == 1
    orphan = orphans.pop()
    assert orphan.exists() and orphan.stat().st_size > 0
    assert not (out / "_spark_metadata" / "3").exists()
    if fmt == "parquet":
        assert pq.read_table(orphan).column("id").to_pylist() == list(range(3 * ROWS, 4 * ROWS))
    else:
        ids = [json.loads(line)["id"] for line in orphan.read_text().splitlines()]
        assert ids == list(range(3 * ROWS, 4 * ROWS))


def test_spark_reads_only_committed_parquet_rows(spark, crashed):
    df = spark.read.parquet(str(crashed["parquet"]))
    assert_rows_of_batches(df.collect(), 3)
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        ("id", "bigint"), ("name", "string"), ("price", "double"), ("ts", "timestamp")]


def test_pyarrow_sees_the_same_types(crashed):
    for path in sorted(listed_files(crashed["parquet"])):
        schema = pq.read_schema(path)
        assert [(f.name, str(f.type)) for f in schema] == [
            ("id", "int64"), ("name", "string"), ("price", "double"), ("ts", "timestamp[us, tz=UTC]")]


def test_spark_reads_only_committed_json_rows(spark, crashed):
    out = str(crashed["json"])
    inferred = spark.read.format("json").load(out)
    assert sorted(r.id for r in inferred.collect()) == list(range(3 * ROWS))
    assert dict((f.name, f.dataType.simpleString()) for f in inferred.schema.fields)["price"] == "double"

    typed = spark.read.format("json").schema(SCHEMA).load(out)
    assert_rows_of_batches(typed.collect(), 3)


def test_restart_deletes_orphan_and_commits_batch_3(spark, tmp_path, sluice_bin_dir):
    out = tmp_path / "out"
    write_then_crash(sluice_bin_dir, out, "parquet")
    orphan = (part_files(out) - listed_files(out)).pop()
    assert run_writer(sluice_bin_dir, out, "parquet", 4) == 0  # batches 0..2 skipped, 3 redone
    # The redo writes the same file name again (the batch's uuid is a function of the batch), so
    # the crashed attempt's file is replaced, now committed, and nothing is left unlisted.
    assert orphan in listed_files(out)
    assert part_files(out) == listed_files(out)
    assert sorted(r.id for r in spark.read.parquet(str(out)).collect()) == list(range(4 * ROWS))


def test_spark_reads_past_a_compaction_entry(spark, tmp_path, sluice_bin_dir):
    out = tmp_path / "out"
    assert run_writer(sluice_bin_dir, out, "json", 12) == 0
    assert (out / "_spark_metadata" / "9.compact").exists()
    ids = sorted(r.id for r in spark.read.json(str(out)).collect())
    assert ids == list(range(12 * ROWS))


def test_spark_reads_csv_with_header(spark, tmp_path, sluice_bin_dir):
    out = tmp_path / "out"
    write_then_crash(sluice_bin_dir, out, "csv", "header=true")
    df = spark.read.option("header", "true").schema(SCHEMA).csv(str(out))
    assert_rows_of_batches(df.collect(), 3)
