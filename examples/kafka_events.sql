-- The classic exercise: Kafka -> stream -> Iceberg (run by examples/demo.sh from demo-out/, which
-- puts its broker's address in place of localhost:9092). Events in the topic 'events' (key: the
-- event id, value: the event as JSON text) are appended to lake.db.kafka_events, an Apache
-- Iceberg v2 table in a SQL catalog on SQLite, with their Kafka partition, offset and timestamp. The checkpoint records the Kafka offsets of each batch (offsets/N);
-- the Iceberg sink tags each snapshot with the query id and batch id, so a redone batch is never
-- committed twice, and refuses a table another checkpoint writes.
--   sluice run examples/kafka_events.sql --trigger available-now --checkpoint ckpt-kafka

SET sluice.sql.catalog.lake.type = 'sql';
SET sluice.sql.catalog.lake.uri = 'sqlite:///kafka-lake/catalog.db';   -- relative to the current directory
SET sluice.sql.catalog.lake.warehouse = 'kafka-lake/wh';

CREATE TABLE raw () WITH (connector = 'kafka', bootstrap_servers = 'localhost:9092', subscribe = 'events',
                          starting_offsets = 'earliest', max_offsets_per_trigger = 200);

CREATE TABLE kafka_events () WITH (connector = 'iceberg', catalog = 'lake', table = 'db.kafka_events');

INSERT INTO kafka_events
SELECT CAST(CAST(key AS STRING) AS BIGINT) AS id, CAST(value AS STRING) AS event,
       "partition" AS kafka_partition, "offset" AS kafka_offset, "timestamp" AS kafka_timestamp
FROM raw;
