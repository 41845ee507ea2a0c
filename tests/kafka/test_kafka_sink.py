"""The Kafka sink against a real broker, judged by an outside read_committed consumer:
exactly-once across a crash between the sink and the commit log, Kafka -> Kafka and
Kafka -> Parquet, and the sink's clear errors. kill -9 at random moments: test_kafka_torture.py;
a broker restart: test_kafka_broker_restart.py."""
import subprocess
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

FAULT_EXIT = 42  # io::FaultSpec's default exit code


def run_stream(bin_dir: Path, bootstrap: str, *args, expect=(0,), timeout=300):
    cmd = [str(bin_dir / "kafka_stream"), "--bootstrap", bootstrap, *map(str, args)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert out.returncode in expect, out.stderr
    return out


def values(records):
    return sorted(r[3].decode() for r in records)


@pytest.mark.parametrize("delivery", ["exactly-once", "at-least-once"])
def test_crash_between_sink_and_commit(tmp_path, sluice_bin_dir, kafka, delivery):
    src, dst = kafka.topic(partitions=2), kafka.topic()
    kafka.produce(src, [f"v{i}" for i in range(15)], partition=0)
    kafka.produce(src, [f"w{i}" for i in range(15)], partition=1)
    args = ["--input", src, "--checkpoint", tmp_path / "ckpt", "--output-topic", dst, "--delivery", delivery,
            "--max-offsets-per-trigger", "10"]
    # Batch 1 reaches Kafka, then the process dies before commits/1: the restart redoes batch 1.
    run_stream(sluice_bin_dir, kafka.bootstrap, *args, "--fault", "point=after_sink_commit,hits=2",
               expect=(FAULT_EXIT,))
    assert len(kafka.read(dst)) == 20
    run_stream(sluice_bin_dir, kafka.bootstrap, *args)
    expected = sorted([f"v{i}" for i in range(15)] + [f"w{i}" for i in range(15)])
    got = values(kafka.read(dst))
    if delivery == "exactly-once":
        assert got == expected
    else:  # at-least-once produces the redone batch again
        assert sorted(set(got)) == expected and len(got) == 40


def test_redone_first_batch_is_not_produced_again(tmp_path, sluice_bin_dir, kafka):
    src, dst = kafka.topic(), kafka.topic()
    kafka.produce(src, [f"v{i}" for i in range(10)])
    # Killed after the sink committed batch 0's transaction, before commits/0: the restart redoes
    # batch 0, and the sink finds batch 0 in its consumer group's committed metadata.
    args = ["--input", src, "--checkpoint", tmp_path / "ckpt", "--output-topic", dst]
    run_stream(sluice_bin_dir, kafka.bootstrap, *args, "--fault", "point=after_sink_commit,hits=1",
               expect=(FAULT_EXIT,))
    assert values(kafka.read(dst)) == sorted(f"v{i}" for i in range(10))
    run_stream(sluice_bin_dir, kafka.bootstrap, *args)
    # Not even an aborted copy: a read_uncommitted reader sees each record once too.
    assert values(kafka.read(dst, isolation="read_uncommitted")) == sorted(f"v{i}" for i in range(10))


def test_kafka_to_parquet_after_a_crash(tmp_path, sluice_bin_dir, kafka):
    src = kafka.topic(partitions=3)
    for p in range(3):
        kafka.produce(src, [f"p{p}-{i}" for i in range(7)], partition=p)
    args = ["--input", src, "--checkpoint", tmp_path / "ckpt", "--output-dir", tmp_path / "out",
            "--max-offsets-per-trigger", "6"]
    run_stream(sluice_bin_dir, kafka.bootstrap, *args, "--fault", "point=after_sink_commit,hits=2",
               expect=(FAULT_EXIT,))
    run_stream(sluice_bin_dir, kafka.bootstrap, *args)
    got = sorted(v.decode() for f in (tmp_path / "out").glob("*.parquet") for v in pq.read_table(f)["value"].to_pylist())
    assert got == sorted(f"p{p}-{i}" for p in range(3) for i in range(7))


def test_errors_name_the_topic_and_the_servers(tmp_path, sluice_bin_dir, kafka):
    src = kafka.topic()
    kafka.produce(src, ["x"])
    out = run_stream(sluice_bin_dir, kafka.bootstrap, "--input", src, "--checkpoint", tmp_path / "c1",
                     "--output-topic", "missing-topic", expect=(1,))
    assert "topic 'missing-topic'" in out.stderr and "does not exist" in out.stderr


def test_sql_pipeline_kafka_to_kafka(tmp_path, sluice_bin_dir, kafka):
    src, dst = kafka.topic(partitions=2), kafka.topic()
    kafka.produce(src, ["a", "b"], partition=0)
    kafka.produce(src, ["c"], partition=1)
    sql = tmp_path / "p.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{src}',
                          starting_offsets = 'earliest');
CREATE TABLE dst () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', topic = '{dst}');
INSERT INTO dst SELECT key, upper(CAST(value AS STRING)) AS value FROM src;
""")
    out = subprocess.run([str(sluice_bin_dir / "sluice"), "run", str(sql), "--checkpoint", str(tmp_path / "ckpt"),
                          "--trigger", "available-now"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert values(kafka.read(dst)) == ["A", "B", "C"]


def test_transaction_timeout_shorter_than_the_trigger_is_refused(tmp_path, sluice_bin_dir, kafka):
    src, dst = kafka.topic(), kafka.topic()
    sql = tmp_path / "p.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{src}');
CREATE TABLE dst () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', topic = '{dst}',
                          "kafka.transaction.timeout.ms" = '1000');
INSERT INTO dst SELECT value FROM src;
""")
    out = subprocess.run([str(sluice_bin_dir / "sluice"), "run", str(sql), "--checkpoint", str(tmp_path / "ckpt"),
                          "--trigger", "processing-time=5s"], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "kafka.transaction.timeout.ms = 1000" in out.stderr and "5000 ms" in out.stderr


def test_unreachable_brokers_are_named_after_a_bounded_retry(tmp_path, sluice_bin_dir, kafka):
    src = kafka.topic()
    sql = tmp_path / "p.sql"
    sql.write_text(f"""
CREATE TABLE src () WITH (connector = 'kafka', bootstrap_servers = '{kafka.bootstrap}', subscribe = '{src}');
CREATE TABLE dst () WITH (connector = 'kafka', bootstrap_servers = '127.0.0.1:1', topic = 'x',
                          "kafka.socket.timeout.ms" = '3000');
INSERT INTO dst SELECT value FROM src;
""")
    t0 = time.time()
    out = subprocess.run([str(sluice_bin_dir / "sluice"), "run", str(sql), "--checkpoint", str(tmp_path / "ckpt"),
                          "--trigger", "available-now"], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "'127.0.0.1:1'" in out.stderr and "did not answer within 3000 ms" in out.stderr
    assert time.time() - t0 < 60
