"""kill -9 torture on the real broker: a `sluice run` SQL pipeline from Kafka is killed at random
moments again and again, input keeps arriving while it is down, and after the last kill a run to
the end must leave exactly what a run that never stopped leaves (no gap, no duplicate).

Pipelines: Kafka -> Iceberg (records), Kafka -> Iceberg (a windowed aggregation on the Kafka
timestamp), Kafka -> Parquet files and Kafka -> Kafka (exactly-once sink). Outputs are read by
outside readers: PyIceberg, pyarrow following _spark_metadata, and a read_committed consumer.

SLUICE_KAFKA_KILLS=N sets the kills per pipeline (default 50; `make test-asan` may use fewer)."""
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from urllib.parse import unquote, urlparse

import pyarrow.parquet as pq
import pytest
from confluent_kafka import Producer
from pyiceberg.catalog.sql import SqlCatalog

KILLS = int(os.environ.get("SLUICE_KAFKA_KILLS", "50"))
CHUNK = 400          # records produced whenever a run finishes before it is killed
PER_TRIGGER = 40     # max_offsets_per_trigger: many small batches to kill in
WINDOW_MS = 10_000   # tumbling windows on the Kafka timestamp
# A day ago, on a window boundary: recent enough for the broker's time-based retention (7 days),
# and far enough back that no record's time (100 ms apart: 864,000 records to a day) is in the
# future, which the broker refuses beyond log.message.timestamp.after.max.ms (an hour in Kafka 4).
BASE_TS = (int(time.time() * 1000) - 86_400_000) // WINDOW_MS * WINDOW_MS


class Input:
    """The input topic: records v<i> with the CreateTime BASE_TS + 100 ms * i (event-time order,
    so no record is late and every window's count is the same however the batches fall)."""

    def __init__(self, kafka, partitions=2):
        self.kafka = kafka
        self.topic = kafka.topic(partitions=partitions)
        self.partitions = partitions
        self.n = 0
        self.producer = Producer({"bootstrap.servers": kafka.bootstrap, "linger.ms": 5})

    def produce(self, count: int) -> None:
        failed = []  # a record the broker refused is reported here, not by flush()

        def delivered(err, msg):
            if err is not None:
                failed.append(f"{msg.value()!r}: {err}")

        for i in range(self.n, self.n + count):
            self.producer.produce(self.topic, value=str(i).encode(), partition=i % self.partitions,
                                  timestamp=BASE_TS + 100 * i, on_delivery=delivered)
        assert self.producer.flush(60) == 0
        assert not failed, f"{len(failed)} records were not written, e.g. {failed[0]}"
        self.n += count


def catalog_sets(lake: Path) -> str:
    return f"""
SET sluice.sql.catalog.lake.type = 'sql';
SET sluice.sql.catalog.lake.uri = 'sqlite:///{lake}/catalog.db';
SET sluice.sql.catalog.lake.warehouse = '{lake}/wh';
"""


def source_table(kafka, topic: str, extra: str = "", per_trigger: int = PER_TRIGGER) -> str:
    return f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{topic}',
                          starting_offsets = 'earliest', max_offsets_per_trigger = {per_trigger}{extra});
"""


def iceberg_records(kafka, topic: str, out: Path, per_trigger: int = PER_TRIGGER) -> str:
    return catalog_sets(out) + source_table(kafka, topic, per_trigger=per_trigger) + """
CREATE TABLE sink () WITH (connector = 'iceberg', catalog = 'lake', table = 'db.records');
INSERT INTO sink SELECT CAST(CAST(value AS STRING) AS BIGINT) AS id, "partition" AS p, "offset" AS o FROM src;
"""


def iceberg_windows(kafka, topic: str, out: Path) -> str:
    return catalog_sets(out) + source_table(kafka, topic, ", event_time = 'timestamp', watermark = '0 seconds'") + f"""
CREATE TABLE sink () WITH (connector = 'iceberg', catalog = 'lake', table = 'db.windows');
INSERT INTO sink SELECT window_start, window_end, count(*) AS n, sum(CAST(CAST(value AS STRING) AS BIGINT)) AS total
FROM src GROUP BY tumble("timestamp", INTERVAL '{WINDOW_MS // 1000} seconds');
"""


def parquet_files(kafka, topic: str, out: Path) -> str:
    return source_table(kafka, topic) + f"""
CREATE TABLE sink () WITH (connector = 'files', format = 'parquet', path = '{out}/files');
INSERT INTO sink SELECT CAST(CAST(value AS STRING) AS BIGINT) AS id, "partition" AS p, "offset" AS o FROM src;
"""


def kafka_topic(kafka, topic: str, out: Path) -> str:
    dst = (out / "topic").read_text()
    return source_table(kafka, topic) + f"""
CREATE TABLE sink () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', topic = '{dst}');
INSERT INTO sink SELECT CAST("offset" AS STRING) AS key, value FROM src;
"""


def read_iceberg(out: Path, table: str):
    catalog = SqlCatalog("lake", uri=f"sqlite:///{out}/catalog.db", warehouse=f"file://{out}/wh")
    rows = catalog.load_table(f"db.{table}").scan().to_arrow().to_pylist()
    return sorted(tuple(r.values()) for r in rows)


def read_files(out: Path):
    """The rows of the data files listed in _spark_metadata (latest compaction + later batches)."""
    log = out / "files" / "_spark_metadata"
    batches = sorted(int(p.name.split(".")[0]) for p in log.iterdir() if p.name.split(".")[0].isdigit())
    compacts = [b for b in batches if (log / f"{b}.compact").exists()]
    start = compacts[-1] if compacts else 0
    paths = []
    for b in batches:
        if b < start:
            continue
        f = log / (f"{b}.compact" if (log / f"{b}.compact").exists() else str(b))
        lines = f.read_text().split("\n")
        assert lines[0] == "v1"
        paths += [unquote(urlparse(json.loads(x)["path"]).path) for x in lines[1:] if x.strip()]
    return sorted(tuple(r.values()) for p in paths for r in pq.read_table(p).to_pylist())


def read_topic(kafka, out: Path):
    return sorted((r[2], r[3]) for r in kafka.read((out / "topic").read_text(), timeout=60))


PIPELINES = {
    "kafka_to_iceberg": (iceberg_records, lambda kafka, out: read_iceberg(out, "records")),
    "windowed_kafka_to_iceberg": (iceberg_windows, lambda kafka, out: read_iceberg(out, "windows")),
    "kafka_to_parquet": (parquet_files, lambda kafka, out: read_files(out)),
    "kafka_to_kafka": (kafka_topic, read_topic),
}


def sluice_run(bin_dir: Path, sql: Path, ckpt: Path):
    return [str(bin_dir / "sluice"), "run", str(sql), "--checkpoint", str(ckpt), "--trigger", "available-now"]


def committed(ckpt: Path) -> int:
    """The last batch id in the commit log of the checkpoint's query (-1: none yet)."""
    ids = [int(p.name) for p in ckpt.glob("*/commits/*") if p.name.isdigit()]
    return max(ids, default=-1)


def run_to_end(cmd, timeout=300):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("name", list(PIPELINES))
def test_kill_9_torture_equals_a_run_that_never_stopped(tmp_path, sluice_bin_dir, kafka, name):
    make_sql, read = PIPELINES[name]
    data = Input(kafka)
    data.produce(CHUNK)
    outs = {}
    for run in ("killed", "never_stopped"):
        out = tmp_path / run
        out.mkdir()
        if name == "kafka_to_kafka":
            (out / "topic").write_text(kafka.topic())
        (out / "p.sql").write_text(make_sql(kafka, data.topic, out))
        outs[run] = out

    ckpt = outs["killed"] / "ckpt"
    cmd = sluice_run(sluice_bin_dir, outs["killed"] / "p.sql", ckpt)
    rnd = random.Random(name)
    kills = finished = mid_run = 0
    # The kill moment is a random fraction of how long the last run that finished took (a run
    # that catches up on one CHUNK), not a fixed span of seconds: a fixed span lets most runs of a
    # fast binary finish first, and every finished run adds a CHUNK, so the input (and the final
    # runs over all of it) grew without bound. Tied to the runs' own length, the kills land
    # anywhere from start-up to the last batch, and a run finishes every few kills, whatever the
    # binary's speed.
    run_s, whole = 0.7, True  # whole: this run starts with a full CHUNK (at least) to read
    t0 = time.time()
    while kills < KILLS:
        before = committed(ckpt)
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        started = time.time()
        try:
            p.wait(timeout=rnd.uniform(0.25, 1.0) * run_s)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            p.wait()
            kills += 1
            mid_run += committed(ckpt) > before  # killed after a batch, not in start-up
            whole = False
            continue
        assert p.returncode == 0, p.stderr.read().decode()
        finished += 1
        if whole:  # only a run over a whole CHUNK measures a run's length
            run_s = max(time.time() - started, 0.05)
        whole = True
        data.produce(CHUNK)  # the run caught up: more input arrives while the query is down
    run_to_end(cmd)
    killed_for = time.time() - t0

    run_to_end(sluice_run(sluice_bin_dir, outs["never_stopped"] / "p.sql", outs["never_stopped"] / "ckpt"))
    got, want = read(kafka, outs["killed"]), read(kafka, outs["never_stopped"])
    print(f"{name}: {kills} kills ({mid_run} after a batch of the run), {finished} runs finished between kills, {data.n} records, "
          f"{len(got)} output rows, {killed_for:.1f} s")
    assert len(got) > 0
    assert finished > 0  # input arrived between kills, not only before the first
    assert mid_run > 0  # not every kill hit a run's start-up
    assert got == want
    if name != "windowed_kafka_to_iceberg":
        assert len(got) == data.n  # one output row per input record
    else:  # every closed window is whole: 100 records (100 ms apart), ids 100k .. 100k+99
        per_window = WINDOW_MS // 100
        for k, (start, end, n, total) in enumerate(got):
            first = k * per_window
            assert (n, total) == (per_window, sum(range(first, first + per_window))), (start, end)
