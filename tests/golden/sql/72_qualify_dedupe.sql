-- QUALIFY ROW_NUMBER() = 1 is a dedupe on the PARTITION BY columns: dropDuplicates without a
-- watermark, dropDuplicatesWithinWatermark with one.
CREATE TABLE events (id BIGINT, name TEXT, price DOUBLE PRECISION, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in');
CREATE TABLE marked (id BIGINT, ts TIMESTAMP)
  WITH (connector = 'files', format = 'json', path = '$DIR/in', event_time = 'ts', watermark = '1 hour');
CREATE TABLE firsts () WITH (connector = 'console');
CREATE TABLE marked_firsts () WITH (connector = 'console');
INSERT INTO firsts SELECT id, name FROM events WHERE price > 0
QUALIFY ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts) = 1;
INSERT INTO marked_firsts
SELECT * FROM (SELECT id, ts, ROW_NUMBER() OVER (PARTITION BY id ORDER BY ts) AS rn FROM marked) t
WHERE rn = 1;
