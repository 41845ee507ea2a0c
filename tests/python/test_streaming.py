"""Streaming queries through the PySpark-shaped API: sources, sinks, triggers, the query handle."""
import time

import pytest

import sluice.sql.functions as F
from sluice.errors import AnalysisException, IllegalArgumentException, StreamingQueryException

SCHEMA = "id BIGINT, name STRING, ts TIMESTAMP"


def rows(first, count):
    return [{"id": i, "name": f"n{i % 3}", "ts": f"2024-01-01T00:00:{i:02d}Z"} for i in range(first, first + count)]


def test_file_source_to_memory_sink_and_query_handle(spark, write_json, tmp_path):
    write_json(tmp_path / "in", "a.json", rows(0, 5))
    df = spark.readStream.schema(SCHEMA).json(str(tmp_path / "in"))
    assert df.isStreaming
    q = (df.where(F.col("id") % 2 == 0).writeStream.format("memory").queryName("evens")
         .option("checkpointLocation", str(tmp_path / "ck")).start())
    try:
        assert q.isActive and q.name == "evens"
        assert spark.streams.get(q.id) is q and q in spark.streams.active
        q.processAllAvailable()
        assert sorted(r.id for r in spark.table("evens").collect()) == [0, 2, 4]
        write_json(tmp_path / "in", "b.json", rows(5, 5))
        q.processAllAvailable()
        assert sorted(r.id for r in spark.table("evens").collect()) == [0, 2, 4, 6, 8]
        progress = q.lastProgress
        assert progress["id"] == q.id and progress["runId"] == q.runId and progress["numInputRows"] == 5
        assert [p["batchId"] for p in q.recentProgress][-2:] == [0, 1]
        assert set(q.status) == {"message", "isDataAvailable", "isTriggerActive"}
        assert q.awaitTermination(0.05) is False
    finally:
        q.stop()
    assert not q.isActive and q.exception() is None
    assert q.awaitTermination(1) is True


def test_restart_on_same_checkpoint_processes_only_new_files(spark, write_json, tmp_path):
    seen = []

    def run():
        q = (spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).json(str(tmp_path / "in"))
             .writeStream.foreachBatch(lambda df, batch_id: seen.append((batch_id, sorted(r.id for r in df.collect()))))
             .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
        assert q.awaitTermination() is None
        return q

    write_json(tmp_path / "in", "a.json", rows(0, 3))
    write_json(tmp_path / "in", "b.json", rows(3, 3))
    first = run()
    write_json(tmp_path / "in", "c.json", rows(6, 2))
    second = run()
    assert seen == [(0, [0, 1, 2]), (1, [3, 4, 5]), (2, [6, 7])]
    assert first.id == second.id and first.runId != second.runId


def test_foreach_batch_exception_fails_query_with_traceback(spark, write_json, tmp_path):
    write_json(tmp_path / "in", "a.json", rows(0, 2))

    def explode(df, batch_id):
        raise ValueError(f"bad batch {batch_id}")

    q = (spark.readStream.schema(SCHEMA).json(str(tmp_path / "in")).writeStream.foreachBatch(explode)
         .option("checkpointLocation", str(tmp_path / "ck")).start())
    with pytest.raises(StreamingQueryException, match="ValueError: bad batch 0"):
        q.awaitTermination(30)
    error = q.exception()
    assert isinstance(error, StreamingQueryException)
    assert "Traceback (most recent call last)" in str(error) and "in explode" in str(error)
    assert not q.isActive


def test_windowed_counts_with_watermark_append(spark, write_json, tmp_path):
    (tmp_path / "in").mkdir()
    events = spark.readStream.schema(SCHEMA).json(str(tmp_path / "in"))
    counts = (events.withWatermark("ts", "10 seconds")
              .groupBy(F.window("ts", "10 seconds"), "name").count())
    q = (counts.writeStream.outputMode("append").format("memory").queryName("windowed")
         .option("checkpointLocation", str(tmp_path / "ck")).start())
    try:
        write_json(tmp_path / "in", "a.json", rows(0, 12))
        q.processAllAvailable()
        assert spark.table("windowed").count() == 0  # no window closed yet
        write_json(tmp_path / "in", "b.json", [{"id": 99, "name": "late", "ts": "2024-01-01T00:00:45Z"}])
        q.processAllAvailable()
        q.processAllAvailable()  # the moved watermark closes windows in a no-data batch
        got = sorted((r.window_start.strftime("%H:%M:%S"), r.name, r["count"])
                     for r in spark.table("windowed").collect())
        # Watermark 45 s - 10 s = 35 s closes [0, 10) and [10, 20); [40, 50) stays open.
        assert got == [("00:00:00", "n0", 4), ("00:00:00", "n1", 3), ("00:00:00", "n2", 3),
                       ("00:00:10", "n1", 1), ("00:00:10", "n2", 1)]
    finally:
        q.stop()


def test_drop_duplicates_across_restart(spark, write_json, tmp_path):
    batches = []

    def run():
        q = (spark.readStream.schema(SCHEMA).json(str(tmp_path / "in")).dropDuplicates(["id"])
             .writeStream.foreachBatch(lambda df, batch_id: batches.append(sorted(r.id for r in df.collect())))
             .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
        q.awaitTermination()

    write_json(tmp_path / "in", "a.json", rows(0, 3) + rows(0, 3))
    run()
    write_json(tmp_path / "in", "b.json", rows(2, 3))
    run()
    assert batches == [[0, 1, 2], [3, 4]]  # id 2 is remembered in the state across the restart


def test_errors_are_pyspark_exceptions(spark, tmp_path):
    (tmp_path / "in").mkdir()
    df = spark.readStream.schema(SCHEMA).json(str(tmp_path / "in"))
    with pytest.raises(AnalysisException, match="nope"):
        df.select("nope")
    with pytest.raises(AnalysisException, match="(?i)schema"):
        spark.readStream.json(str(tmp_path / "in"))
    with pytest.raises(AnalysisException, match="maxFilesPerTriger"):
        spark.readStream.schema(SCHEMA).option("maxFilesPerTriger", 1).json(str(tmp_path / "in"))
    with pytest.raises(IllegalArgumentException, match="fortnight"):
        df.writeStream.trigger(processingTime="1 fortnight")
    with pytest.raises(AnalysisException, match="(?i)batch|writeStream"):
        df.collect()


def test_processing_time_trigger_and_await_any_termination(spark, write_json, tmp_path):
    write_json(tmp_path / "in", "a.json", rows(0, 1))
    q = (spark.readStream.schema(SCHEMA).json(str(tmp_path / "in")).writeStream.format("memory").queryName("pt")
         .option("checkpointLocation", str(tmp_path / "ck")).trigger(processingTime="100 milliseconds").start())
    spark.streams.resetTerminated()
    assert spark.streams.awaitAnyTermination(0.1) is False
    started = time.monotonic()
    q.stop()
    assert spark.streams.awaitAnyTermination(5) is True
    assert time.monotonic() - started < 5


def test_listener_sees_start_progress_and_termination(spark, write_json, tmp_path):
    from sluice.sql.streaming import StreamingQueryListener

    events = []

    class Recorder(StreamingQueryListener):
        def onQueryStarted(self, event):
            events.append(("started", event.id, event.name))

        def onQueryProgress(self, event):
            events.append(("progress", event.progress.batchId, event.progress.numInputRows))

        def onQueryTerminated(self, event):
            events.append(("terminated", event.id, event.exception))

    listener = Recorder()
    spark.streams.addListener(listener)
    try:
        write_json(tmp_path / "in", "a.json", rows(0, 4))
        q = (spark.readStream.schema(SCHEMA).json(str(tmp_path / "in")).writeStream.format("memory")
             .queryName("listened").option("checkpointLocation", str(tmp_path / "ck"))
             .trigger(availableNow=True).start())
        q.awaitTermination()
    finally:
        spark.streams.removeListener(listener)
    assert events[0] == ("started", q.id, "listened")
    assert ("progress", 0, 4) in events
    assert events[-1] == ("terminated", q.id, None)
