"""A broker stopped and started again while a Kafka -> Kafka query (C++ API) or a Kafka -> Iceberg
SQL pipeline runs: the query rides it out (bounded retries) and the output is still every record
exactly once. Under ctest it restarts the shared broker ($SLUICE_KAFKA_BROKER_DIR; this file runs
serially); otherwise a broker of its own."""
import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import BROKER, Kafka
from test_kafka_torture import Input, iceberg_records, read_iceberg


@pytest.mark.parametrize("pipeline", ["kafka_to_kafka", "kafka_to_iceberg"])
def test_broker_restart_mid_run(tmp_path, sluice_bin_dir, pipeline):
    shared = os.environ.get("SLUICE_KAFKA_BROKER_DIR")
    broker_dir = Path(shared) if shared else tmp_path / "broker"
    if not shared:
        start = subprocess.run([str(BROKER), "start", str(broker_dir)], capture_output=True, text=True, timeout=300)
        assert start.returncode == 0, start.stderr
    kafka = Kafka((broker_dir / "bootstrap").read_text().strip())
    try:
        n = 1500  # 300 batches of 5: still running when the broker stops, even on an idle machine
        if pipeline == "kafka_to_kafka":
            src, dst = kafka.topic(), kafka.topic()
            kafka.produce(src, [f"v{i}" for i in range(n)])
            cmd = [str(sluice_bin_dir / "kafka_stream"), "--bootstrap", kafka.bootstrap, "--input", src,
                   "--checkpoint", str(tmp_path / "ckpt"), "--output-topic", dst, "--max-offsets-per-trigger", "5"]
        else:
            data = Input(kafka)
            data.produce(n)
            sql = tmp_path / "p.sql"
            sql.write_text(iceberg_records(kafka, data.topic, tmp_path, per_trigger=5))
            cmd = [str(sluice_bin_dir / "sluice"), "run", str(sql), "--checkpoint", str(tmp_path / "ckpt"),
                   "--trigger", "available-now"]
        query = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # Stop the broker as soon as the first batch has committed (not after a fixed sleep: how
        # many batches fit in a second depends on the machine's load).
        # (A SQL pipeline keeps each INSERT's checkpoint in a directory of its own under ckpt.)
        def committed() -> bool:
            return any(p.parent.name == "commits" for p in (tmp_path / "ckpt").rglob("0"))
        deadline = time.monotonic() + 120
        while not committed() and query.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if query.poll() is not None:
            _, err = query.communicate()
            pytest.fail(f"the query ended (exit {query.returncode}) before the broker restart: {err}")
        subprocess.run([str(BROKER), "stop", str(broker_dir)], check=True, timeout=120)
        time.sleep(1)
        subprocess.run([str(BROKER), "start", str(broker_dir)], check=True, capture_output=True, timeout=300)
        _, err = query.communicate(timeout=600)
        assert query.returncode == 0, err
        if pipeline == "kafka_to_kafka":
            got = sorted(r[3].decode() for r in kafka.read(dst, timeout=60))
            assert got == sorted(f"v{i}" for i in range(n))
        else:
            assert sorted(r[0] for r in read_iceberg(tmp_path, "records")) == list(range(n))
    finally:
        if not shared:
            subprocess.run([str(BROKER), "stop", str(broker_dir)], timeout=120)
