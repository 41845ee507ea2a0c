-- The rate source's timestamp column as event time; complete mode into a memory table.
CREATE TABLE ticks () WITH (connector = 'rate', rows_per_second = 10, event_time = 'timestamp', watermark = '2 seconds');
CREATE TABLE per_second () WITH (connector = 'memory');
INSERT INTO per_second
SELECT window_start, count(*) AS n, sum(value) AS s FROM ticks GROUP BY tumble("timestamp", INTERVAL '1 second');
