"""A real Apache Kafka broker for the Kafka tests, and an outside client (confluent-kafka).

Under ctest the broker is started once for every Kafka test file by the fixture test
`kafka/broker_start` and stopped by `kafka/broker_stop` (which ctest runs also when tests fail);
$SLUICE_KAFKA_BROKER_DIR names its directory. Run directly with pytest, this session starts its
own broker and stops it at the end, pass or fail.
"""
import os
import subprocess
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

REPO = Path(__file__).resolve().parents[2]
BROKER = REPO / "scripts" / "kafka-broker"



@pytest.fixture(scope="session")
def bootstrap(tmp_path_factory) -> str:
    shared = os.environ.get("SLUICE_KAFKA_BROKER_DIR")
    if shared:
        f = Path(shared) / "bootstrap"
        if not f.exists():
            pytest.fail(f"no broker in {shared} (ctest fixture kafka/broker_start)")
        yield f.read_text().strip()
        return
    d = tmp_path_factory.mktemp("kafka-broker")
    out = subprocess.run([str(BROKER), "start", str(d)], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        pytest.fail(f"kafka-broker start failed: {out.stderr}")
    try:
        yield out.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([str(BROKER), "stop", str(d)], timeout=120)


class Kafka:
    """The outside client: topics, producing input, reading output as read_committed."""

    def __init__(self, bootstrap: str):
        self.bootstrap = bootstrap
        self.admin = AdminClient({"bootstrap.servers": bootstrap})

    def topic(self, partitions: int = 1) -> str:
        name = "t-" + uuid.uuid4().hex[:10]
        fs = self.admin.create_topics([NewTopic(name, num_partitions=partitions, replication_factor=1)])
        fs[name].result(timeout=60)
        return name

    def add_partitions(self, topic: str, total: int) -> None:
        from confluent_kafka.admin import NewPartitions
        self.admin.create_partitions([NewPartitions(topic, total)])[topic].result(timeout=60)

    def produce(self, topic: str, values, partition=None, key=None, headers=None) -> None:
        p = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 5})
        for v in values:
            kwargs = {"value": v.encode() if isinstance(v, str) else v}
            if partition is not None:
                kwargs["partition"] = partition
            if key is not None:
                kwargs["key"] = key
            if headers is not None:
                kwargs["headers"] = headers
            p.produce(topic, **kwargs)
        assert p.flush(60) == 0

    def read(self, topic: str, isolation: str = "read_committed", timeout: float = 15.0):
        """Every record of `topic` visible to `isolation`, as (partition, offset, key, value)."""
        c = Consumer({"bootstrap.servers": self.bootstrap, "group.id": "reader-" + uuid.uuid4().hex,
                      "isolation.level": isolation, "enable.auto.commit": False, "enable.partition.eof": True})
        md = self.admin.list_topics(topic, timeout=30).topics[topic]
        parts = [TopicPartition(topic, p, 0) for p in md.partitions]
        c.assign(parts)
        out, eof = [], set()
        import time
        deadline = time.time() + timeout
        while len(eof) < len(parts) and time.time() < deadline:
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                if m.error().code() == -191:  # _PARTITION_EOF
                    eof.add(m.partition())
                continue
            out.append((m.partition(), m.offset(), m.key(), m.value()))
        c.close()
        return out


@pytest.fixture(scope="session")
def kafka(bootstrap) -> Kafka:
    return Kafka(bootstrap)
