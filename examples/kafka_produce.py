"""Produces JSON events {"id": i, "name": "user<i % 7>", "price": i * 0.25} for ids FIRST ..
FIRST+COUNT-1 to a Kafka topic (created with 2 partitions when missing), as an outside producer
(confluent-kafka) would. Used by examples/demo.sh for the Kafka -> Iceberg exercise.

  kafka_produce.py BOOTSTRAP TOPIC FIRST COUNT"""
import json
import sys

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic


def main() -> int:
    bootstrap, topic, first, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    admin = AdminClient({"bootstrap.servers": bootstrap})
    if topic not in admin.list_topics(timeout=30).topics:
        admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])[topic].result(timeout=60)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(first, first + count):
        event = {"id": i, "name": f"user{i % 7}", "price": round(i * 0.25, 2)}
        producer.produce(topic, key=str(i).encode(), value=json.dumps(event).encode())
    if producer.flush(60) != 0:
        print("kafka_produce: some records were not delivered", file=sys.stderr)
        return 1
    print(f"produced ids {first}..{first + count - 1} to topic '{topic}'")
    return 0


if __name__ == "__main__":
    sys.exit(main())
