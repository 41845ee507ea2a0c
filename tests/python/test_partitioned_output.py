"""writeStream.partitionBy / write.partitionBy: Hive-style directories read back by pyarrow.dataset,
and toPandas() of a batch frame."""
import pyarrow.dataset as ds
import pytest

from sluice.errors import AnalysisException, PySparkTypeError

SCHEMA = "id BIGINT, name STRING, ts TIMESTAMP"


def rows(first, count):
    return [{"id": i, "name": None if i % 4 == 3 else f"n{i % 2}", "ts": f"2024-01-01T00:00:{i:02d}Z"}
            for i in range(first, first + count)]


def hive_dataset(out):
    # Hive partitioning reads __HIVE_DEFAULT_PARTITION__ as NULL; _spark_metadata, _SUCCESS and dot
    # files are skipped by default.
    return ds.dataset(str(out), format="parquet", partitioning="hive").to_table()


def test_write_stream_partition_by_writes_hive_directories(spark, write_json, tmp_path):
    write_json(tmp_path / "in", "a.json", rows(0, 8))
    out = tmp_path / "out"
    q = (spark.readStream.schema(SCHEMA).json(str(tmp_path / "in")).writeStream.format("parquet")
         .partitionBy("name").option("checkpointLocation", str(tmp_path / "ck"))
         .trigger(availableNow=True).start(str(out)))
    q.awaitTermination()
    assert q.exception() is None
    assert sorted(p.name for p in out.glob("name=*")) == ["name=__HIVE_DEFAULT_PARTITION__", "name=n0", "name=n1"]
    table = hive_dataset(out)
    assert table.num_rows == 8
    by_id = {r["id"]: r["name"] for r in table.to_pylist()}
    assert by_id == {r["id"]: r["name"] for r in rows(0, 8)}
    # The data files hold the other columns only.
    one = next(out.glob("name=n0/part-*.parquet"))
    assert ds.dataset(str(one), format="parquet").schema.names == ["id", "ts"]


def test_partition_by_unknown_column_is_refused_before_start(spark, tmp_path):
    df = spark.readStream.schema(SCHEMA).json(str(tmp_path))
    with pytest.raises(AnalysisException, match="'nope' not found"):
        df.writeStream.format("json").partitionBy("nope").option("checkpointLocation", str(tmp_path / "ck")) \
            .start(str(tmp_path / "out"))
    with pytest.raises(PySparkTypeError):
        df.writeStream.partitionBy(1)


def test_to_pandas_of_a_batch_frame(spark):
    df = spark.createDataFrame([(1, "a", 10), (2, "b", 20), (3, "a", 30)], ["id", "k", "v"])
    pdf = df.where("v > 10").toPandas()
    assert list(pdf.columns) == ["id", "k", "v"]
    assert pdf["v"].tolist() == [20, 30]


def test_batch_write_partition_by(spark, tmp_path):
    df = spark.createDataFrame([(1, "a", 10), (2, "b", 20), (3, "a", 30)], ["id", "k", "v"])
    out = tmp_path / "batch"
    df.write.partitionBy(["k"]).mode("overwrite").parquet(str(out))
    assert (out / "_SUCCESS").exists()
    assert sorted(p.name for p in out.glob("k=*")) == ["k=a", "k=b"]
    table = hive_dataset(out)
    assert sorted((r["id"], r["k"], r["v"]) for r in table.to_pylist()) == [(1, "a", 10), (2, "b", 20), (3, "a", 30)]
