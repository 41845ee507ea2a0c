SET spark.sql.shuffle.partitions = 2;
CREATE TABLE events (id BIGINT, name TEXT, ts TIMESTAMP) WITH (connector = 'files', format = 'json', path = '/in');
CREATE TABLE out () WITH (connector = 'files', format = 'parquet', path = '/out');
INSERT INTO out SELECT id, upper(name) AS n, window_start FROM events WHERE id > 0 AND name LIKE 'a%' GROUP BY id, name, window(ts, '10 seconds');
