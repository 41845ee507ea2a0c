"""Partitioned Iceberg tables from Python: writeStream.partitionBy(...).toTable(...) with PySpark's
partition transform functions, the batch writers (saveAsTable, writeTo(...).partitionedBy(...)),
and PyIceberg reading the result with partition pruning."""
import pytest
from pyiceberg.table import StaticTable
from pyiceberg.transforms import BucketTransform, DayTransform, IdentityTransform, MonthTransform

import sluice.sql.functions as F

SCHEMA = "id BIGINT, ts TIMESTAMP, country STRING"
COUNTRIES = ["US", "FR", "DE"]


def rows(first, n):
    return [{"id": i, "ts": f"2024-05-{i % 3 + 1:02d}T{i % 24:02d}:00:00Z", "country": COUNTRIES[i % 3]}
            for i in range(first, first + n)]


def use_catalog(spark, name, warehouse):
    spark.conf.set(f"spark.sql.catalog.{name}", "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set(f"spark.sql.catalog.{name}.type", "hadoop")
    spark.conf.set(f"spark.sql.catalog.{name}.warehouse", str(warehouse))


def static(warehouse, table="events"):
    return StaticTable.from_metadata(f"file://{warehouse}/db/{table}")


def test_write_stream_partition_by_transforms_to_table(spark, tmp_path, write_json):
    use_catalog(spark, "pstream", tmp_path / "wh")
    write_json(tmp_path / "in", "a.json", rows(0, 12))
    write_json(tmp_path / "in", "b.json", rows(12, 12))
    df = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(tmp_path / "in"))
    q = (df.writeStream.partitionBy(F.days("ts"), F.bucket(4, "id"), "country")
         .option("checkpointLocation", str(tmp_path / "ckpt")).trigger(availableNow=True)
         .toTable("pstream.db.events"))
    q.awaitTermination(60)
    assert q.exception() is None

    table = static(tmp_path / "wh")
    assert [(f.name, f.transform) for f in table.spec().fields] == [
        ("ts_day", DayTransform()), ("id_bucket", BucketTransform(4)), ("country", IdentityTransform())]
    everything = table.scan()
    assert sorted(everything.to_arrow().column("id").to_pylist()) == list(range(24))
    all_files = list(everything.plan_files())
    us = table.scan(row_filter="country = 'US'")
    assert 0 < len(list(us.plan_files())) < len(all_files)
    assert sorted(us.to_arrow().column("id").to_pylist()) == [i for i in range(24) if i % 3 == 0]
    may2 = table.scan(row_filter="ts >= '2024-05-02T00:00:00+00:00' and ts < '2024-05-03T00:00:00+00:00'")
    assert 0 < len(list(may2.plan_files())) < len(all_files)
    assert sorted(may2.to_arrow().column("id").to_pylist()) == [i for i in range(24) if i % 3 == 1]
    # Restarting with the partitioning spelled as text is the same spec: accepted, nothing rewritten.
    q = (df.writeStream.partitionBy("days(ts)", "bucket(4, id)", "country")
         .option("checkpointLocation", str(tmp_path / "ckpt")).trigger(availableNow=True)
         .toTable("pstream.db.events"))
    q.awaitTermination(60)
    assert q.exception() is None
    assert static(tmp_path / "wh").scan().to_arrow().num_rows == 24


def test_batch_writers_create_append_and_refuse_another_spec(spark, tmp_path, write_json):
    use_catalog(spark, "pbatch", tmp_path / "wh")
    write_json(tmp_path / "in", "a.json", rows(0, 9))
    df = spark.read.schema(SCHEMA).json(str(tmp_path / "in"))
    df.writeTo("pbatch.db.events").using("iceberg").partitionedBy(F.months("ts")).create()
    with pytest.raises(Exception, match="already exists"):
        df.writeTo("pbatch.db.events").partitionedBy(F.months("ts")).create()
    df.write.saveAsTable("pbatch.db.events", mode="append")  # the table's spec is used
    with pytest.raises(Exception, match=r"is partitioned by month\(ts\).*bucket\(8, id\)"):
        df.write.partitionBy(F.bucket(8, "id")).mode("append").saveAsTable("pbatch.db.events")

    table = static(tmp_path / "wh")
    assert [f.transform for f in table.spec().fields] == [MonthTransform()]
    assert [s.summary.operation.value for s in table.snapshots()] == ["append", "append"]
    assert sorted(table.scan().to_arrow().column("id").to_pylist()) == sorted(list(range(9)) * 2)
    for task in table.scan().plan_files():
        assert "/data/ts_month=2024-05/" in task.file.file_path

    df.writeTo("pbatch.db.events").createOrReplace()  # overwrite: the rows once again
    assert sorted(static(tmp_path / "wh").scan().to_arrow().column("id").to_pylist()) == list(range(9))


def test_transforms_are_refused_where_they_cannot_work(spark, tmp_path, write_json):
    write_json(tmp_path / "in", "a.json", rows(0, 3))
    df = spark.read.schema(SCHEMA).json(str(tmp_path / "in"))
    with pytest.raises(Exception, match=r"days\(ts\).*file output is partitioned by columns"):
        df.write.partitionBy(F.days("ts")).parquet(str(tmp_path / "out"))
    with pytest.raises(Exception, match="column name"):
        F.days(F.col("ts"))
    use_catalog(spark, "pbad", tmp_path / "wh")
    with pytest.raises(Exception, match=r"transform hour does not take column 'country' of type string"):
        df.writeTo("pbad.db.events").partitionedBy(F.hours("country")).create()
