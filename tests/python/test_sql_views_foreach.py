"""spark.sql over temporary views (batch and streaming), writeStream.foreach, StreamingQuery.explain."""
import pytest

from sluice.errors import AnalysisException

SCHEMA = "id BIGINT, name STRING, ts TIMESTAMP"


def rows(first, count):
    return [{"id": i, "name": f"n{i % 3}", "ts": f"2024-01-01T00:00:{i:02d}Z"} for i in range(first, first + count)]


def test_sql_over_batch_temp_views_with_a_join(spark):
    spark.createDataFrame([(1, "a", 10), (2, "b", 20), (3, "a", 30)], ["id", "k", "v"]).createOrReplaceTempView("Facts")
    spark.createDataFrame([("a", "Ann"), ("b", "Bob")], ["k", "who"]).createOrReplaceTempView("people")
    out = spark.sql("SELECT p.who, sum(f.v) AS total FROM facts f JOIN People p ON f.k = p.k GROUP BY p.who")
    assert not out.isStreaming
    assert sorted((r.who, r.total) for r in out.collect()) == [("Ann", 40), ("Bob", 20)]
    assert spark.table("FACTS").count() == 3
    # Replacing a view changes what later queries read.
    spark.createDataFrame([(9, "a", 1)], ["id", "k", "v"]).createOrReplaceTempView("facts")
    assert [r.id for r in spark.sql("SELECT id FROM facts").collect()] == [9]


def test_sql_errors_are_analysis_exceptions_naming_the_view(spark):
    spark.createDataFrame([(1,)], ["id"]).createOrReplaceTempView("one")
    with pytest.raises(AnalysisException, match="unknown table 'missing'"):
        spark.sql("SELECT * FROM missing")
    with pytest.raises(AnalysisException, match="one SELECT"):
        spark.sql("CREATE TABLE t () WITH (connector = 'console')")
    with pytest.raises(AnalysisException, match="already exists"):
        spark.createDataFrame([(2,)], ["id"]).createTempView("one")


def test_sql_over_a_streaming_view_runs_as_a_stream(spark, write_json, tmp_path):
    write_json(tmp_path / "in", "a.json", rows(0, 6))
    spark.readStream.schema(SCHEMA).json(str(tmp_path / "in")).createOrReplaceTempView("events")
    evens = spark.sql("SELECT id, upper(name) AS name FROM events WHERE id % 2 = 0")
    assert evens.isStreaming
    q = evens.writeStream.format("memory").queryName("sql_evens").trigger(availableNow=True).start()
    q.awaitTermination()
    assert sorted((r.id, r.name) for r in spark.table("sql_evens").collect()) == [(0, "N0"), (2, "N2"), (4, "N1")]


def test_foreach_with_a_function_and_a_writer_object(spark, write_json, tmp_path):
    write_json(tmp_path / "in", "a.json", rows(0, 4))
    df = spark.readStream.schema(SCHEMA).json(str(tmp_path / "in"))
    seen = []
    q = df.writeStream.foreach(lambda row: seen.append(row.id)).trigger(availableNow=True).start()
    q.awaitTermination()
    assert q.exception() is None and sorted(seen) == [0, 1, 2, 3]

    class Writer:
        def __init__(self):
            self.calls = []

        def open(self, partition_id, epoch_id):
            self.calls.append(("open", partition_id, epoch_id))
            return True

        def process(self, row):
            self.calls.append(("process", row.id))
            if row.id == 99:
                raise ValueError("bad row 99")

        def close(self, error):
            self.calls.append(("close", None if error is None else str(error)))

    w = Writer()
    q = df.writeStream.foreach(w).trigger(availableNow=True).start()
    q.awaitTermination()
    assert w.calls[0] == ("open", 0, 0) and w.calls[-1] == ("close", None)
    assert sorted(c[1] for c in w.calls if c[0] == "process") == [0, 1, 2, 3]

    write_json(tmp_path / "bad", "b.json", [{"id": 99, "name": "x", "ts": "2024-01-01T00:00:00Z"}])
    bad = Writer()
    q = spark.readStream.schema(SCHEMA).json(str(tmp_path / "bad")).writeStream.foreach(bad) \
        .trigger(availableNow=True).start()
    with pytest.raises(Exception):
        q.awaitTermination()
    assert "bad row 99" in str(q.exception())
    assert bad.calls[-1] == ("close", "bad row 99")


def test_streaming_query_explain_prints_the_plan(spark, write_json, tmp_path, capsys):
    write_json(tmp_path / "in", "a.json", rows(0, 2))
    df = spark.readStream.schema(SCHEMA).json(str(tmp_path / "in")).where("id > 0")
    q = df.writeStream.format("memory").queryName("explained").trigger(availableNow=True).start()
    q.awaitTermination()
    capsys.readouterr()
    q.explain()
    printed = capsys.readouterr().out
    df.explain()
    assert printed == capsys.readouterr().out
    assert "Filter" in printed or "filter" in printed.lower()
