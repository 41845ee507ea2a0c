"""Partitioned file-sink output read by PySpark, DuckDB and pyarrow.dataset.

`sluice run` of a SQL pipeline whose sink is declared `PARTITIONED BY (dt, country)` writes
Hive-style directories over several micro-batches. Outside readers must see every row once,
with the partition columns rebuilt from the paths (NULL from __HIVE_DEFAULT_PARTITION__, an
escaped '/' and ':' from %2F and %3A). Spark reads through _spark_metadata: an unlisted part
file planted in a partition directory must not be read.
"""
import datetime as dt
import json
import os
import subprocess
from pathlib import Path

import pyarrow.dataset as ds
import pytest

pytestmark = pytest.mark.slow

FILES = 3
ROWS_PER_FILE = 8
COUNTRIES = ["US", "FR", None, "a/b:c"]
BASE = dt.datetime(2024, 5, 1, 22, 0, tzinfo=dt.timezone.utc)


def event(i: int) -> dict:
    ts = BASE + dt.timedelta(hours=i)  # crosses midnight: several dt values
    return {"id": i, "country": COUNTRIES[i % len(COUNTRIES)], "ts": ts.strftime("%Y-%m-%dT%H:%M:%SZ")}


def expected() -> list:
    out = []
    for i in range(FILES * ROWS_PER_FILE):
        e = event(i)
        out.append((i, (BASE + dt.timedelta(hours=i)).date(), e["country"]))
    return out


def write_inputs(input_dir: Path) -> None:
    input_dir.mkdir(parents=True)
    for f in range(FILES):
        rows = [event(i) for i in range(f * ROWS_PER_FILE, (f + 1) * ROWS_PER_FILE)]
        tmp = input_dir / f".f{f}.tmp"
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
        os.rename(tmp, input_dir / f"f{f:03d}.json")


@pytest.fixture(scope="module")
def output(tmp_path_factory, sluice_bin_dir) -> Path:
    tmp = tmp_path_factory.mktemp("partitioned")
    write_inputs(tmp / "in")
    out = tmp / "out"
    sql = tmp / "p.sql"
    sql.write_text(f"""
SET spark.sql.session.timeZone = 'UTC';
CREATE TABLE events (id BIGINT, country TEXT, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '{tmp / "in"}', max_files_per_trigger = 1);
CREATE TABLE daily () PARTITIONED BY (dt, country)
  WITH (connector = 'files', format = 'parquet', path = '{out}');
INSERT INTO daily SELECT id, ts, to_date(ts) AS dt, country FROM events;
""")
    proc = subprocess.run([str(sluice_bin_dir / "sluice"), "run", str(sql), "--checkpoint", str(tmp / "ckpt"),
                           "--trigger", "available-now"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # A part file no log entry lists (as a crashed attempt leaves it): readers of the log skip it.
    stray_dir = out / "dt=2024-05-02" / "country=US"
    assert stray_dir.is_dir(), sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    planted = next(stray_dir.glob("part-*.parquet"))
    (stray_dir / ("part-00000-00000000-0000-0000-0000-000000000000.c000.snappy.parquet")).write_bytes(
        planted.read_bytes())
    return out


def test_directories_are_hive_style_with_spark_escaping(output):
    dirs = sorted(str(p.relative_to(output)) for p in output.glob("dt=*/country=*"))
    assert "dt=2024-05-02/country=__HIVE_DEFAULT_PARTITION__" in dirs  # i = 2: 2024-05-02 00:00
    assert "dt=2024-05-02/country=a%2Fb%3Ac" in dirs
    assert len(list((output / "_spark_metadata").glob("[0-9]*"))) == FILES


def test_pyspark_reads_partition_columns_and_exact_rows(output):
    pyspark_sql = pytest.importorskip("pyspark.sql")
    spark = (pyspark_sql.SparkSession.builder.master("local[1]").appName("sluice-partitioned-interop")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "1")
             .config("spark.driver.memory", "512m").config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.driver.host", "127.0.0.1").config("spark.sql.session.timeZone", "UTC")
             .getOrCreate())
    try:
        df = spark.read.parquet(str(output))
        assert sorted(df.columns) == ["country", "dt", "id", "ts"]
        assert dict(df.dtypes)["dt"] == "date"
        rows = sorted((r.id, r.dt, r.country) for r in df.collect())
        assert rows == expected()  # the planted unlisted file is not read: the log decides
        pruned = df.where("dt = DATE'2024-05-02' AND country = 'a/b:c'").count()
        assert pruned == sum(1 for r in expected() if r[1] == dt.date(2024, 5, 2) and r[2] == "a/b:c")
    finally:
        spark.stop()


def test_duckdb_reads_with_hive_partitioning(output):
    duckdb = pytest.importorskip("duckdb")
    files = [str(p) for p in sorted(output.rglob("part-*.parquet")) if "00000000-0000-0000-0000-000000000000" not in p.name]
    rel = duckdb.sql(f"SELECT id, dt, country FROM read_parquet({files!r}, hive_partitioning = true) ORDER BY id")
    rows = rel.fetchall()
    assert [r[0] for r in rows] == [e[0] for e in expected()]
    assert [str(r[1]) for r in rows] == [str(e[1]) for e in expected()]
    # DuckDB reads the NULL partition back as NULL; escaped values stay as written in the path.
    assert [r[2] for r in rows if r[2] in ("US", "FR", None)] == [e[2] for e in expected() if e[2] != "a/b:c"]


def test_pyarrow_dataset_reads_hive_partitions(output):
    files = [str(p) for p in sorted(output.rglob("part-*.parquet")) if "00000000-0000-0000-0000-000000000000" not in p.name]
    table = ds.dataset(files, format="parquet", partitioning="hive", partition_base_dir=str(output)).to_table()
    assert table.num_rows == FILES * ROWS_PER_FILE
    assert set(table.column_names) == {"id", "ts", "dt", "country"}
    by_id = {r["id"]: r for r in table.to_pylist()}
    for i, day, country in expected():
        assert str(by_id[i]["dt"]) == str(day)
        if country != "a/b:c":
            assert by_id[i]["country"] == country
