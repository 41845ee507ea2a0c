"""DataFrame.join in PySpark's shape: `on` as names or a Column condition, PySpark's join type
spellings, NULL keys that match nothing, a stream joined with a static frame and two streams
joined on a key and an event-time range."""
import pytest

import sluice.sql.functions as F
from sluice.errors import PySparkNotImplementedError, PySparkValueError


@pytest.fixture
def users(spark):
    return spark.createDataFrame([("a", "ann"), ("b", "ben"), (None, "nobody")], ["k", "name"])


def test_batch_left_join_on_a_name_keeps_null_keys_unmatched(spark, users):
    clicks = spark.createDataFrame([("a", 1), ("c", 2), (None, 3)], ["k", "v"])
    rows = sorted(((r.k, r.v, r.name) for r in clicks.join(users, "k", "left_outer").collect()), key=lambda t: t[1])
    assert rows == [("a", 1, "ann"), ("c", 2, None), (None, 3, None)]
    inner = clicks.join(users, ["k"], "inner").collect()
    assert [(r.k, r.v, r.name) for r in inner] == [("a", 1, "ann")]


def test_join_types_by_pysparks_spellings(spark, users):
    clicks = spark.createDataFrame([("a", 1), ("c", 2)], ["ck", "v"])
    cond = F.col("ck") == F.col("k")
    assert [r.v for r in clicks.join(users, cond, "leftsemi").collect()] == [1]
    assert [r.v for r in clicks.join(users, cond, "left_anti").collect()] == [2]
    assert sorted(r.v for r in clicks.join(users, [cond], "leftouter").collect()) == [1, 2]
    with pytest.raises(PySparkValueError, match="unknown join type 'sideways'"):
        clicks.join(users, cond, "sideways")
    with pytest.raises(PySparkNotImplementedError, match="cross join"):
        clicks.join(users)


def test_stream_joined_with_a_static_frame(spark, users, write_json, tmp_path):
    write_json(tmp_path / "in", "a.json", [{"k": "a", "v": 1}, {"k": "b", "v": 2}, {"k": None, "v": 3}])
    stream = spark.readStream.schema("k STRING, v BIGINT").json(str(tmp_path / "in"))
    seen = []
    q = (stream.join(users, "k", "left").writeStream
         .foreachBatch(lambda df, _: seen.extend((r.k, r.v, r.name) for r in df.collect()))
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    q.awaitTermination()
    assert q.exception() is None
    assert sorted(seen, key=lambda t: t[1]) == [("a", 1, "ann"), ("b", 2, "ben"), (None, 3, None)]


def test_two_streams_joined_on_a_key_and_an_event_time_range(spark, write_json, tmp_path):
    write_json(tmp_path / "imp", "a.json", [{"id": "a", "its": "2024-01-01T00:00:00Z"},
                                            {"id": "b", "its": "2024-01-01T00:00:00Z"}])
    write_json(tmp_path / "clk", "a.json", [{"cid": "a", "cts": "2024-01-01T00:00:05Z"},
                                            {"cid": "b", "cts": "2024-01-01T00:01:00Z"}])
    imps = spark.readStream.schema("id STRING, its TIMESTAMP").json(str(tmp_path / "imp")).withWatermark("its", "10 seconds")
    clicks = spark.readStream.schema("cid STRING, cts TIMESTAMP").json(str(tmp_path / "clk")) \
        .withWatermark("cts", "10 seconds")
    joined = imps.join(clicks, F.expr("id = cid AND cts BETWEEN its AND its + INTERVAL '20' SECOND"), "inner")
    seen = []
    q = (joined.writeStream.foreachBatch(lambda df, _: seen.extend((r.id, r.cid) for r in df.collect()))
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    q.awaitTermination()
    assert q.exception() is None
    assert seen == [("a", "a")]
