"""The Kafka source against a real broker, through SQL (`sluice run` / `sluice batch`): Spark's
rows, offsets JSON in offsets/N, read limits, new partitions, batch reads with endingOffsets,
progress metrics and the offsets reported to the consumer group."""
import json
import subprocess
import time
from pathlib import Path

from confluent_kafka import ConsumerGroupTopicPartitions, Producer


def sluice(bin_dir: Path, *args, ok=True):
    out = subprocess.run([str(bin_dir / "sluice"), *map(str, args)], capture_output=True, text=True, timeout=300)
    if ok:
        assert out.returncode == 0, out.stderr
    return out


def pipeline(tmp: Path, bootstrap: str, topic: str, extra: str = "") -> Path:
    sql = tmp / "p.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{bootstrap}', subscribe = '{topic}',
                          starting_offsets = 'earliest'{extra});
CREATE TABLE out (k STRING, v STRING, p INT, o BIGINT, ts_type INT)
  WITH (connector = 'files', format = 'json', path = '{tmp / "out"}');
INSERT INTO out SELECT CAST(key AS STRING) AS k, CAST(value AS STRING) AS v, "partition" AS p, "offset" AS o,
                       "timestampType" AS ts_type FROM src;
""")
    return sql


def records(out_dir: Path):
    """Every JSON line the file sink wrote (a null column is left out of its line)."""
    return [json.loads(line) for f in sorted(out_dir.glob("*.json")) for line in f.read_text().splitlines() if line]


def rows(out_dir: Path):
    return sorted((r["p"], r["o"], r.get("k"), r["v"]) for r in records(out_dir))


def progress(path: Path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_stream_reads_each_record_once_with_spark_offsets(tmp_path, sluice_bin_dir, kafka):
    topic = kafka.topic(partitions=2)
    kafka.produce(topic, [f"a{i}" for i in range(10)], partition=0, key=b"k")
    kafka.produce(topic, [f"b{i}" for i in range(10)], partition=1)
    sql = pipeline(tmp_path, kafka.bootstrap, topic, ", max_offsets_per_trigger = 8")
    ckpt = tmp_path / "ckpt"
    sluice(sluice_bin_dir, "run", sql, "--checkpoint", ckpt, "--trigger", "available-now",
           "--progress", tmp_path / "progress.jsonl")
    got = rows(tmp_path / "out")
    expected = [(0, i, "k", f"a{i}") for i in range(10)] + [(1, i, None, f"b{i}") for i in range(10)]
    assert got == expected
    # 20 records, at most 8 a batch: 8 + 8 + 4, each limit split over the partitions by backlog.
    prog = progress(tmp_path / "progress.jsonl")
    assert [p["numInputRows"] for p in prog] == [8, 8, 4]
    offsets_dir = ckpt / "out" / "offsets"
    last = (offsets_dir / "2").read_text().splitlines()[-1]
    assert json.loads(last) == {topic: {"0": 10, "1": 10}}  # Spark's form: next offset per partition
    src = prog[0]["sources"][0]
    assert src["description"] == f"KafkaV2[Subscribe[{topic}]]"
    assert src["endOffset"] == {topic: {"0": 4, "1": 4}}
    assert src["latestOffset"] == {topic: {"0": 10, "1": 10}}
    assert src["metrics"]["maxOffsetsBehindLatest"] == "6"
    assert float(src["metrics"]["avgOffsetsBehindLatest"]) == 6.0
    assert prog[-1]["sources"][0]["metrics"]["maxOffsetsBehindLatest"] == "0"

    # More records and a new partition while the query is down: the restart reads only those.
    kafka.add_partitions(topic, 3)
    kafka.produce(topic, ["a10"], partition=0)
    kafka.produce(topic, ["c0", "c1"], partition=2)
    sluice(sluice_bin_dir, "run", sql, "--checkpoint", ckpt, "--trigger", "available-now")
    got = rows(tmp_path / "out")
    assert got == sorted(expected + [(0, 10, None, "a10"), (2, 0, None, "c0"), (2, 1, None, "c1")])
    assert {r["ts_type"] for r in records(tmp_path / "out")} == {0}  # CreateTime, as the producer set it

    # The committed offsets are also reported to the consumer group (for lag tools).
    query_id = json.loads((ckpt / "out" / "metadata").read_text().splitlines()[-1])["id"]
    group = f"sluice-kafka-source-{query_id}"
    res = kafka.admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(timeout=30)
    committed = {(tp.topic, tp.partition): tp.offset for tp in res.topic_partitions}
    assert committed == {(topic, 0): 11, (topic, 1): 10, (topic, 2): 2}


def test_latest_starts_after_existing_records_and_survives_a_restart(tmp_path, sluice_bin_dir, kafka):
    topic = kafka.topic()
    kafka.produce(topic, ["old"])
    sql = tmp_path / "p.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', "kafka.bootstrap.servers" = '{kafka.bootstrap}',
                          subscribe = '{topic}', startingOffsets = 'latest');
CREATE TABLE out (v STRING) WITH (connector = 'files', format = 'json', path = '{tmp_path / "out"}');
INSERT INTO out SELECT CAST(value AS STRING) AS v FROM src;
""")
    ckpt = tmp_path / "ckpt"
    sluice(sluice_bin_dir, "run", sql, "--checkpoint", ckpt, "--trigger", "available-now")
    # The starting offsets were fixed before the first batch: a record produced now is new.
    kafka.produce(topic, ["new"])
    sluice(sluice_bin_dir, "run", sql, "--checkpoint", ckpt, "--trigger", "available-now")
    values = sorted(r["v"] for r in records(tmp_path / "out"))
    assert values == ["new"]


def test_batch_read_between_json_offsets(tmp_path, sluice_bin_dir, kafka):
    topic = kafka.topic(partitions=2)
    kafka.produce(topic, [f"a{i}" for i in range(6)], partition=0)
    kafka.produce(topic, [f"b{i}" for i in range(6)], partition=1)
    starting = json.dumps({topic: {"0": 2, "1": -2}})
    ending = json.dumps({topic: {"0": 4, "1": -1}})
    sql = tmp_path / "b.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{topic}',
                          starting_offsets = '{starting}', ending_offsets = '{ending}');
CREATE TABLE out (v STRING) WITH (connector = 'files', format = 'json', path = '{tmp_path / "out"}');
INSERT INTO out SELECT CAST(value AS STRING) AS v FROM src;
""")
    sluice(sluice_bin_dir, "batch", sql)
    values = sorted(r["v"] for r in records(tmp_path / "out"))
    assert values == ["a2", "a3"] + [f"b{i}" for i in range(6)]


def test_option_errors_name_the_option(tmp_path, sluice_bin_dir, kafka):
    sql = tmp_path / "e.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = 'x',
                          max_offsets_per_trigga = 3);
SELECT CAST(value AS STRING) FROM src;
""")
    out = sluice(sluice_bin_dir, "run", sql, "--trigger", "available-now", ok=False)
    assert out.returncode != 0
    assert "unknown option 'max_offsets_per_trigga'" in out.stderr or "maxOffsetsPerTrigga" in out.stderr
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = 'no-such-topic');
CREATE TABLE out (v STRING) WITH (connector = 'files', format = 'json', path = '{tmp_path / "out"}');
INSERT INTO out SELECT CAST(value AS STRING) AS v FROM src;
""")
    out = sluice(sluice_bin_dir, "run", sql, "--checkpoint", tmp_path / "c", "--trigger", "available-now", ok=False)
    assert out.returncode != 0
    assert "topic 'no-such-topic'" in out.stderr and "does not exist" in out.stderr


def produce_at(kafka, topic: str, partition: int, values_and_ms) -> None:
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": kafka.bootstrap})
    for v, ms in values_and_ms:
        p.produce(topic, value=v.encode(), partition=partition, timestamp=ms)
    assert p.flush(60) == 0


def test_starting_and_ending_by_timestamp(tmp_path, sluice_bin_dir, kafka):
    t = (int(time.time()) - 3600) * 1000  # recent: the broker's time-based retention keeps it
    topic = kafka.topic(partitions=2)
    produce_at(kafka, topic, 0, [(f"a{i}", t + 1000 * i) for i in range(6)])
    produce_at(kafka, topic, 1, [(f"b{i}", t + 1000 * i + 500) for i in range(6)])
    # A stream from startingOffsetsByTimestamp: each partition from its first record at or after
    # its own timestamp; recorded in sources/0/0, so a restart does not look it up again.
    by_ts = json.dumps({topic: {"0": t + 3000, "1": t + 4600}})
    sql = tmp_path / "s.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{topic}',
                          starting_offsets_by_timestamp = '{by_ts}');
CREATE TABLE out (v STRING) WITH (connector = 'files', format = 'json', path = '{tmp_path / "out"}');
INSERT INTO out SELECT CAST(value AS STRING) AS v FROM src;
""")
    sluice(sluice_bin_dir, "run", sql, "--checkpoint", tmp_path / "ckpt", "--trigger", "available-now")
    assert sorted(r["v"] for r in records(tmp_path / "out")) == ["a3", "a4", "a5", "b5"]
    initial = (tmp_path / "ckpt" / "out" / "sources" / "0" / "0").read_text()  # <ckpt>/<query>/...
    assert json.loads(initial[initial.index("{"):]) == {topic: {"0": 3, "1": 5}}

    # A batch read between two global timestamps (startingTimestamp / endingTimestamp).
    sql = tmp_path / "b.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{topic}',
                          startingTimestamp = '{t + 1000}', endingTimestamp = '{t + 3000}');
CREATE TABLE out (v STRING) WITH (connector = 'files', format = 'json', path = '{tmp_path / "bout"}');
INSERT INTO out SELECT CAST(value AS STRING) AS v FROM src;
""")
    sluice(sluice_bin_dir, "batch", sql)
    assert sorted(r["v"] for r in records(tmp_path / "bout")) == ["a1", "a2", "b1", "b2"]

    # No record that recent: an error naming the partition (strategy error), or latest.
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{topic}',
                          starting_timestamp = '{t + 60_000}');
CREATE TABLE out (v STRING) WITH (connector = 'files', format = 'json', path = '{tmp_path / "eout"}');
INSERT INTO out SELECT CAST(value AS STRING) AS v FROM src;
""")
    out = sluice(sluice_bin_dir, "run", sql, "--checkpoint", tmp_path / "c2", "--trigger", "available-now", ok=False)
    assert out.returncode != 0 and f"no record of {topic}-0 has a timestamp at or after" in out.stderr
    sql.write_text(sql.read_text().replace(f"starting_timestamp = '{t + 60_000}'",
                                           f"starting_timestamp = '{t + 60_000}', "
                                           "starting_offsets_by_timestamp_strategy = 'latest'")
                   .replace("eout", "lout"))
    # Partition 0 now has a record that recent and starts there; partition 1 starts at latest.
    produce_at(kafka, topic, 0, [("late", t + 90_000)])
    sluice(sluice_bin_dir, "run", sql, "--checkpoint", tmp_path / "c3", "--trigger", "available-now")
    assert sorted(r["v"] for r in records(tmp_path / "lout")) == ["late"]


def test_json_values_parsed_with_from_json_and_written_back_with_to_json(tmp_path, sluice_bin_dir, kafka):
    topic = kafka.topic(partitions=1)
    kafka.produce(topic, [json.dumps({"id": i, "name": f"n{i}"}) for i in range(5)] + ["not json"], partition=0)
    sql = tmp_path / "j.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{topic}',
                          starting_offsets = 'earliest');
CREATE TABLE out (id BIGINT, name STRING, back STRING)
  WITH (connector = 'files', format = 'json', path = '{tmp_path / "out"}');
CREATE VIEW parsed AS SELECT from_json(CAST(value AS STRING), 'id BIGINT, name STRING') AS j FROM src;
INSERT INTO out SELECT j.id AS id, upper(j.name) AS name, to_json(named_struct('id', j.id, 'n', j.name)) AS back
                FROM parsed;
""")
    sluice(sluice_bin_dir, "batch", sql)
    got = sorted(((r.get("id"), r.get("name"), r.get("back")) for r in records(tmp_path / "out")),
                 key=lambda t: (t[0] is None, t[0] or 0))
    # A value that is not JSON gives a struct of nulls (Spark's PERMISSIVE from_json); to_json of
    # a struct of nulls is "{}".
    assert got == [(i, f"N{i}", json.dumps({"id": i, "n": f"n{i}"}, separators=(",", ":"))) for i in range(5)] + \
        [(None, None, "{}")]


def test_small_batches_over_transaction_markers_and_aborted_records(tmp_path, sluice_bin_dir, kafka):
    """Records written in transactions, one of them aborted, read with read_committed three
    offsets a batch: batch ranges then end on commit markers (which take an offset but are never
    delivered) and on aborted records. The consumer reads on from one batch to the next without
    being assigned again; every committed record still comes once, and no aborted one."""
    topic = kafka.topic(partitions=1)
    producer = Producer({"bootstrap.servers": kafka.bootstrap, "transactional.id": f"tx-{topic}"})
    producer.init_transactions(30)
    want = []
    for t in range(6):
        producer.begin_transaction()
        for i in range(4):
            producer.produce(topic, value=f"t{t}-{i}".encode(), partition=0)
        if t == 3:
            producer.flush(30)  # the records reach the log before the abort (else it just drops them)
            producer.abort_transaction(30)
        else:
            producer.commit_transaction(30)
            want += [f"t{t}-{i}" for i in range(4)]
    sql = pipeline(tmp_path, kafka.bootstrap, topic,
                   ", max_offsets_per_trigger = 3, \"kafka.isolation.level\" = 'read_committed'")
    sluice(sluice_bin_dir, "run", sql, "--checkpoint", tmp_path / "ckpt", "--trigger", "available-now",
           "--progress", tmp_path / "progress.jsonl")
    got = rows(tmp_path / "out")
    assert [v for _, _, _, v in got] == want  # offset order: the transactions' order
    prog = progress(tmp_path / "progress.jsonl")
    assert len(prog) == 10  # 30 offsets (24 records + 6 markers), 3 a batch
    assert prog[-1]["sources"][0]["endOffset"] == {topic: {"0": 30}}
